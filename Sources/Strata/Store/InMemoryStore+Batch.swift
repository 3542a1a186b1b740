import Foundation

extension InMemoryStore: BatchExecutingStore {
    /// Runs a batch request under the store's lock: the matching records come from the
    /// same fetch path as ``fetchObjectIDs(_:)``, the operations from the rows, and they
    /// are applied as one saved group (all or nothing).
    ///
    /// - Complexity: O(records of the entity) predicate evaluations, plus O(changed records).
    public func executeBatch(_ request: StoreBatchRequest) throws -> StoreBatchOutcome {
        try state.withLock { state in
            let rows = state.rows
            let candidates = rows.objectIDs(for: request.fetch.entity, includingSubentities: request.fetch.includesSubentities)
            let matched = try StoreRowFetch.objectIDs(request.fetch, candidates: candidates) { rows.values(for: $0) }
            let outcome = try StoreBatchPlanner(values: { rows.values(for: $0) }).plan(request, matched: matched)
            guard let group = outcome.group else { return outcome }
            var changed = rows
            for operation in group.operations { try changed.apply(operation, model: model) }
            state.rows = changed
            state.largestGroupID = max(state.largestGroupID, group.id)
            state.savedSegments += 1
            return outcome
        }
    }
}
