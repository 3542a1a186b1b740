import Foundation

extension ContextUndoManager {
    /// Names the current group: the open group, the group being recorded by an undo or
    /// redo, or else the last group on the undo stack. Flushes the context first so the
    /// name lands on the group holding the latest changes.
    ///
    /// ```swift
    /// try employee.setValue(.integer(70_000), forKey: "salary")
    /// context.undoManager?.setActionName("Raise")   // "Undo Raise"
    /// ```
    public func setActionName(_ name: String) {
        if !isUndoing, !isRedoing { context?.processPendingChanges() }
        let target = openGroups.last ?? undoStack.last
        guard let target else { return }
        target.actionName = name
        context?.log.updateGroup(target.info)
        if target !== openGroups.first, let top = openGroups.first, top.actionName.isEmpty {
            top.actionName = name
            context?.log.updateGroup(top.info)
        }
        // A group named after it was flushed (typing) may now join the one before it.
        if openGroups.isEmpty { coalesceNewestGroups() }
    }

    /// The action name of the group `undo()` would revert ("" when none).
    public var undoActionName: String { undoStack.last?.actionName ?? "" }
    /// The action name of the group `redo()` would re-apply ("" when none).
    public var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// "Undo" or "Undo NAME", for a menu.
    public var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }
    /// "Redo" or "Redo NAME", for a menu.
    public var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// "Undo" for an empty action name, "Undo NAME" otherwise.
    public func undoMenuTitle(forUndoActionName name: String) -> String { name.isEmpty ? "Undo" : "Undo \(name)" }
    /// "Redo" for an empty action name, "Redo NAME" otherwise.
    public func redoMenuTitle(forUndoActionName name: String) -> String { name.isEmpty ? "Redo" : "Redo \(name)" }

    /// Information on the groups that can be undone, oldest first.
    public var undoGroups: [ChangeGroupInfo] { undoStack.map(\.info) }
    /// Information on the groups that can be redone, the next redo last.
    public var redoGroups: [ChangeGroupInfo] { redoStack.map(\.info) }

    /// Posted when a group opens (object: the undo manager).
    public static let didOpenUndoGroupNotification = Notification.Name("StrataContextUndoManagerDidOpenUndoGroup")
    /// Posted when a group closes.
    public static let didCloseUndoGroupNotification = Notification.Name("StrataContextUndoManagerDidCloseUndoGroup")
    /// Posted before an undo.
    public static let willUndoNotification = Notification.Name("StrataContextUndoManagerWillUndo")
    /// Posted after an undo.
    public static let didUndoNotification = Notification.Name("StrataContextUndoManagerDidUndo")
    /// Posted before a redo.
    public static let willRedoNotification = Notification.Name("StrataContextUndoManagerWillRedo")
    /// Posted after a redo.
    public static let didRedoNotification = Notification.Name("StrataContextUndoManagerDidRedo")
    /// Posted when a group opens or closes (a point where pending changes are flushed).
    public static let checkpointNotification = Notification.Name("StrataContextUndoManagerCheckpoint")
}

extension ContextUndoManager {
    /// Rebuilds the undo and redo stacks from recorded groups (a reopened document's
    /// history): user groups are undoable, an undo group moves the group it reverts to the
    /// redo stack, a redo group moves it back. A group's persistent metadata
    /// (``SegmentGroup/metadata``) is handed back by undo and redo as a
    /// ``PersistentGroupMetadata``; of a group saved in several segments, the latest
    /// segment's that has some (docs/TEXT.md, "Selections that survive reopening").
    ///
    /// - Complexity: O(groups + operations).
    public func restoreHistory(_ groups: [SegmentGroup]) {
        removeAllActions()
        var merged: [SegmentGroup] = []
        for group in groups {
            if let last = merged.last, last.id == group.id {
                merged[merged.count - 1].operations += group.operations
                if let metadata = group.metadata { merged[merged.count - 1].metadata = metadata }
            } else {
                merged.append(group)
            }
        }
        if let context, context.coordinator.model.hasTexts {
            // What the history's undos put back, as the contexts that made them knew it.
            context.takeInLoggedTextRestorations(of: merged.map { group in (group.info, { group.operations }) }, lazily: false)
        }
        var sequence: UInt64 = 0
        restoreStacks(merged.map { group in
            sequence += 1
            let restored = UndoGroup(id: group.id, kind: group.kind, revertsGroup: group.revertsGroup, actionName: group.actionName)
            restored.items = [.batch(ChangeBatch(
                sequence: sequence, operations: group.operations, isUndoable: true, kind: group.kind, groupID: group.id))]
            if let bytes = group.metadata {
                let persisted = PersistentGroupMetadata(bytes: bytes)
                restored.metadata = UndoGroupMetadata(value: persisted, persisted: persisted)
                mayHoldPersistentMetadata = true
            }
            return restored
        })
    }

    /// Rebuilds the stacks as ``restoreHistory(_:)`` does from groups whose operations are
    /// read when they are reverted (``UndoGroup/storedOperations``); consecutive entries of
    /// one group (a group saved in several segments) are one group, read in turn. The
    /// groups have no metadata: the callers (`strata undo`, `strata redo`) revert at once
    /// and hand none back.
    package func restoreHistory(readingLater groups: [(info: ChangeGroupInfo, read: () throws -> [ChangeOperation])]) {
        removeAllActions()
        var merged: [(info: ChangeGroupInfo, reads: [() throws -> [ChangeOperation]])] = []
        for (info, read) in groups {
            if let last = merged.last, last.info.id == info.id {
                merged[merged.count - 1].reads.append(read)
            } else {
                merged.append((info, [read]))
            }
        }
        if let context, context.coordinator.model.hasTexts {
            // Read at the first text an undo or redo edits: most groups are not read at all.
            context.takeInLoggedTextRestorations(
                of: merged.map { info, reads in (info, { try reads.flatMap { try $0() } }) }, lazily: true)
        }
        restoreStacks(merged.map { info, reads in
            let restored = UndoGroup(id: info.id, kind: info.kind, revertsGroup: info.revertsGroup, actionName: info.actionName)
            restored.storedOperations = { try reads.flatMap { try $0() } }
            return restored
        })
    }

    /// Pushes restored groups, oldest first, as their kinds say.
    private func restoreStacks(_ groups: [UndoGroup]) {
        for restored in groups {
            let group = restored
            switch group.kind {
            case .user:
                redoStack.removeAll()
                undoStack.append(restored)
            case .undo:
                if let index = undoStack.lastIndex(where: { $0.id == group.revertsGroup }) { undoStack.remove(at: index) }
                redoStack.append(restored)
            case .redo:
                if let index = redoStack.lastIndex(where: { $0.id == group.revertsGroup }) { redoStack.remove(at: index) }
                undoStack.append(restored)
            case .unregistered, .batch, .merge:
                continue
            }
        }
        trim()
    }
}
