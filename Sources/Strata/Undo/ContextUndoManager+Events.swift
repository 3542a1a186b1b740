import Foundation

extension ContextUndoManager {
    /// Closes the event's implicit group, called by the context at the end of an event
    /// (after flushing). Explicit groups still open are left to their `endUndoGrouping()`.
    func endEvent() {
        guard openGroups.count == 1, let group = openGroups.first, group.isImplicit, recording == nil else { return }
        openGroups.removeAll()
        post(Self.checkpointNotification)
        if !group.isEmpty { push(group) }
        post(Self.didCloseUndoGroupNotification)
    }

    // MARK: Coalescing by time

    /// Merges the newest undo group into the one below it when ``coalescingInterval``
    /// allows: both made by the user, the same non-empty action name, closed within the
    /// interval. Called when a group is pushed and when it is named (typing names its group
    /// after the change was flushed). The log is relabelled so a reopened document sees one
    /// group too, across saves in between; when it cannot be (the newer group was saved,
    /// or something else was logged in between), nothing is merged.
    func coalesceNewestGroups() {
        guard coalescingInterval > 0, undoStack.count >= 2, let context else { return }
        let newer = undoStack[undoStack.count - 1]
        let older = undoStack[undoStack.count - 2]
        // A group whose operations are read from the log is a saved batch: not merged.
        guard newer.kind == .user, older.kind == .user, !newer.actionName.isEmpty,
              newer.storedOperations == nil, older.storedOperations == nil,
              newer.actionName == older.actionName, older.inverseOperations == nil,
              newer.closedAt - older.closedAt <= coalescingInterval,
              context.log.regroup(newer.id, batchCount: newer.batchCount, into: older.id,
                                  formerTarget: older.formerID, olderHasBatches: older.hasBatches)
        else { return }
        for item in newer.items {
            switch item {
            case .batch(var batch):
                batch.groupID = older.id
                older.appendJoiningSplices(batch)
            case .group(let group): older.append(group)
            case .action(let action): older.append(action)
            }
        }
        older.closedAt = newer.closedAt
        // The selection before the run of changes began is what an undo restores.
        if older.metadata == nil { older.metadata = newer.metadata }
        undoStack.removeLast()
    }
}
