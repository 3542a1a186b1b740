import Foundation

/// One place that sets up a Strata stack: a model, a document (or an in-memory store), a
/// coordinator, a view context that merges background saves, and background contexts — Core
/// Data's `NSPersistentContainer`.
///
/// ```swift
/// let container = try PersistentContainer(name: "Staff", model: .employeesExample(),
///                                         url: URL(fileURLWithPath: "staff.strata"))
/// try await container.performBackgroundTask { context in
///     let ada = try context.insertObject(forEntityName: "Employee")
///     try ada.setValue("Ada", forKey: "firstName")
///     try context.save()
/// }
/// // container.viewContext has merged the save.
/// try container.close()
/// ```
///
/// The document at `url` is opened, or created when no file is there. The view context has
/// `automaticallyMergesChangesFromParent` on and, by default, the document's undo history
/// restored (``ManagedObjectContext/restoreUndoHistory()``), so undo after reopening reverts
/// the last change it saved before. Background contexts have no undo manager, so that
/// history holds the view context's own saves only.
public final class PersistentContainer: @unchecked Sendable {
    /// How the container opens its document and sets up its view context.
    public struct Options: Sendable {
        /// The document store's settings: automatic compaction thresholds, compaction on
        /// close, history retention, busy timeout. Unlike a bare store's, it migrates a
        /// document made with an earlier model on open (`shouldMigrateStoreAutomatically`
        /// and `shouldInferMappingModelAutomatically` on), as `NSPersistentContainer` does.
        public var configuration: DocumentStore.Configuration = {
            var configuration = DocumentStore.Configuration()
            configuration.shouldMigrateStoreAutomatically = true
            configuration.shouldInferMappingModelAutomatically = true
            return configuration
        }()
        /// Whether the view context rebuilds its undo and redo stacks from the document's
        /// history on open (default `true`).
        public var restoresUndoHistory = true
        /// The view context's concurrency type: `.mainQueue` (the default) for an app with a
        /// main queue, `.confinement` for a program or test that drives it from one task.
        public var viewContextConcurrencyType: ManagedObjectContext.ConcurrencyType = .mainQueue

        /// The defaults.
        public init() {}
    }

    /// The container's name (used to find its model in a directory).
    public let name: String
    /// The model.
    public let model: ManagedObjectModel
    /// The document's location; nil for an in-memory store.
    public let url: URL?
    /// The coordinator of every context the container makes.
    public let coordinator: PersistentStoreCoordinator
    /// The store: a ``DocumentStore``, or an ``InMemoryStore`` when `url` is nil.
    public let store: any PersistentStore
    /// The document store, for its history, compaction and query generations without a
    /// cast; nil for an in-memory container.
    ///
    /// ```swift
    /// let transactions = try container.documentStore?.history(after: token)
    /// ```
    public var documentStore: DocumentStore? { store as? DocumentStore }
    /// The context for the user interface: merges every other context's saves on its own.
    public let viewContext: ManagedObjectContext

    /// Opens (or creates) the document at `url` with a model.
    /// - Parameters:
    ///   - name: the container's name.
    ///   - model: the model.
    ///   - url: the document file; nil keeps everything in memory.
    ///   - options: store settings, undo history restoring, the view context's queue.
    /// - Throws: the document store's errors (`.modelIncompatible` for a document of another
    ///   model, `.corruptDocument`, `.sqlite`), and those of restoring the undo history.
    /// - Complexity: opening reads the uncompacted log; restoring the history reads the
    ///   retained log.
    public init(name: String, model: ManagedObjectModel, url: URL?, options: Options = Options()) throws {
        self.name = name
        self.model = model
        self.url = url
        coordinator = PersistentStoreCoordinator(model: model)
        var existed = false
        if let url {
            existed = FileManager.default.fileExists(atPath: url.path)
            store = existed
                ? try DocumentStore(openingAt: url, model: model, configuration: options.configuration)
                : try DocumentStore(creatingAt: url, model: model, configuration: options.configuration)
        } else {
            store = InMemoryStore(model: model)
        }
        try coordinator.addStore(store)
        viewContext = ManagedObjectContext(coordinator: coordinator, concurrencyType: options.viewContextConcurrencyType)
        viewContext.automaticallyMergesChangesFromParent = true
        // The context is new and nobody else holds it yet: no need to hop to its queue.
        if existed && options.restoresUndoHistory { try viewContext.restoreUndoHistory() }
    }

