import Foundation

/// The undo manager of a context: Foundation's `NSUndoManager` contract, working on the
/// operation log. Each top-level group is a run of flushed batches; undo applies their
/// inverse operations, which are flushed and logged in turn and form the redo group.
///
/// ```swift
/// let undo = context.undoManager!
/// undo.beginUndoGrouping()
/// try employee.setValue(.integer(70_000), forKey: "salary")
/// try undo.endUndoGrouping()
/// undo.setActionName("Raise")
/// try undo.undo()          // salary back to its old value
/// print(undo.redoMenuItemTitle)   // "Redo Raise"
/// ```
///
/// Not `Sendable`: it belongs to its context.
public final class ContextUndoManager {
    /// Whether changes outside an explicit group form one group per flush (default `true`).
    public var groupsByEvent = true
    /// The most top-level groups kept; 0 (the default) keeps all. Older ones fall off.
    public var levelsOfUndo = 0 {
        didSet { trim() }
    }

    /// The context it records for. Not `weak`: one weak reference moves the context's
    /// reference count to a side table, which makes every retain of the context (each
    /// `setValue` takes one) several times dearer. The context clears it when it goes away
    /// or takes another undo manager.
    unowned(unsafe) var context: ManagedObjectContext?
    var undoStack: [UndoGroup] = []
    var redoStack: [UndoGroup] = []
    var openGroups: [UndoGroup] = []
    private var recording: UndoGroup?
    private var pendingAutoGroup: UndoGroup?
    private var disableCount = 0

    /// Whether an undo is running.
    public private(set) var isUndoing = false
    /// Whether a redo is running.
    public private(set) var isRedoing = false

    /// Creates an undo manager with no history.
    public init() {}

    /// How deeply groups are nested now (0: none open).
    public var groupingLevel: Int { openGroups.count }
    /// Whether changes are registered for undo.
    public var isUndoRegistrationEnabled: Bool { disableCount == 0 }
    /// Whether there is a group to undo (unflushed changes count).
    public var canUndo: Bool { !undoStack.isEmpty || (context?.flushSet.isEmpty == false && isUndoRegistrationEnabled) }
    /// Whether there is a group to redo.
    public var canRedo: Bool { !redoStack.isEmpty }
    /// The number of top-level groups that can be undone.
    public var undoCount: Int { undoStack.count }
    /// The number of top-level groups that can be redone.
    public var redoCount: Int { redoStack.count }

    // MARK: Grouping

    /// Opens a group; groups nest, and only top-level groups are undone as one unit.
    /// Flushes the context first, so earlier changes stay out of the group.
    public func beginUndoGrouping() {
        context?.processPendingChanges()
        let group = UndoGroup(id: openGroups.isEmpty ? allocateGroupID() : 0, kind: .user)
        openGroups.append(group)
        post(Self.didOpenUndoGroupNotification)
        post(Self.checkpointNotification)
    }

    /// Closes the innermost group, flushing the context first so its changes are inside.
    /// - Throws: `.undo` when no group is open.
    public func endUndoGrouping() throws {
        guard !openGroups.isEmpty else {
            throw StrataError(.undo, "endUndoGrouping() was called with no open undo group.")
        }
        context?.processPendingChanges()
        let group = openGroups.removeLast()
        post(Self.checkpointNotification)
        if let parent = openGroups.last {
            if !group.isEmpty {
                parent.items.append(.group(group))
                if parent.actionName.isEmpty { parent.actionName = group.actionName }
            }
        } else if !group.isEmpty {
            push(group)
        }
        post(Self.didCloseUndoGroupNotification)
    }

    // MARK: Undo and redo

    /// Undoes the last top-level group and puts it on the redo stack. With `groupsByEvent`
    /// an open top-level group is closed first; with nothing to undo it does nothing.
    /// - Throws: `.undo` when a nested group is open; errors applying the changes.
    /// - Complexity: O(operations in the group).
    public func undo() throws {
        try closeTopLevelGroupForUndo("undo()")
        try undoNestedGroup()
    }

    /// Undoes the last group: the last nested group of the open group, or the last
    /// top-level group when none is open.
    public func undoNestedGroup() throws {
        guard !isUndoing, !isRedoing else {
            throw StrataError(.undo, "undoNestedGroup() was called during an undo or redo.")
        }
        context?.processPendingChanges()
        let group: UndoGroup
        if let open = openGroups.last {
            guard case .group(let last)? = open.items.last else { return }
            open.items.removeLast()
            group = last
        } else {
            guard let last = undoStack.popLast() else { return }
            group = last
        }
        post(Self.willUndoNotification)
        isUndoing = true
        defer { isUndoing = false }
        try replay(group, as: .undo) { redoStack.append($0); trim() }
        post(Self.didUndoNotification)
    }

