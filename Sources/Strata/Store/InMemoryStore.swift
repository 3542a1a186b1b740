import Foundation

/// A store that keeps its records in memory for the life of the process.
///
/// It replays every saved operation onto its rows, the same path the document store uses
/// for its overlay.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addStore(InMemoryStore(model: model))
/// ```
public final class InMemoryStore: PersistentStore, TextStoring {
    /// The store's identifier.
    public let identifier: String
    /// The configuration it serves.
    public let configurationName: String?
    /// Its model.
    public let model: ManagedObjectModel

    struct State {
        var rows = RowTable()
        var keyCounters: [Int: Int64] = [:]
        var largestGroupID: UInt64 = 0
        var savedSegments = 0
    }
    let state = Locked(State())

    /// Creates an empty in-memory store.
    public init(model: ManagedObjectModel, configurationName: String? = nil, identifier: String = UUID().uuidString) {
        self.model = model
        self.configurationName = configurationName
        self.identifier = identifier
    }

    /// The persistent values of a record.
    public func values(for objectID: ManagedObjectID) throws -> [PropertyValue]? {
        state.withLock { $0.rows.values(for: objectID) }
    }

    /// Several records' persistent values, in the order asked, under one acquisition of
    /// the store's lock.
    public func values(for objectIDs: [ManagedObjectID]) throws -> [[PropertyValue]?] {
        state.withLock { state in objectIDs.map { state.rows.values(for: $0) } }
    }

    /// The matching records with their values, found and read from one copy of the rows.
    public func fetchRecords(_ request: StoreFetchRequest) throws -> [StoreRecord] {
        let rows = state.withLock { $0.rows }
        let ids = try StoreRowFetch.objectIDs(
            request, candidates: rows.objectIDs(for: request.entity, includingSubentities: request.includesSubentities)
        ) { rows.values(for: $0) }
        return ids.compactMap { id in rows.values(for: id).map { StoreRecord(objectID: id, values: $0) } }
    }

    /// The text of a record with its characters' identities.
    package func textSequence(for id: ManagedObjectID, slot: Int) throws -> TextSequence? {
        state.withLock { $0.rows.textSequence(for: id, slot: slot) }
    }

    /// Every record of an entity, in key order.
    public func objectIDs(for entity: EntityDescription, includingSubentities: Bool) throws -> [ManagedObjectID] {
        state.withLock { $0.rows.objectIDs(for: entity, includingSubentities: includingSubentities) }
    }

    /// Reserves primary keys from the root entity's counter (it lives as long as the store,
    /// so the reservation holds even when the save that asked for it fails).
    public func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> ClosedRange<Int64> {
        state.withLock { $0.keyCounters.reserveKeys(root: entity.rootEntity.index, count: count) }
    }

    /// Gives the request's temporary group ids permanent ones, then replays its operations
    /// onto the rows, all under the store's lock.
    /// - Throws: `.invalidArgument` for a temporary object ID (keys come from
    ///   ``allocatePrimaryKeys(for:count:)``); `.corruptDocument` for an operation the
    ///   rows cannot take. Nothing changes then.
    @discardableResult
    public func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try state.withLock { state in
            var request = request
            var counters = state.keyCounters
            var largestGroup = state.largestGroupID
            let result = try request.assignPermanentGroupIDs {
                largestGroup += 1
                return largestGroup
            }
            // Deleted on both sides: not written, as a document's save does not write it.
            request.groups = state.rows.droppingDeletesOfMissingRecords(request.groups)
            // Not a copy of the whole table per save: changes are undone on failure instead.
            try state.rows.applyAtomically(groups: request.groups, model: model)
            for group in request.groups {
                // Records saved with keys of their own (a replayed log) move the counters too.
                for case .insert(let id, _) in group.operations where id.primaryKey > (counters[id.entity.rootEntity.index] ?? 0) {
                    counters[id.entity.rootEntity.index] = id.primaryKey
                }
                if !UndoGroupIDs.isTemporary(group.id) { largestGroup = max(largestGroup, group.id) }
            }
            state.keyCounters = counters
            state.largestGroupID = largestGroup
            state.savedSegments += 1
            return result
        }
    }

    /// Applies a stored segment (an LZ4 frame) while decoding it, all or nothing: the
    /// records end up as decoding the segment and saving its groups would leave them,
    /// without building its operations. Returns what the body held besides them.
    func replay(storedSegment frame: [UInt8], model segmentModel: ManagedObjectModel, storeTag: UInt32,
                sequenceHint: UInt64?, maxContentSize: Int) throws -> SegmentReplaySummary {
        let body = try SegmentCodec.rawBody(frame, sequenceHint: sequenceHint, maxContentSize: maxContentSize)
        return try state.withLock { state in
            let summary = try state.rows.applyAtomically { rows in
                try SegmentDecoder.replay(body, model: segmentModel, storeTag: storeTag, sequenceHint: sequenceHint, into: &rows)
            }
            state.largestGroupID = max(state.largestGroupID, summary.largestGroupID)
            state.savedSegments += 1
            return summary
        }
    }

    /// The largest group id saved.
    public func largestGroupID() throws -> UInt64 { state.withLock { $0.largestGroupID } }

    /// The matching records in the request's order and window: the predicate evaluated on
    /// each row with ``RowSubject``, sorted with the shared comparator
    /// (``FetchSortDescriptor/compareValues(_:_:comparison:)``), ties in ID order.
    /// - Complexity: O(records of the entity) evaluations and O(n log n) comparisons.
    public func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        let rows = state.withLock { $0.rows }
        return try StoreRowFetch.objectIDs(
            request, candidates: rows.objectIDs(for: request.entity, includingSubentities: request.includesSubentities)
        ) { rows.values(for: $0) }
    }

    /// The number of matching records, limit and offset applied.
    public func countObjects(_ request: StoreFetchRequest) throws -> Int {
        let rows = state.withLock { $0.rows }
        return try StoreRowFetch.count(
            request, candidates: rows.objectIDs(for: request.entity, includingSubentities: request.includesSubentities)
        ) { rows.values(for: $0) }
    }
}
