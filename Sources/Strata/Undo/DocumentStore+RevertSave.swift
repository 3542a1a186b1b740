import Foundation

extension DocumentStore {
    /// Saves the operations reverting a group — an undo or redo made in the store, not in a
    /// context (``ContextUndoManager/undoSavingInStore(redo:)``) — as one group of `kind`,
    /// written as a batch insert is: segments of ``BatchInsertWriter/documentChunkSize``
    /// operations inside the coordinator's held write, folded into the snapshot as they are
    /// written once a compaction threshold is passed (docs/ARCHITECTURE.md, "Batch requests
    /// and merges"). The chunks commit together or not at all.
    ///
    /// - Parameters:
    ///   - operations: the reverting operations, in the order they apply.
    ///   - info: the group's id (temporary: the first save gives it its permanent one,
    ///     later chunks reuse it), kind, the group it reverts and its action name.
    ///   - metadata: the persistent metadata of the group it reverts, written with each
    ///     chunk (docs/FORMAT.md §22), or nil.
    /// - Returns: the group's permanent id.
    /// - Throws: save and fold errors; nothing is written then.
    /// - Complexity: O(operations), in memory one chunk's segment at a time.
    func saveReverting(_ operations: [ChangeOperation], as info: ChangeGroupInfo, timestamp: Date,
                       author: String?, contextName: String?, metadata: [UInt8]? = nil) throws -> UInt64 {
        try writing {
            try withOpenState { state in
                _ = try state.catchUp()
                state.announceDeletions(of: operations.lazy.compactMap { operation -> ManagedObjectID? in
                    if case .delete(let id, _) = operation { id } else { nil }
                })
            }
            var group = SegmentGroup(id: info.id, kind: info.kind, revertsGroup: info.revertsGroup, actionName: info.actionName, operations: [],
                                     metadata: metadata)
            var start = operations.startIndex
            repeat {
                let end = min(start + BatchInsertWriter.documentChunkSize, operations.endIndex)
                group.operations = Array(operations[start..<end])
                let saved = try save(StoreSaveRequest(groups: [group], timestamp: timestamp, author: author, contextName: contextName))
                group.id = saved.groupIDs[group.id] ?? group.id
                try withOpenState { try $0.foldHeldWriteIfDue(configuration) }
                start = end
            } while start < operations.endIndex
            try withOpenState { $0.heldWrite?.announcedDeletions = [:] }
            return group.id
        }
    }

    /// Whether the write this thread holds has saved anything yet. Reads inside a held
    /// write see the document as it was before the write's own saves (the overlay changes
    /// at COMMIT), so a revert that reads rows must come first.
    var heldWriteHasSaved: Bool {
        get throws { try withOpenState { state in state.heldWrite.map { !$0.patches.isEmpty || $0.fold != nil } ?? false } }
    }
}
