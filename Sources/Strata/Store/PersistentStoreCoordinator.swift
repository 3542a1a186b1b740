import Foundation
import Synchronization

/// Connects contexts to stores: routes each entity to the store of its configuration,
/// resolves object URIs, and serializes saves. Safe to use from any thread.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addStore(InMemoryStore(model: model))
/// let context = ManagedObjectContext(coordinator: coordinator)
/// ```
public final class PersistentStoreCoordinator: Sendable {
    /// The model every store and context of this coordinator uses.
    public let model: ManagedObjectModel

    private struct State {
        var stores: [any PersistentStore] = []
        var storeByEntity: [Int: Int] = [:]
    }
    private let state = Locked(State())
    /// A plain lock, not a `Locked(())`: ThreadSanitizer reports the `inout` access to a
    /// zero-sized value as a race on the object, whatever guards it.
    private let saveLock = NSLock()
    /// Grows by one with every save and batch request that changed or deleted records.
    private let changeGeneration = Atomic<UInt64>(0)
    /// The generation at which each record was last changed or deleted through this
    /// coordinator (or seen changed by another process): what optimistic locking compares
    /// an object's ``ManagedObject/loadGeneration`` with.
    private let lastChanges = Locked<[ManagedObjectID: UInt64]>([:])
    /// Rows read to fire faults and refresh objects, reused as contexts' staleness
    /// intervals allow.
    let rowCache = RowCache()
    /// The contexts that merge others' saves on their own, held weakly.
    private let mergers = Locked<[ObjectIdentifier: WeakContext]>([:])

    private struct WeakContext: Sendable {
        weak var context: ManagedObjectContext?
    }

    /// Creates a coordinator with no store.
    public init(model: ManagedObjectModel) {
        self.model = model
    }

    /// The stores, in the order they were added.
    public var persistentStores: [any PersistentStore] { state.withLock { $0.stores } }

    /// Adds a store for its configuration's entities (all entities when it has none).
    /// - Throws: `.invalidArgument` when an entity would be in two stores, `.invalidModel`
    ///   when the store's model is not the coordinator's.
    public func addStore(_ store: any PersistentStore) throws {
        guard store.model === model || store.model.versionHash == model.versionHash else {
            throw StrataError(.modelIncompatible, "The store's model is not the coordinator's model.")
        }
        let entities = model.entities(forConfiguration: store.configurationName)
        try state.withLock { state in
            let position = state.stores.count
            for entity in entities {
                if let other = state.storeByEntity[entity.index], store.configurationName == nil
                    || state.stores[other].configurationName != nil
                {
                    throw StrataError(
                        .invalidArgument, "Entity '\(entity.name)' is already served by another store.",
                        context: .init { $0.entity = entity.name })
                }
                state.storeByEntity[entity.index] = position
            }
            state.stores.append(store)
        }
        (store as? any RemoteChangeAnnouncing)?.setRemoteChangeHandler(for: self) { [weak self] in self?.announceRemoteChange($0) }
    }

    /// Removes a store.
    public func removeStore(_ store: any PersistentStore) {
        (store as? any RemoteChangeAnnouncing)?.setRemoteChangeHandler(for: self, nil)
        state.withLock { state in
            guard let position = state.stores.firstIndex(where: { $0 === store }) else { return }
            state.stores.remove(at: position)
            state.storeByEntity = state.storeByEntity.compactMapValues {
                $0 == position ? nil : ($0 > position ? $0 - 1 : $0)
            }
        }
    }

    /// The store that holds records of `entity`.
    /// - Throws: `.noStore` when no store serves the entity.
    public func store(for entity: EntityDescription) throws -> any PersistentStore {
        let store: (any PersistentStore)? = state.withLock { state in
            state.storeByEntity[entity.index].map { state.stores[$0] }
        }
        guard let store else {
            throw StrataError(.noStore, "No store holds entity '\(entity.name)'.", context: .init { $0.entity = entity.name })
        }
        return store
    }

    /// The store with the given identifier.
    public func store(withIdentifier identifier: String) -> (any PersistentStore)? {
        state.withLock { $0.stores.first { $0.identifier == identifier } }
    }

    /// Resolves a URI made by ``ManagedObjectID/uriRepresentation()``.
    /// - Throws: `.invalidObjectID` naming what does not fit (scheme, store, entity, key).
    public func managedObjectID(forURIRepresentation uri: URL) throws -> ManagedObjectID {
        func invalid(_ why: String) -> StrataError {
            StrataError(.invalidObjectID, "\(input: uri.absoluteString) is not an object URI of this document: \(why).",
                        context: .init { $0.object = uri.absoluteString })
        }
        guard uri.scheme == "x-strata" else { throw invalid("the scheme is not x-strata") }
        let parts = uri.path.split(separator: "/").map(String.init)
        guard parts.count == 2, let host = uri.host, !host.isEmpty else {
            throw invalid("expected x-strata://STORE/Entity/pKEY")
        }
        guard let store = store(withIdentifier: host) else { throw invalid("no store '\(host)'") }
        guard let entity = model.entitiesByName[parts[0]] else { throw invalid("no entity '\(parts[0])'") }
        guard parts[1].first == "p", let key = Int64(parts[1].dropFirst()), key > 0 else {
            throw invalid("the key '\(parts[1])' is not pNUMBER")
        }
        return store.objectID(for: entity, primaryKey: key)
    }

    /// A new temporary undo group id, unique in the process; the save that writes the
    /// group replaces it with a permanent one (``UndoGroupIDs``).
    func allocateGroupID() -> UInt64 {
        UndoGroupIDs.temporary()
    }

