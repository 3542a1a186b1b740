import Foundation
import Strata
import StrataToolSupport

/// One open document for one command: the store (with the model stored in the file), a
/// coordinator and a context whose undo stacks are rebuilt from the document's history.
///
/// A command saves at most once, as one undo group named after it. The store never
/// compacts on close (the log is the undo history; `strata-log compact` folds it), and a
/// command that does not write opens the document read-only, so its bytes stay as they were.
final class DocumentSession: ImportDestination {
    let url: URL
    let store: DocumentStore
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext
    private var isClosed = false

    var model: ManagedObjectModel { store.model }

    /// How the demo and `strata new` create and reopen documents: no compaction on close,
    /// `STRATA_BUSY_TIMEOUT` honoured, no integrity check of a file they just made.
    static var configuration: DocumentStore.Configuration {
        var configuration = ToolSettings.configuration(writes: true)
        configuration.checksIntegrityOnOpen = false
        return configuration
    }

    private init(path: String, writes: Bool, pageCacheSize: Int?) throws {
        url = URL(fileURLWithPath: path)
        var configuration = ToolSettings.configuration(writes: writes)
        if let pageCacheSize { configuration.pageCacheSize = pageCacheSize }
        (store, coordinator) = try ToolDocument.open(url, configuration: configuration)
        context = ManagedObjectContext(coordinator: coordinator)
        // Persistent history records who saved: $STRATA_AUTHOR, when set (without it the
        // segments stay format version 2, docs/FORMAT.md §15.2).
        context.transactionAuthor = ProcessInfo.processInfo.environment["STRATA_AUTHOR"]
    }

    /// Opens the document at `path`, runs `body`, and closes it whatever happens.
    ///
    /// With `writes`, a document whose pages SQLite's quick check finds damaged is refused
    /// before anything is written (advice: `strata-log verify`, then `recover`).
    /// `pageCacheSize` replaces the store's default SQLite page cache (64 MiB) for commands
    /// that only stream new pages out (`import`) or read each page once
    /// (``onePassPageCacheSize``).
    /// SQLite's page cache for commands that read the records once, in one cursor
    /// (`fetch` listing objects, `export`): a page is not read again, so a big cache only
    /// fills. With the store's 64 MiB, W13's export of 1,000,000 rows peaked at 83 MiB,
    /// past its 64 MiB target, and was no faster (docs/BENCHMARKS.md, W13).
    static let onePassPageCacheSize = 2 << 20

    static func with<T>(_ path: String, writes: Bool = false, pageCacheSize: Int? = nil,
                        _ body: (DocumentSession) throws -> T) throws -> T {
        let session = try DocumentSession(path: path, writes: writes, pageCacheSize: pageCacheSize)
        let result: T
        do {
            result = try body(session)
        } catch let error as StrataError {
            session.close()
            throw ToolSuggestions.suggestingNames(error, in: session.model)
        } catch {
            session.close()
            throw error
        }
        session.close()
        return result
    }

    /// Rebuilds the undo and redo stacks from the document's history.
    func restoreUndoHistory() throws {
        try context.restoreUndoHistory()
    }

    /// Names the pending changes' undo group and saves them as one segment.
    /// - Throws: `.validation` listing each problem; nothing is written then.
    func save(action: String) throws {
        context.processPendingChanges()
        if !action.isEmpty { context.undoManager?.setActionName(action) }
        try context.save()
    }

    /// Closes the store.
    ///
    /// When the saves committed but the file could not be made whole again (a full disk
    /// stopped the checkpoint), this prints a warning and the command still succeeds: the
    /// change is durable in `DOC-wal`, and a script that retried on a non-zero status
    /// would save it twice (docs/RELIABILITY.md, "Full disks").
    func close() {
        guard !isClosed else { return }
        isClosed = true
        do {
            try store.close()
        } catch {
            if let warning = ToolSettings.closeWarning(error) { CommandOutput.note("strata: warning: " + warning) }
        }
    }

    // MARK: Objects

    /// The ID a URI or `Entity/pKEY` reference names.
    /// - Throws: `.invalidObjectID`, `.objectNotFound` naming the reference.
    func objectID(_ reference: String) throws -> ManagedObjectID {
        try ToolRecordText.resolve(reference, in: store, coordinator: coordinator)
    }

    /// The loaded object a reference names.
    func object(_ reference: String) throws -> ManagedObject {
        try context.existingObject(with: try objectID(reference))
    }

    /// The entity with a name.
    /// - Throws: `.unknownKey` naming it, the nearest entity name and the entities.
    func entity(named name: String) throws -> EntityDescription {
        guard let entity = model.entitiesByName[name] else {
            let names = model.entities.map(\.name)
            throw StrataError(.unknownKey, "There is no entity \(input: name) in the model.\(ToolSuggestions.clause(for: name, among: names)) (entities: \(names.joined(separator: ", "))).",
                              context: .init { $0.entity = name }.with { $0.hasSuggestion = true })
        }
        return entity
    }

    /// A record's JSON object.
    func json(for object: ManagedObject) throws -> JSONValue {
        var values = Array(repeating: PropertyValue.null, count: object.entity.slotCount)
        for (slot, property) in ToolRecordText.storedProperties(of: object.entity) {
            values[slot] = try object.value(forKey: property.name)
        }
        return ToolRecordText.json(id: object.objectID, values: values)
    }
}
