import Foundation
import Strata

/// The example model, built once for every test.
package let sharedExampleModel = ManagedObjectModel.employeesExample()

/// A document store over a real file, its coordinator and one context: the one stack the
/// document tests build.
///
/// ``init(model:configuration:)`` makes the document in a temporary directory of its own,
/// closed and removed when the stack is released; ``create(_:model:configuration:)`` and
/// ``open(_:model:configuration:)`` use a file the test owns and leave closing to it.
///
/// Unchecked `Sendable`: concurrent tests share its coordinator across tasks (which is
/// safe); its own parts change only in ``reopen(configuration:)``, which no test calls
/// while another task uses the stack.
package final class DocumentStack: @unchecked Sendable {
    /// The document file.
    package let url: URL
    package let model: ManagedObjectModel
    package private(set) var store: DocumentStore
    package private(set) var coordinator: PersistentStoreCoordinator
    package private(set) var context: ManagedObjectContext
    /// The directory the stack made for the document, if it made one.
    private let directory: TemporaryDirectory?

    package var undo: ContextUndoManager { context.undoManager! }

    private init(url: URL, store: DocumentStore, directory: TemporaryDirectory?) throws {
        self.url = url
        self.store = store
        self.directory = directory
        model = store.model
        coordinator = PersistentStoreCoordinator(model: store.model)
        try coordinator.addStore(store)
        context = ManagedObjectContext(coordinator: coordinator)
    }

    /// A new document in a fresh temporary directory, closed and removed with the stack.
    package convenience init(model: ManagedObjectModel = sharedExampleModel,
                             configuration: DocumentStore.Configuration = .init()) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try self.init(url: url, store: DocumentStore(creatingAt: url, model: model, configuration: configuration), directory: directory)
    }

    deinit {
        if directory != nil { try? store.close() }
    }

    /// A stack over a new document at `url`.
    package static func create(_ url: URL, model: ManagedObjectModel = sharedExampleModel,
                               configuration: DocumentStore.Configuration = .init()) throws -> DocumentStack {
        try DocumentStack(url: url, store: DocumentStore(creatingAt: url, model: model, configuration: configuration), directory: nil)
    }

    /// A stack over the existing document at `url`.
    package static func open(_ url: URL, model: ManagedObjectModel = sharedExampleModel,
                             configuration: DocumentStore.Configuration = .init()) throws -> DocumentStack {
        try DocumentStack(url: url, store: DocumentStore(openingAt: url, model: model, configuration: configuration), directory: nil)
    }

    /// Creates a document at `url`, fills it with `setUp` and closes it, then opens it twice,
    /// as two processes do (two connections, manual compaction).
    package static func twoConnections<Value>(_ url: URL, model: ManagedObjectModel = sharedExampleModel,
                                              setUp: (DocumentStack) throws -> Value) throws
        -> (value: Value, one: DocumentStack, other: DocumentStack)
    {
        let stack = try create(url, model: model)
        let value = try setUp(stack)
        try stack.store.close()
        return (value, try open(url, model: model, configuration: manualCompaction()),
                try open(url, model: model, configuration: manualCompaction()))
    }

    /// A second context on the same coordinator.
    package func newContext() -> ManagedObjectContext { ManagedObjectContext(coordinator: coordinator) }

    /// Closes the document and opens it again, with a new coordinator and context.
    package func reopen(configuration: DocumentStore.Configuration = .init()) throws {
        try store.close()
        store = try DocumentStore(openingAt: url, model: model, configuration: configuration)
        coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        context = ManagedObjectContext(coordinator: coordinator)
    }

    /// The object for a URI saved before, loaded through this stack's context.
    package func object(_ uri: URL) throws -> ManagedObject {
        try context.existingObject(with: try coordinator.managedObjectID(forURIRepresentation: uri))
    }
}

/// A configuration that never compacts by itself (so tests decide when).
package func manualCompaction(retention: DocumentStore.HistoryRetention = .all, compactsOnClose: Bool = false) -> DocumentStore.Configuration {
    var configuration = DocumentStore.Configuration()
    configuration.turnOffAutomaticCompaction()
    configuration.compactsOnClose = compactsOnClose
    configuration.retention = retention
    return configuration
}
