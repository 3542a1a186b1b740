import Foundation

extension InMemoryStore: BatchExecutingStore {
    /// Runs a batch request under the store's lock: the matching records come from the
    /// same fetch path as ``fetchObjectIDs(_:)``, the operations from the rows, and they
    /// are applied as one saved group (all or nothing).
    ///
    /// - Complexity: O(records of the entity) predicate evaluations, plus O(changed records).
    public func executeBatch(_ request: StoreBatchRequest) throws -> StoreBatchOutcome {
        // An insert is one save, so all or nothing (the rows are in memory anyway).
        if case .insert(let rows) = request.action { return try executeBatchInsert(request, rows: rows, chunkSize: .max) }
        return try state.withLock { state in
            let outcome: StoreBatchOutcome = try {
                let rows = state.rows
                let candidates = rows.objectIDs(for: request.fetch.entity, includingSubentities: request.fetch.includesSubentities)
                let matched = try StoreRowFetch.objectIDs(request.fetch, candidates: candidates) { rows.values(for: $0) }
                return try StoreBatchPlanner(values: { rows.values(for: $0) }).plan(request, matched: matched)
            }()
            guard var group = outcome.group else { return outcome }
            // The group's permanent id, as a save would give it.
            if UndoGroupIDs.isTemporary(group.id) { group.id = state.largestGroupID + 1 }
            // The planning copy is gone, so the table changes in place.
            try state.rows.applyAtomically(group.operations, model: model)
            state.largestGroupID = max(state.largestGroupID, group.id)
            state.savedSegments += 1
            var result = outcome
            result.group = group
            result.savedGroupID = group.id
            return result
        }
    }
}
