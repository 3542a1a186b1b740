import Foundation

extension ContextUndoManager {
    /// Registers an app-level undo action, `NSUndoManager`'s
    /// `registerUndo(withTarget:handler:)`: something that is not a model change (a view's
    /// zoom, a selection, an action on another object). It joins the current group with the
    /// model changes made around it, in order, and undoing the group runs it, newest first.
    /// A handler registers its own inverse the same way; registered during an undo, that
    /// goes to the redo stack, and during a redo back to the undo stack.
    ///
    /// ```swift
    /// func setZoom(_ zoom: Double, of view: CanvasView) throws {
    ///     let old = view.zoom
    ///     try undo.registerUndo(withTarget: view) { view in try self.setZoom(old, of: view) }
    ///     view.zoom = zoom
    /// }
    /// ```
    ///
    /// The handler may throw: ``undo()`` or ``redo()`` then stops there and throws the
    /// error; what was reverted before it stays reverted and forms the redo (or undo)
    /// group. A handler may also begin and end a group of its own around its inverse; that
    /// group nests in the one being recorded, so no extra step appears on the stack.
    ///
    /// The handler runs where the undo runs: on the context's thread or queue, like every
    /// use of the context and its undo manager, so it need not be `Sendable` (it never
    /// leaves that isolation domain). The target is held strongly until the action leaves
    /// the stacks (``removeAllActions()``, ``removeAllActions(withTarget:)``, ``levelsOfUndo``).
    /// Actions live in memory: a reopened document's restored groups hold its model changes
    /// only.
    ///
    /// Pending model changes are flushed first, so they come before the action in the group.
    /// A manager no context owns runs its handlers the same way.
    /// - Throws: `.undo` when `groupsByEvent` is off and no group is open, as
    ///   `NSUndoManager` refuses a registration outside any group.
    public func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) throws -> Void) throws {
        guard isUndoRegistrationEnabled else { return }
        guard acceptsRegistration else {
            throw StrataError(.undo, "registerUndo(withTarget:handler:) was called with no open undo group and groupsByEvent off.")
        }
        context?.processPendingChanges()
        let action = UndoAction(target: target) { try handler(target) }
        if let recording = recordingTarget {
            recording.append(action)
            return
        }
        redoStack.removeAll()
        if let open = openGroups.last {
            open.append(action)
            if open !== openGroups[0] { openGroups[0].hasActions = true }
            return
        }
        let group = UndoGroup(id: allocateGroupID(), kind: .user)
        group.append(action)
        openImplicitGroup(group)
    }

    /// Throws when a model change made now could not be registered: `groupsByEvent` off,
    /// no group open, registration enabled and no undo or redo running. `NSUndoManager`
    /// raises at such a registration; a flush cannot throw, so the change is refused
    /// before it is made (docs/SEMANTICS.md §4, "Events").
    func checkModelChangeCanRegister() throws {
        guard !groupsByEvent, openGroups.isEmpty, recording == nil, isUndoRegistrationEnabled else { return }
        throw StrataError(.undo, "A model change was made with no open undo group and groupsByEvent off; begin an undo group first, or disable undo registration for a change that is not to be undone.")
    }

    /// Removes every app-level action registered with `target` from both stacks and the
    /// open groups, as `NSUndoManager`'s `removeAllActions(withTarget:)`. A group the
    /// removal leaves with nothing — a top-level group, or a nested group, also when its
    /// only content was a nested group that held the removed actions — is dropped, so
    /// ``canUndo`` and ``canRedo`` say whether a step is left. A group that was empty
    /// before (an explicit empty group is an undo step) stays.
    ///
    /// - Complexity: O(items on the stacks).
    public func removeAllActions(withTarget target: AnyObject) {
        let identifier = ObjectIdentifier(target)
        var emptied = Set<ObjectIdentifier>()
        for group in undoStack + redoStack + openGroups where group.removeActions(on: identifier) && group.isEmpty {
            emptied.insert(ObjectIdentifier(group))
        }
        undoStack.removeAll { emptied.contains(ObjectIdentifier($0)) }
        redoStack.removeAll { emptied.contains(ObjectIdentifier($0)) }
    }
}

extension UndoGroup {
    /// Drops the actions on one target, nested groups included, and the nested groups the
    /// removal emptied. Returns whether anything was removed.
    func removeActions(on target: ObjectIdentifier) -> Bool {
        guard hasActions else { return false }
        let before = items.count
        var removedInside = false
        items.removeAll { item in
            switch item {
            case .action(let action): return action.target == target
            case .group(let group):
                guard group.removeActions(on: target) else { return false }
                removedInside = true
                return group.isEmpty
            case .batch: return false
            }
        }
        return removedInside || items.count != before
    }
}
