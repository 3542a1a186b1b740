import Foundation

extension ContextUndoManager {
    /// Gets ready for a batch request that registers undo: flushes the context and closes
    /// the event's implicit group, so the batch becomes a top-level group of its own (as it
    /// is in the saved log, where a reopened document finds it).
    /// - Throws: `.undo` when an explicit group is open (the batch is saved as a group of
    ///   its own and cannot be part of it), or during an undo or redo.
    func prepareForBatchRequest() throws {
        guard !isUndoing, !isRedoing else {
            throw StrataError(.undo, "A batch request that registers undo was executed during an undo or redo.")
        }
        context?.processPendingChanges()
        if openGroups.count == 1, openGroups[0].isImplicit { try endUndoGrouping() }
        guard openGroups.isEmpty else {
            throw StrataError(.undo, "A batch request that registers undo was executed inside an open undo group (grouping level \(openGroups.count)); it is saved as a group of its own, so end the group first.")
        }
    }

    /// Puts an executed batch request on the undo stack as one top-level group: its saved
    /// group id, its operations and its action name ("Batch Insert Employee"). Undo applies
    /// the inverse in the context, as for any group; the redo stack is cleared as a new
    /// change clears it.
    ///
    /// With `stored`, the group holds no operations: undo reads them from the document's
    /// log then (a batch insert of a million rows is not kept in memory for an undo that
    /// may never come).
    func registerBatchRequest(id: UInt64, operations: [ChangeOperation], stored: (() throws -> [ChangeOperation])? = nil,
                              actionName: String) {
        guard isUndoRegistrationEnabled, !operations.isEmpty || stored != nil else { return }
        let group = UndoGroup(id: id, kind: .user, actionName: actionName)
        if let stored {
            group.storedOperations = stored
        } else {
            group.items = [.batch(ChangeBatch(sequence: 0, operations: operations, isUndoable: true, kind: .user, groupID: id))]
        }
        redoStack.removeAll()
        post(Self.didOpenUndoGroupNotification)
        push(group)
        post(Self.didCloseUndoGroupNotification)
    }
}
