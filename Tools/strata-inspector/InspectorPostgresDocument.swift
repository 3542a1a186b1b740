import Foundation
import Strata
import StrataInspectorCore
#if STRATA_INSPECTOR_POSTGRES
import StrataPostgres
#endif

/// Opens `postgres://USER@HOST:PORT/DATABASE/DOCUMENT` for the inspector (docs/INSPECTOR.md,
/// "PostgreSQL documents"): the model the server holds, a `PostgresDocumentStore` that
/// listens for the other writers' saves and takes them into its local replica, and the
/// inspector reading that replica. Nothing is saved, so nothing is written to the server.
///
/// Compiled with the PostgreSQL stack only when the package declares it (STRATA_POSTGRES=1
/// beside STRATA_INSPECTOR=1); otherwise a PostgreSQL URL is refused with how to build it.
enum InspectorPostgresDocument {
    /// Whether `argument` names a PostgreSQL document rather than a file.
    static func isPostgresURL(_ argument: String) -> Bool {
        let lowered = argument.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// The inspector's document over the PostgreSQL document `url`.
    /// - Throws: the `strata-postgres` tool's errors for a bad URL, an unreachable server
    ///   or a missing document (`.objectNotFound`); `.invalidArgument` when this build has
    ///   no PostgreSQL stack.
    /// - Parameter fromServerSnapshot: open from the server's snapshot (faster on a long
    ///   log; the timeline and time travel then start at the snapshot) instead of replaying
    ///   the whole history.
    static func open(_ url: String, fromServerSnapshot: Bool = false) throws -> InspectorDocument {
        #if STRATA_INSPECTOR_POSTGRES
        let location = try PostgresLocation(documentURL: url)
        let remote = try PostgresSegmentRemote(location: location)
        defer { remote.close() }
        guard let document = try remote.document() else {
            throw StrataError(.objectNotFound, "There is no document '\(location.document)' on \(location.server).",
                              context: .init { $0.server = location.server; $0.document = location.document })
        }
        let model = try ManagedObjectModel(jsonData: document.modelJSON)
        var configuration = PostgresDocumentStore.Configuration()
        configuration.listensForRemoteChanges = true
        // The inspector never saves; it must not compact the server's log either.
        configuration.serverCompactionThreshold = 0
        // The whole history, for the timeline and time travel (docs/INSPECTOR.md,
        // "PostgreSQL documents"), unless asked to start at the server's snapshot.
        configuration.opensFromServerSnapshot = fromServerSnapshot
        let store = try PostgresDocumentStore(location: location, model: model, configuration: configuration)
        let coordinator = PersistentStoreCoordinator(model: model)
        do {
            try coordinator.addStore(store.replica)
        } catch {
            try? store.close()
            throw error
        }
        return try InspectorDocument(store: store.replica, coordinator: coordinator, location: location.description,
                                     name: location.document) { try? store.close() }
        #else
        throw StrataError(.invalidArgument,
                          "This strata-inspector was built without PostgreSQL: build it with STRATA_POSTGRES=1 and STRATA_INSPECTOR=1 in the environment to open a postgres:// document.")
        #endif
    }
}
