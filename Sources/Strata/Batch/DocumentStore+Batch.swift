import Foundation

extension DocumentStore: BatchExecutingStore {
    /// Runs a batch request under the store's lock: takes in other processes' segments,
    /// finds the matching records with the document's fetch (SQL over the snapshot merged
    /// with the overlay), builds the operations from the current rows and appends them as
    /// one segment whose only group is a `ChangeGroupKind.batch` group. Compacts
    /// afterwards when a threshold is passed, as a save does.
    ///
    /// - Throws: `.validation` for a deny rule; `.mergeConflict` when another process changed
    ///   the same records between the read and the write; SQL and save errors. Nothing is
    ///   written when it throws.
    /// - Complexity: the fetch's SQL, plus one row read and one operation per changed record.
    public func executeBatch(_ request: StoreBatchRequest) throws -> StoreBatchOutcome {
        if case .insert(let rows) = request.action {
            return try writing {
                try withOpenState { _ = try $0.catchUp() }
                // Rows of earlier chunks are read as the held write has them.
                // An undo reads an undoable insert's operations back from the log, as long
                // as compaction keeps every segment (retention `.all`).
                // Once the chunks pass a compaction threshold they are folded into the snapshot
                // as they are written (``BatchFold``): memory stays bounded by a chunk.
                return try executeBatchInsert(request, rows: rows, chunkSize: BatchInsertWriter.documentChunkSize,
                                              readsGroupFromLog: configuration.retention == .all,
                                              values: { id in try self.withOpenState { try $0.valuesInWrite(id) } },
                                              save: { group in
                                                  let result = try self.save(StoreSaveRequest(groups: [group], timestamp: request.timestamp))
                                                  try self.withOpenState { try $0.foldHeldWriteIfDue(self.configuration) }
                                                  return result
                                              })
            }
        }
        return try writing { try executeBatchWriting(request) }
    }

    private func executeBatchWriting(_ request: StoreBatchRequest) throws -> StoreBatchOutcome {
        try withOpenState { state in
            try state.catchUp()
            let matched = try DocumentFetch(state: state, schema: schema, storeTag: tag, limits: configuration.limits, request: request.fetch).objectIDs()
            let snapshot = state
            let outcome = try StoreBatchPlanner(values: { try snapshot.currentValues($0) })
                .plan(request, matched: matched)
            guard let group = outcome.group else { return outcome }
            let saved = try state.save(StoreSaveRequest(groups: [group], timestamp: request.timestamp))
            compactIfDue(&state)
            var result = outcome
            result.savedGroupID = saved.groupIDs[group.id] ?? group.id
            return result
        }
    }

}
