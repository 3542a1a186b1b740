import Foundation

/// The undo manager of a context: Foundation's `NSUndoManager` contract, working on the
/// operation log. Each top-level group is a run of flushed batches (and app-level actions,
/// ``registerUndo(withTarget:handler:)``); undo applies their inverse operations, which are
/// flushed and logged in turn and form the redo group.
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
/// **Events.** With ``groupsByEvent`` (the default) the first registration outside any
/// group opens an implicit top-level group (grouping level 1), which the end of the event
/// closes: the end of a `perform` or `performAndWait` block, or of a main-queue turn that
/// changed a main-queue context. Outside those (a confinement context used directly) an
/// event is one flush. See docs/ARCHITECTURE.md, "Undo".
///
/// Not `Sendable`: it belongs to its context.
public final class ContextUndoManager {
    /// Whether registrations outside an explicit group open an implicit group that the end
    /// of the event closes (default `true`). When `false`, registering with no group open
    /// is an error.
    public var groupsByEvent = true
    /// The most top-level groups kept; 0 (the default) keeps all. Older ones fall off.
    public var levelsOfUndo = 0 {
        didSet { trim() }
    }
    /// Merges consecutive top-level groups with the same non-empty action name closed
    /// within this many seconds of each other into one undo step (typing a word is one
    /// step). 0 (the default) merges nothing.
    public var coalescingInterval: TimeInterval = 0

    /// The context it records for. Not `weak`: one weak reference moves the context's
    /// reference count to a side table, which makes every retain of the context (each
    /// `setValue` takes one) several times dearer. The context clears it when it goes away
    /// or takes another undo manager.
    unowned(unsafe) var context: ManagedObjectContext?
    var undoStack: [UndoGroup] = []
    var redoStack: [UndoGroup] = []
    var openGroups: [UndoGroup] = []
    /// The group an undo or redo is recording (its inverse: the redo or undo group).
    var recording: UndoGroup?
    /// How many groups were open when the recording began: groups a handler opens during
    /// the undo or redo nest inside the recorded group (docs/SEMANTICS.md §4).
    var recordingBase = 0
    var pendingAutoGroup: UndoGroup?
    /// Whether a group may hold persistent metadata (set by
    /// ``setPersistentGroupMetadata(_:)`` and by a restored history that has some): until
    /// then a save does not look through the stacks for it.
    var mayHoldPersistentMetadata = false
    private var disableCount = 0

    /// Whether an undo is running.
    public internal(set) var isUndoing = false
    /// Whether a redo is running.
    public internal(set) var isRedoing = false

    /// Creates an undo manager with no history.
    public init() {}

    /// How deeply groups are nested now (0: none open; 1 inside an event's implicit group).
    public var groupingLevel: Int { openGroups.count }
    /// Whether changes are registered for undo.
    public var isUndoRegistrationEnabled: Bool { disableCount == 0 }
    /// Whether there is something to undo: a group on the stack, an open group holding
    /// something, or unflushed changes.
    public var canUndo: Bool {
        !undoStack.isEmpty || openGroups.first.map { !$0.isEmpty } == true
            || (context?.flushSet.isEmpty == false && isUndoRegistrationEnabled)
    }
    /// Whether there is a group to redo.
    public var canRedo: Bool { !redoStack.isEmpty }
    /// The number of top-level groups that can be undone.
    public var undoCount: Int { undoStack.count }
    /// The number of top-level groups that can be redone.
    public var redoCount: Int { redoStack.count }

    // MARK: Grouping

    /// Opens a group; groups nest, and only top-level groups are undone as one unit.
    /// Flushes the context first, so earlier changes stay out of the group. With
    /// ``groupsByEvent``, a group begun with none open during an event (or on a manager no
    /// context owns) first opens the event's implicit group and nests in it, as
    /// `NSUndoManager` does: ``groupingLevel`` is then 2. During an undo or redo (a handler
    /// grouping its inverse) the group nests in the group being recorded.
    public func beginUndoGrouping() {
        context?.processPendingChanges()
        if groupsByEvent, openGroups.isEmpty, recording == nil, eventHoldsGroupOpen() {
            let implicit = UndoGroup(id: allocateGroupID(), kind: .user)
            implicit.isImplicit = true
            openGroups.append(implicit)
            post(Self.didOpenUndoGroupNotification)
        }
        let nested = !openGroups.isEmpty || recording != nil
        let group = UndoGroup(id: nested ? 0 : allocateGroupID(), kind: .user)
        openGroups.append(group)
        post(Self.didOpenUndoGroupNotification)
        post(Self.checkpointNotification)
    }

