import Foundation
import Strata

/// How the tools open a document file: the store with the model stored in the file, added
/// to a coordinator of its own.
package enum ToolDocument {
    /// Opens the document at `url` with `configuration` and adds its store to a new
    /// coordinator; the store is closed again when it cannot be added.
    /// - Throws: the error the CLI reports for a missing, foreign or damaged document.
    package static func open(_ url: URL, configuration: DocumentStore.Configuration) throws
        -> (store: DocumentStore, coordinator: PersistentStoreCoordinator) {
        let store = try DocumentStore(openingAt: url, configuration: configuration)
        let coordinator = PersistentStoreCoordinator(model: store.model)
        do {
            try coordinator.addStore(store)
        } catch {
            try? store.close()
            throw error
        }
        return (store, coordinator)
    }
}