    /// Opens (or creates) the document with the model in a model file (`.json`,
    /// `.xcdatamodel`, `.xcdatamodeld`).
    /// - Throws: `.modelFile` for a model file that cannot be read; then as
    ///   ``init(name:model:url:options:)``.
    public convenience init(name: String, modelURL: URL, url: URL?, options: Options = Options()) throws {
        try self.init(name: name, model: ManagedObjectModel(contentsOf: modelURL), url: url, options: options)
    }

    /// Opens (or creates) the document with the model named after the container in a
    /// directory: `NAME.json`, `NAME.xcdatamodeld` or `NAME.xcdatamodel`, the first found.
    /// - Throws: `.modelFile` naming the directory when none is there; then as
    ///   ``init(name:modelURL:url:options:)``.
    public convenience init(name: String, modelDirectory: URL, url: URL?, options: Options = Options()) throws {
        let candidates = ["json", "xcdatamodeld", "xcdatamodel"].map { modelDirectory.appendingPathComponent("\(name).\($0)") }
        guard let modelURL = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw StrataError(.modelFile, "No model named '\(name)' (.json, .xcdatamodeld or .xcdatamodel) in \(modelDirectory.path).",
                              context: .init { $0.path = modelDirectory.path; $0.model = name })
        }
        try self.init(name: name, modelURL: modelURL, url: url, options: options)
    }

    /// A new private-queue context over the container's coordinator, for work off the main
    /// queue. Use it inside `perform`; its saves reach the view context.
    ///
    /// It has no undo manager, as Core Data's background contexts have none: its saves record
    /// no undo groups, so the view context's undo stack, restored after reopening, holds the
    /// view context's own saves only (docs/SEMANTICS.md §7). Set
    /// ``ManagedObjectContext/undoManager`` to undo in it.
    public func newBackgroundContext() -> ManagedObjectContext {
        ManagedObjectContext(coordinator: coordinator, concurrencyType: .privateQueue, undoManager: nil)
    }

    /// Runs `body` with a new background context on that context's queue, and returns what it
    /// returns. Objects stay inside: return IDs. The context has no undo manager, as
    /// ``newBackgroundContext()``'s.
    ///
    /// ```swift
    /// let id = try await container.performBackgroundTask { context in
    ///     let project = try context.insertObject(forEntityName: "Project")
    ///     try context.save()
    ///     return project.objectID
    /// }
    /// ```
    /// - Throws: what `body` throws.
    public func performBackgroundTask<T: Sendable>(_ body: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        let context = newBackgroundContext()
        return try await context.perform { try body(context) }
    }

    /// Takes in what other processes saved to the document since this one last read its
    /// log (``DocumentStore/catchUp()``), and merges it into the view context, so its
    /// objects and its ``FetchedResultsController``s are current: a confinement view
    /// context before this returns, a queue one on its queue (before this returns when
    /// called from another thread). Returns the changes (empty when nothing changed). Other
    /// automatically merging contexts get them too;
    /// ``DocumentStore/Configuration/watchesForRemoteChanges`` does this on its own.
    /// - Throws: the document store's errors.
    /// - Complexity: O(bytes of the segments other processes appended).
    @discardableResult
    public func mergeChangesFromOtherProcesses() throws -> SaveChanges {
        guard let document = store as? DocumentStore else { return SaveChanges() }
        // Changes a save's catch-up or the watcher found are handed over too.
        let change = try document.catchUp()
        if viewContext.automaticallyMergesChangesFromParent {
            // The view context was handed them; a confinement context takes them in now.
            viewContext.performAndWait { viewContext.takeInArrivedChanges() }
        } else if let change {
            viewContext.performAndWait { viewContext.mergeChanges(fromContextDidSave: change.changes) }
        }
        return change?.changes ?? SaveChanges()
    }

    /// Closes the document (checkpointing it, and compacting it when the configuration says
    /// so). The contexts must not be used afterwards.
    /// - Throws: the document store's errors.
    public func close() throws {
        try (store as? DocumentStore)?.close()
    }
}