    /// Closes the innermost group, flushing the context first so its changes are inside.
    /// A group begun and ended with nothing in it is still an undo step, as in
    /// `NSUndoManager`.
    /// - Throws: `.undo` when no group is open.
    public func endUndoGrouping() throws {
        guard !openGroups.isEmpty else {
            throw StrataError(.undo, "endUndoGrouping() was called with no open undo group.")
        }
        context?.processPendingChanges()
        let group = openGroups.removeLast()
        post(Self.checkpointNotification)
        if let recording, openGroups.count == recordingBase {
            // A handler's own group during an undo or redo: part of the recorded group.
            if !group.isEmpty { recording.append(group) }
        } else if let parent = openGroups.last {
            parent.append(group)
            if parent.actionName.isEmpty { parent.actionName = group.actionName }
            if parent.metadata == nil { parent.metadata = group.metadata }
        } else if !group.isEmpty || !group.isImplicit {
            push(group)
        }
        post(Self.didCloseUndoGroupNotification)
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
    ///
    /// - Complexity: O(1) (the groups are released).
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroups.removeAll()
        pendingAutoGroup = nil
        disableCount = 0
    }

    /// Whether a flushed batch can be registered now: always during an undo or redo or
    /// with a group open; otherwise only with `groupsByEvent`, which opens one. (With
    /// `groupsByEvent` off and no group open, `NSUndoManager` raises; a flush cannot throw,
    /// so the batch is logged as unregistered instead: docs/ARCHITECTURE.md, "Undo".)
    var acceptsRegistration: Bool { groupsByEvent || recording != nil || !openGroups.isEmpty }

    /// The group the next flushed batch belongs to (the context asks before appending).
    func groupForRegistration(kind: ChangeGroupKind) -> ChangeGroupInfo {
        if let recording { return recording.info }
        if let top = openGroups.first { return top.info }
        let group = UndoGroup(id: allocateGroupID(), kind: .user)
        pendingAutoGroup = group
        return group.info
    }

    /// Adds a flushed batch to the current group, opening the event's group if none is open.
    func register(_ batch: ChangeBatch) {
        if let target = recordingTarget {
            target.append(batch)
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
        openImplicitGroup(group)
    }

    /// The group a registration during an undo or redo joins: the innermost group a
    /// handler opened, or else the group being recorded; nil outside an undo or redo.
    var recordingTarget: UndoGroup? {
        guard let recording else { return nil }
        return openGroups.count > recordingBase ? openGroups.last : recording
    }

    /// Whether the event's implicit group may stay open: during a context's event, or
    /// always for a manager no context owns, which has no events that end on their own
    /// (as an `NSUndoManager` whose run loop does not turn: undo, redo or
    /// ``endUndoGrouping()`` closes the group).
    func eventHoldsGroupOpen() -> Bool {
        guard let context else { return true }
        return context.holdsEventOpen()
    }

    /// Opens the event's group with its first registration in it: it stays open (level 1)
    /// until the event ends, or closes at once outside an event (one flush, one group).
    func openImplicitGroup(_ group: UndoGroup) {
        group.isImplicit = true
        post(Self.didOpenUndoGroupNotification)
        if eventHoldsGroupOpen() {
            openGroups.append(group)
        } else {
            push(group)
            post(Self.didCloseUndoGroupNotification)
        }
    }

    func push(_ group: UndoGroup) {
        group.closedAt = coalescingInterval > 0 ? ProcessInfo.processInfo.systemUptime : 0
        undoStack.append(group)
        coalesceNewestGroups()
        trim()
    }

    func trim() {
        guard levelsOfUndo > 0 else { return }
        if undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
        if redoStack.count > levelsOfUndo { redoStack.removeFirst(redoStack.count - levelsOfUndo) }
    }

    func allocateGroupID() -> UInt64 {
        UndoGroupIDs.temporary()
    }

    /// Gives groups the permanent ids a save assigned. Groups made since the last save are
    /// the only ones with temporary ids, and every push since then went on top of a stack,
    /// so each stack is walked from the top only while its ids are temporary.
    func remapGroupIDs(_ assigned: [UInt64: UInt64]) {
        func rename(_ group: UndoGroup) {
            if let id = assigned[group.id] {
                group.formerID = group.id
                group.id = id
            }
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

    /// Renames object IDs on the stacks. A group renamed once is skipped afterwards (it holds
    /// no temporary ID), unless `reintroducingTemporaryIDs`: a failed save gives records
    /// temporary IDs again, so every group is visited and may hold them again.
    func remapIDs(_ transform: (ManagedObjectID) -> ManagedObjectID, reintroducingTemporaryIDs: Bool = false) {
        for group in undoStack + redoStack + openGroups { group.remapIDs(transform, reintroducingTemporaryIDs: reintroducingTemporaryIDs) }
    }

    func post(_ name: Notification.Name) {
        NotificationCenter.default.post(name: name, object: self)
    }
}