    /// Re-applies the last undone group and puts it back on the undo stack.
    /// - Throws: `.undo` when called during an undo or with a nested group open.
    public func redo() throws {
        guard !isUndoing else { throw StrataError(.undo, "redo() was called while undoing.") }
        try closeTopLevelGroupForUndo("redo()")
        context?.processPendingChanges()
        guard let group = redoStack.popLast() else { return }
        post(Self.willRedoNotification)
        isRedoing = true
        defer { isRedoing = false }
        try replay(group, as: .redo) { undoStack.append($0); trim() }
        post(Self.didRedoNotification)
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

    /// Applies the inverse of `group` and records the flushed result as a new group.
    private func replay(_ group: UndoGroup, as kind: ChangeGroupKind, then store: (UndoGroup) -> Void) throws {
        guard let context else { return }
        let result = UndoGroup(id: allocateGroupID(), kind: kind, revertsGroup: group.id, actionName: group.actionName)
        recording = result
        context.pendingFlushKind = kind
        defer {
            context.pendingFlushKind = nil
            recording = nil
        }
        var failure: (any Error)?
        let batches = group.batches
        if context.replayInverseOfUpdates(batches, knownInverse: group.inverseOperations) {
            result.inverseOperations = batches[0].operations
        } else {
            do { try context.applyInverse(of: batches) } catch { failure = error }
            context.processPendingChanges()
        }
        if !result.isEmpty { store(result) }
        if let failure { throw failure }
    }

    // MARK: Registration

    /// Stops registering changes; calls nest (each needs its enable).
    /// The usual pattern: flush, disable, change, flush, enable.
    public func disableUndoRegistration() {
        disableCount += 1
    }

    /// Balances one ``disableUndoRegistration()``.
    /// - Throws: `.undo` when registration is not disabled.
    public func enableUndoRegistration() throws {
        guard disableCount > 0 else {
            throw StrataError(.undo, "enableUndoRegistration() was called more times than disableUndoRegistration().")
        }
        disableCount -= 1
    }

    /// Clears both stacks, closes open groups and re-enables registration.
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroups.removeAll()
        pendingAutoGroup = nil
        disableCount = 0
    }

    /// The group the next flushed batch belongs to (the context asks before appending).
    func groupForRegistration(kind: ChangeGroupKind) -> ChangeGroupInfo {
        if let recording { return recording.info }
        if let top = openGroups.first { return top.info }
        let group = UndoGroup(id: allocateGroupID(), kind: .user)
        pendingAutoGroup = group
        return group.info
    }

    /// Adds a flushed batch to the current group.
    func register(_ batch: ChangeBatch) {
        if let recording {
            recording.append(batch)
            return
        }
        redoStack.removeAll()
        if let open = openGroups.last {
            open.append(batch)
            if open !== openGroups[0] { openGroups[0].mayHoldTemporaryIDs = true }
            return
        }
        let group = pendingAutoGroup ?? UndoGroup(id: batch.groupID, kind: .user)
        pendingAutoGroup = nil
        group.append(batch)
        post(Self.didOpenUndoGroupNotification)
        push(group)
        post(Self.didCloseUndoGroupNotification)
    }

    private func push(_ group: UndoGroup) {
        undoStack.append(group)
        trim()
    }

    func trim() {
        guard levelsOfUndo > 0 else { return }
        if undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
        if redoStack.count > levelsOfUndo { redoStack.removeFirst(redoStack.count - levelsOfUndo) }
    }

    private func allocateGroupID() -> UInt64 {
        UndoGroupIDs.temporary()
    }

    /// Gives groups the permanent ids a save assigned. Groups made since the last save are
    /// the only ones with temporary ids, and every push since then went on top of a stack,
    /// so each stack is walked from the top only while its ids are temporary.
    func remapGroupIDs(_ assigned: [UInt64: UInt64]) {
        func rename(_ group: UndoGroup) {
            if let id = assigned[group.id] { group.id = id }
            if let reverts = group.revertsGroup, let id = assigned[reverts] { group.revertsGroup = id }
        }
        for stack in [undoStack, redoStack] {
            for group in stack.reversed() {
                guard UndoGroupIDs.isTemporary(group.id) else { break }
                rename(group)
            }
        }
        openGroups.forEach(rename)
        pendingAutoGroup.map(rename)
        recording.map(rename)
    }

    func remapIDs(_ transform: (ManagedObjectID) -> ManagedObjectID) {
        for group in undoStack + redoStack + openGroups { group.remapIDs(transform) }
    }

    func post(_ name: Notification.Name) {
        NotificationCenter.default.post(name: name, object: self)
    }
}
