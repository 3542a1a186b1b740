import Foundation

/// What a context asks a store to make durable: the groups saved since the last save, in
/// one atomic step. Every record carries a permanent ID (its key reserved with
/// ``PersistentStore/allocatePrimaryKeys(for:count:)`` by whoever created it); new groups
/// carry temporary ids, which the store replaces inside its write (``StoreSaveResult``).
public struct StoreSaveRequest: Sendable {
    /// The groups, oldest first.
    public var groups: [SegmentGroup]
    /// When the save happened.
    public var timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``, recorded with the save.
    public var author: String?
    /// The saving context's ``ManagedObjectContext/name``, recorded with the save.
    public var contextName: String?

    /// Creates a save request.
    public init(groups: [SegmentGroup], timestamp: Date = Date(), author: String? = nil, contextName: String? = nil) {
        self.groups = groups
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
    }
}

/// A persistent store: where records live between processes (the document store) or for
/// the life of the process (``InMemoryStore``).
///
/// Stores are reached through a ``PersistentStoreCoordinator`` and must be safe to call
/// from any thread; they serialize saves.
public protocol PersistentStore: AnyObject, Sendable {
    /// The store's unique identifier (a UUID string), part of every object URI.
    var identifier: String { get }
    /// The configuration the store was added for, or nil for all entities.
    var configurationName: String? { get }
    /// The model the store holds records of.
    var model: ManagedObjectModel { get }

    /// The persistent values of a record by slot (transient slots `.null`, to-many slots
    /// `.objects`), or nil when the record does not exist.
    func values(for objectID: ManagedObjectID) throws -> [PropertyValue]?

    /// The persistent values of several records, in the order of `objectIDs`: each element
    /// is what ``values(for:)-(ManagedObjectID)`` returns for that ID (nil when the record
    /// does not exist).
    ///
    /// Contexts read through it whenever they need more than one record — a fetch's
    /// results, a batch of faults (``FetchRequest/fetchBatchSize``), the destinations of
    /// ``FetchRequest/relationshipKeyPathsForPrefetching`` — so a store that can read many
    /// records in one round trip should implement it; the default reads them one by one
    /// with ``values(for:)-(ManagedObjectID)``. The document store reads the snapshot rows
    /// of a batch in one statement per table and one per to-many relationship
    /// (docs/ARCHITECTURE.md, "Reads: one pass from SQL to objects").
    func values(for objectIDs: [ManagedObjectID]) throws -> [[PropertyValue]?]

    /// The records matching the request, in its order and within its window, each with its
    /// persistent values: what ``fetchObjectIDs(_:)`` returns, with what
    /// ``values(for:)-(ManagedObjectID)`` returns for each.
    ///
    /// A fetch that loads its results (``FetchRequest/returnsObjectsAsFaults`` false,
    /// dictionary results, prefetching) asks for this, so a store that can find records and
    /// read their values in one pass should implement it. The default asks
    /// ``fetchObjectIDs(_:)``, then ``values(for:)-([ManagedObjectID])`` for all of them,
    /// and leaves out a record that vanished in between.
    func fetchRecords(_ request: StoreFetchRequest) throws -> [StoreRecord]

    /// The IDs of every record of `entity` (and its sub-entities when asked), in key order.
    func objectIDs(for entity: EntityDescription, includingSubentities: Bool) throws -> [ManagedObjectID]

    /// Reserves `count` consecutive permanent primary keys for records of `entity`'s
    /// hierarchy: the only source of keys. A context's save reserves its new records' keys
    /// here inside its held write (`performWrite`), a batch
    /// insert one range per chunk, ``ManagedObjectContext/obtainPermanentIDs(for:)`` at once.
    ///
    /// Outside a write the reservation is durable and seen by every other writer of the
    /// store: keys are never handed out twice, even if the save that asked for them fails.
    /// Called inside this thread's write, it must not take the write lock again (or must
    /// take it re-entrantly) and becomes durable when that write commits: a write that rolls
    /// back may leave the keys to another writer, so the saving context takes temporary IDs
    /// back (docs/ARCHITECTURE.md, "When new objects get their keys").
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> ClosedRange<Int64>