    /// The persistent values of a record, or nil when it does not exist.
    public func values(for objectID: ManagedObjectID) throws -> [PropertyValue]? {
        guard !objectID.isTemporaryID else { return nil }
        return try store(for: objectID.entity).values(for: objectID)
    }

    /// The persistent values of a record for a context whose staleness interval is
    /// `stalenessInterval`: a cached row young enough, else the store's (then cached), with
    /// the generation to stamp the object with (docs/SEMANTICS.md §5).
    func values(for objectID: ManagedObjectID, stalenessInterval: TimeInterval) throws
        -> (values: [PropertyValue], generation: UInt64)?
    {
        try values(for: [objectID], stalenessInterval: stalenessInterval)[0]
    }

    /// The rows of several records for a context whose staleness interval is
    /// `stalenessInterval`, in the order of `ids` (nil for temporary IDs and records that
    /// do not exist): the cached rows young enough, the others read from their stores with
    /// one batched read each (``PersistentStore/values(for:)-([ManagedObjectID])``) and
    /// cached. The one path by which faults — one, or a batch of them — read rows
    /// (docs/ARCHITECTURE.md, "Reads: one pass from SQL to objects").
    func values(for ids: [ManagedObjectID], stalenessInterval: TimeInterval) throws
        -> [(values: [PropertyValue], generation: UInt64)?]
    {
        var result = rowCache.values(for: ids, stalenessInterval: stalenessInterval) { hasChanged($0, since: $1) }
        var missingByStore: [ObjectIdentifier: (store: any PersistentStore, positions: [Int])] = [:]
        var storeByEntity: [Int: any PersistentStore] = [:]
        for (position, id) in ids.enumerated() where result[position] == nil && !id.isTemporaryID {
            let store = try storeByEntity[id.entity.index] ?? self.store(for: id.entity)
            storeByEntity[id.entity.index] = store
            missingByStore[ObjectIdentifier(store), default: (store, [])].positions.append(position)
        }
        guard !missingByStore.isEmpty else { return result }
        let generation = self.generation
        for (_, group) in missingByStore {
            let wanted = group.positions.map { ids[$0] }
            let rows = try group.store.values(for: wanted)
            var read: [(ManagedObjectID, [PropertyValue])] = []
            read.reserveCapacity(wanted.count)
            for (position, row) in zip(group.positions, rows) {
                guard let row else { continue }
                result[position] = (row, generation)
                read.append((ids[position], row))
            }
            rowCache.store(read, generation: generation)
        }
        return result
    }

    /// Keeps the rows a fetch read at `generation` in the row cache: fetches and faults
    /// share one row path, so a fault fired later (after a refresh) finds the fetched row
    /// as the staleness interval allows.
    func cacheFetchedRows(_ records: some Sequence<StoreRecord>, generation: UInt64) {
        rowCache.store(records.lazy.map { ($0.objectID, $0.values) }, generation: generation)
    }

    /// The current change generation. Read it before reading a record's values: an object
    /// stamped with it is then never newer than its values.
    var generation: UInt64 { changeGeneration.load(ordering: .acquiring) }

    /// Records that these records were changed or deleted (by a save, a batch request, or
    /// another process) and returns the new generation.
    @discardableResult
    func noteChanged(_ ids: some Sequence<ManagedObjectID>) -> UInt64 {
        lastChanges.withLock { changes in
            let generation = changeGeneration.add(1, ordering: .acquiringAndReleasing).newValue
            for id in ids { changes[id] = generation }
            return generation
        }
    }

    /// Whether a record was changed after `generation` (the generation its object was
    /// loaded at).
    func hasChanged(_ id: ManagedObjectID, since generation: UInt64) -> Bool {
        guard self.generation > generation else { return false }
        return lastChanges.withLock { ($0[id] ?? 0) > generation }
    }

    func mergesAutomatically(_ context: ManagedObjectContext) -> Bool {
        mergers.withLock { $0[ObjectIdentifier(context)]?.context === context }
    }

    func setMergesAutomatically(_ context: ManagedObjectContext, _ merges: Bool) {
        mergers.withLock { mergers in
            mergers = mergers.filter { $0.value.context != nil }
            mergers[ObjectIdentifier(context)] = merges ? WeakContext(context: context) : nil
        }
    }

    func automaticMergers() -> [ManagedObjectContext] {
        mergers.withLock { $0.values.compactMap(\.context) }
    }

    /// Runs `body` while no other save of this coordinator runs, holding every store's
    /// write lock (`PersistentStore.performWrite`, in identifier order so that
    /// two coordinators over the same stores never wait for each other), so that no other
    /// writer comes between a save's catch-up and its write.
    ///
    /// Each store catches up once, as its write begins; the records other writers changed
    /// are noted changed here, before `body` finds its conflicts with them.
    func withSaveLock<T>(_ body: () throws -> T) throws -> T {
        let stores = persistentStores.sorted { $0.identifier < $1.identifier }
        var changedElsewhere: Set<ManagedObjectID> = []
        func holding(_ remaining: ArraySlice<any PersistentStore>) throws -> T {
            guard let first = remaining.first else {
                if !changedElsewhere.isEmpty { noteChanged(changedElsewhere) }
                return try body()
            }
            return try first.performWrite { (changed: Set<ManagedObjectID>) in
                changedElsewhere.formUnion(changed)
                return try holding(remaining.dropFirst())
            }
        }
        var outcome: Result<T, any Error>?
        saveLock.withLock { outcome = Result { try holding(stores[...]) } }
        // What the writes' catch-ups read of other processes' saves reaches contexts now
        // that no lock is held (an observer of the notification may save).
        deliverRemoteChanges()
        return try outcome!.get()
    }
}
