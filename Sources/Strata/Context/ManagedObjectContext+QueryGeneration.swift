import Foundation

/// The generation a context is pinned to: one ``DocumentGeneration`` per document store
/// of its coordinator, and the coordinator's change generation when they were opened.
struct PinnedQueryGeneration {
    /// The readers, by the identity of the store they read.
    let readers: [ObjectIdentifier: DocumentGeneration]
    /// The token ``ManagedObjectContext/queryGenerationToken`` reports.
    let token: QueryGenerationToken
    /// The coordinator's change generation, read before the readers' snapshots were taken:
    /// objects loaded from them are stamped with it, so a later change of their records
    /// (this coordinator's, or another process's once caught up) is still found by a save's
    /// conflict check (their values are never newer than it says).
    let generation: UInt64

    /// Opens the generation `token` names (the newest for ``QueryGenerationToken/current``).
    /// - Throws: `.invalidArgument` when the coordinator has no document store, when a
    ///   token of a history token is ambiguous (several document stores), when the token is
    ///   another document's, or the errors of ``DocumentGeneration/init(store:requested:)``.
    init(coordinator: PersistentStoreCoordinator, token: QueryGenerationToken) throws {
        let documents = coordinator.persistentStores.compactMap { $0 as? DocumentStore }.sorted { $0.identifier < $1.identifier }
        guard !documents.isEmpty else {
            throw StrataError(
                .invalidArgument,
                "Query generations need a document store: the coordinator's stores are in memory only, and an in-memory store keeps no past generations (as Core Data supports generations only for SQLite stores).",
                context: .init { $0.kind = .noDocumentStore; $0.token = token.description })
        }
        if token.sequence != nil, token.storeIdentifier == nil, documents.count > 1 {
            throw StrataError(
                .invalidArgument,
                "The query generation \(token) came from a history token, and the coordinator has \(documents.count) document stores: which one's save it is cannot be told. Pin to .current, or to a token a context of this coordinator reported.",
                context: .init { $0.kind = .ambiguousToken; $0.token = token.description })
        }
        if let owner = token.storeIdentifier, !documents.contains(where: { $0.identifier == owner }) {
            throw StrataError(
                .invalidArgument, "The query generation \(token) is a save of another document (store \(owner)), not of this coordinator's.",
                context: .init { $0.kind = .otherDocument; $0.token = token.description })
        }
        generation = coordinator.generation
        var readers: [ObjectIdentifier: DocumentGeneration] = [:]
        var named: DocumentGeneration?
        for document in documents {
            let asked = token.storeIdentifier == nil || token.storeIdentifier == document.identifier
            let reader = try DocumentGeneration(store: document, requested: asked ? token.sequence : nil)
            readers[ObjectIdentifier(document)] = reader
            if asked, named == nil { named = reader }
        }
        self.readers = readers
        self.token = (named ?? readers.values.first!).token
    }
}

extension ManagedObjectContext {
    /// The generation the context's reads are pinned to, or nil when they follow the
    /// document (the default). As Core Data's `queryGenerationToken`.
    public var queryGenerationToken: QueryGenerationToken? { pinnedGeneration?.token }

    /// Pins the context's reads to one generation of the document, or unpins them (as
    /// Core Data's `setQueryGenerationFrom(_:)`).
    ///
    /// ```swift
    /// try viewContext.setQueryGenerationFrom(.current)
    /// // Other contexts and processes save and compact; viewContext's fetches, counts,
    /// // faults and relationships still show the document as it was.
    /// try viewContext.setQueryGenerationFrom(.current)   // move to the newest save
    /// try viewContext.setQueryGenerationFrom(nil)        // follow the document again
    /// ```
    ///
    /// - ``QueryGenerationToken/current`` pins to the newest save in the file now (any
    ///   process's), nil unpins, and a token a context reported or one made from a
    ///   ``PersistentHistoryToken`` pins to that save.
    /// - Pinned, the context's fetches (objects, IDs, counts, dictionaries, computed and
    ///   grouped fetches), faults, refreshes and relationship reads see that generation,
    ///   while other contexts and processes keep saving and compacting; its child contexts
    ///   read through it. Its own pending changes are on top, as always.
    /// - The pin moves to the newest save when the context saves (it sees its own
    ///   changes), is ``reset()``, or merges a save (`mergeChanges(fromContextDidSave:)`,
    ///   also automatic merges) — as in Core Data — and when told ``QueryGenerationToken/current`` again.
    /// - Registered objects are not refreshed by pinning: ``refreshAllObjects()`` or
    ///   ``reset()`` reloads them from the new generation.
    /// - A save's conflict check compares with the document as it is now, not with the
    ///   generation: a pinned context saving over newer changes gets `.mergeConflict`
    ///   (or its merge policy decides), as an unpinned one does.
    ///
    /// While a generation is pinned, SQLite cannot fold the document's WAL past it: the
    /// `-wal` file grows until the context moves on, and another process closing the
    /// document waits up to its busy timeout for the checkpoint and then leaves it to the
    /// last close. Close no document store while a context is pinned to it. See
    /// docs/SEMANTICS.md, "Query generations".
    /// - Throws: `.invalidArgument` for a child context (it reads through its parent: pin
    ///   the parent), for a coordinator without a document store (in-memory stores keep no
    ///   generations), for a token of another document, and — naming the token — for a save
    ///   the document no longer has (compaction folded later saves into its snapshot) or
    ///   does not have yet. The context stays as it was then.
    public func setQueryGenerationFrom(_ token: QueryGenerationToken?) throws {
        checkQueue()
        guard let token else {
            pinnedGeneration = nil
            return
        }
        guard parent == nil else {
            throw StrataError(
                .invalidArgument,
                "A child context reads through its parent and cannot be pinned to a query generation of its own (\(token)): pin the parent.",
                context: .init { $0.kind = .childContext; $0.token = token.description })
        }
        pinnedGeneration = try PinnedQueryGeneration(coordinator: coordinator, token: token)
    }

    /// Moves a pinned context to the newest save (after its own save, a reset, a merge).
    /// When that cannot be opened the context is unpinned rather than left at a
    /// generation older than its own changes.
    func advancePinnedGeneration() {
        guard pinnedGeneration != nil else { return }
        pinnedGeneration = try? PinnedQueryGeneration(coordinator: coordinator, token: .current)
    }

    /// The pinned generation of the store holding `entity`'s records; nil when unpinned
    /// or when the store is not a document (in-memory stores are read as they are).
    func pinnedReader(for entity: EntityDescription) -> DocumentGeneration? {
        guard let pinned = pinnedGeneration, let store = try? coordinator.store(for: entity) else { return nil }
        return pinned.readers[ObjectIdentifier(store)]
    }

    /// What a root context reads a record's stored values from: its pinned generation,
    /// else the coordinator (nil for temporary IDs).
    func storedValues(for id: ManagedObjectID) throws -> [PropertyValue]? {
        guard !id.isTemporaryID else { return nil }
        if let reader = pinnedReader(for: id.entity) { return try reader.values(for: id) }
        return try coordinator.values(for: id)
    }
}