    /// Applies and records the request atomically: all of it, or (by throwing) nothing.
    ///
    /// Inside the same atomic step, after taking in every other writer's saves, the store
    /// replaces the request's temporary group ids (``UndoGroupIDs/isTemporary(_:)``) with
    /// permanent ones (`StoreSaveRequest.assignPermanentGroupIDs`), so two writers never
    /// record the same group id, and returns them. It never assigns object keys: a request
    /// naming a temporary object ID is refused.
    /// - Throws: `.invalidArgument` when the request names a temporary object ID (reserve
    ///   keys with ``allocatePrimaryKeys(for:count:)``); `.corruptDocument` when it inserts
    ///   a record that already exists.
    @discardableResult
    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult

    /// The largest permanent undo group id the store has recorded (0 when none).
    func largestGroupID() throws -> UInt64

    /// The IDs of the records matching the request, in its order, within its window.
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]
    /// The number of records matching the request (limit and offset applied).
    func countObjects(_ request: StoreFetchRequest) throws -> Int

    /// Runs `body` — a context's whole save or a batch request — holding the store's write
    /// lock, so no other writer (connection, process) writes while it runs; what `body`
    /// saves commits when it returns and is rolled back when it throws.
    ///
    /// A store that other writers change catches up with them once, at the start and
    /// inside the lock, and passes `body` the records they changed or deleted since it last
    /// reported them: a save finds its conflicts with them, and since nothing can land
    /// between that catch-up and the save's write, a save never races another writer's.
    /// A call nested in the same thread's write passes what the outer one caught up with.
    /// Stores no one else writes just run `body` with no changes (the default).
    func performWrite<T>(_ body: (_ changedElsewhere: Set<ManagedObjectID>) throws -> T) throws -> T
}

extension PersistentStore {
    /// Reads the records one by one with ``values(for:)-(ManagedObjectID)``: a store with
    /// a batched read implements ``values(for:)-([ManagedObjectID])`` itself.
    public func values(for objectIDs: [ManagedObjectID]) throws -> [[PropertyValue]?] {
        try objectIDs.map { try values(for: $0) }
    }

    /// Asks ``fetchObjectIDs(_:)``, then ``values(for:)-([ManagedObjectID])`` for the IDs
    /// found, leaving out a record that no longer exists.
    public func fetchRecords(_ request: StoreFetchRequest) throws -> [StoreRecord] {
        let ids = try fetchObjectIDs(request)
        let rows = try values(for: ids)
        var records: [StoreRecord] = []
        records.reserveCapacity(ids.count)
        for (id, row) in zip(ids, rows) {
            if let row { records.append(StoreRecord(objectID: id, values: row)) }
        }
        return records
    }
}

extension PersistentStore {
    /// No other writer: runs `body`; nothing changed elsewhere.
    public func performWrite<T>(_ body: (_ changedElsewhere: Set<ManagedObjectID>) throws -> T) throws -> T { try body([]) }

    /// Runs `body` holding the store's write lock, as the `performWrite` that passes what
    /// its catch-up found does, for a body that does not look at it (a context's save
    /// inside `body` still does).
    public func performWrite<T>(_ body: () throws -> T) throws -> T {
        try performWrite { (_: Set<ManagedObjectID>) in try body() }
    }
}

extension PersistentStore {
    /// The tag object IDs of this store carry.
    var tag: UInt32 { StoreRegistry.tag(for: identifier) }

    /// A permanent ID of this store.
    func objectID(for entity: EntityDescription, primaryKey: Int64) -> ManagedObjectID {
        ManagedObjectID(entity: entity, storeTag: tag, primaryKey: primaryKey)
    }
}
