import Foundation

extension ContextUndoManager {
    /// Undoes the last top-level group and puts it on the redo stack. With `groupsByEvent`
    /// an open top-level group (the event's) is closed first; with nothing to undo it does
    /// nothing. Returns the group's metadata (``setGroupMetadata(_:)``,
    /// ``setPersistentGroupMetadata(_:)``; a ``PersistentGroupMetadata`` for a group of a
    /// restored history), to restore a selection.
    /// - Throws: `.undo` when a nested group is open; errors applying the changes.
    /// - Complexity: O(operations in the group).
    @discardableResult
    public func undo() throws -> (any Sendable)? {
        try closeTopLevelGroupForUndo("undo()")
        return try undoNestedGroup()
    }

    /// Undoes the last group: the last nested group of the open group, or the last
    /// top-level group when none is open. Returns the group's metadata.
    @discardableResult
    public func undoNestedGroup() throws -> (any Sendable)? {
        guard !isUndoing, !isRedoing else {
            throw StrataError(.undo, "undoNestedGroup() was called during an undo or redo.")
        }
        context?.processPendingChanges()
        let group: UndoGroup
        if let open = openGroups.last {
            guard case .group(let last)? = open.items.last else { return nil }
            open.items.removeLast()
            group = last
        } else {
            guard let last = undoStack.last else { return nil }
            // A group whose operations are in the log reads them first: when that fails,
            // it stays on the stack.
            try last.loadStoredOperations()
            group = undoStack.removeLast()
        }
        post(Self.willUndoNotification)
        isUndoing = true
        defer { isUndoing = false }
        try replay(group, as: .undo) { redoStack.append($0); trim() }
        post(Self.didUndoNotification)
        return group.metadata?.value
    }

    /// Re-applies the last undone group and puts it back on the undo stack. Returns the
    /// group's metadata. With a group open (after ``undoNestedGroup()`` inside it), the
    /// re-applied group goes into the open group, as a nested group, as `NSUndoManager`
    /// records it; the open group stays open.
    /// - Throws: `.undo` when called during an undo or redo; what a handler throws.
    @discardableResult
    public func redo() throws -> (any Sendable)? {
        guard !isUndoing, !isRedoing else { throw StrataError(.undo, "redo() was called while undoing or redoing.") }
        context?.processPendingChanges()
        guard let last = redoStack.last else { return nil }
        // A group whose operations are in the log (an undo saved in the store, a restored
        // history read when reverted) reads them first: when that fails, it stays on the stack.
        try last.loadStoredOperations()
        let group = redoStack.removeLast()
        post(Self.willRedoNotification)
        isRedoing = true
        defer { isRedoing = false }
        try replay(group, as: .redo) { redone in
            if let open = openGroups.last {
                open.append(redone)
                if open !== openGroups[0] {
                    if redone.hasActions { openGroups[0].hasActions = true }
                    if redone.mayHoldTemporaryIDs { openGroups[0].mayHoldTemporaryIDs = true }
                }
            } else {
                undoStack.append(redone)
                trim()
            }
        }
        post(Self.didRedoNotification)
        return group.metadata?.value
    }

    private func closeTopLevelGroupForUndo(_ call: String) throws {
        if openGroups.count > 1 {
            throw StrataError(.undo, "\(call) was called while a nested undo group is open (grouping level \(openGroups.count)).")
        }
        if openGroups.count == 1 {
            guard groupsByEvent else {
                throw StrataError(.undo, "\(call) was called while an undo group is open and groupsByEvent is off.")
            }
            try endUndoGrouping()
        }
    }

    /// Applies the inverse of `group` and records the flushed result (and the actions its
    /// app-level actions registered) as a new group.
    private func replay(_ group: UndoGroup, as kind: ChangeGroupKind, then store: (UndoGroup) -> Void) throws {
        let result = UndoGroup(id: allocateGroupID(), kind: kind, revertsGroup: group.id, actionName: group.actionName)
        result.metadata = group.metadata
        recording = result
        recordingBase = openGroups.count
        context?.pendingFlushKind = kind
        defer {
            context?.pendingFlushKind = nil
            recording = nil
            // Groups a failing handler left open are dropped with it.
            if openGroups.count > recordingBase { openGroups.removeLast(openGroups.count - recordingBase) }
        }
        var failure: (any Error)?
        if group.hasActions || context == nil {
            do { try replayLeaves(of: group, in: context) } catch { failure = error }
        } else if let context {
            let batches = group.batches
            if context.replayInverseOfUpdates(batches, knownInverse: group.inverseOperations) {
                result.inverseOperations = batches[0].operations
            } else {
                do { try context.applyInverse(of: batches) } catch { failure = error }
                context.processPendingChanges()
            }
        }
        // An empty group is an undo step too: its undo is an empty redo step.
        if !result.isEmpty || group.isEmpty { store(result) }
        if let failure { throw failure }
    }

    /// Reverts a group holding app-level actions item by item, newest first, as
    /// `NSUndoManager` does: each run of batches is inverted and flushed, each action runs
    /// (and registers its inverse into the group being recorded). Without a context (a
    /// manager no context owns, or whose context has gone) there are no model changes to
    /// revert: only the actions run.
    private func replayLeaves(of group: UndoGroup, in context: ManagedObjectContext?) throws {
        var run: [ChangeBatch] = []
        func flushRun() throws {
            guard !run.isEmpty else { return }
            defer { run.removeAll() }
            guard let context else { return }
            defer { context.processPendingChanges() }
            try context.applyInverse(of: Array(run.reversed()))
        }
        for leaf in group.leaves.reversed() {
            switch leaf {
            case .batch(let batch): run.append(batch)
            case .action(let action):
                try flushRun()
                try action.run()
                context?.processPendingChanges()
            }
        }
        try flushRun()
    }
}
