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
    ///     try undo.registerUndo(withTarget: view) { view in try? self.setZoom(old, of: view) }
    ///     view.zoom = zoom
    /// }
    /// ```
    ///
    /// The handler runs where the undo runs: on the context's thread or queue, like every
    /// use of the context and its undo manager, so it need not be `Sendable` (it never
    /// leaves that isolation domain). The target is held strongly until the action leaves
    /// the stacks (``removeAllActions()``, ``removeAllActions(withTarget:)``, ``levelsOfUndo``).
    /// Actions live in memory: a reopened document's restored groups hold its model changes
    /// only.
    ///
    /// Pending model changes are flushed first, so they come before the action in the group.
    /// - Throws: `.undo` when `groupsByEvent` is off and no group is open, as
    ///   `NSUndoManager` refuses a registration outside any group.
    public func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) throws {
        guard isUndoRegistrationEnabled else { return }
        guard acceptsRegistration else {
            throw StrataError(.undo, "registerUndo(withTarget:handler:) was called with no open undo group and groupsByEvent off.")
        }
        context?.processPendingChanges()
        let action = UndoAction(target: target) { handler(target) }
        if let recording {
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

    /// Removes every app-level action registered with `target` from both stacks and the
    /// open groups, as `NSUndoManager`'s `removeAllActions(withTarget:)`; groups left with
    /// nothing are dropped from the stacks.
    public func removeAllActions(withTarget target: AnyObject) {
        let identifier = ObjectIdentifier(target)
        for group in undoStack + redoStack + openGroups { group.removeActions(on: identifier) }
        undoStack.removeAll { $0.isEmpty }
        redoStack.removeAll { $0.isEmpty }
    }
}

extension UndoGroup {
    /// Drops the actions on one target, nested groups included.
    func removeActions(on target: ObjectIdentifier) {
        guard hasActions else { return }
        items.removeAll { if case .action(let action) = $0 { action.target == target } else { false } }
        for case .group(let group) in items { group.removeActions(on: target) }
    }
}
