import Foundation
import Testing
import Strata

/// A value an app changes undoably outside the model (a view's zoom, a counter).
final class UndoableValue {
    var value: Int
    init(_ value: Int) { self.value = value }
}

/// docs/SEMANTICS.md §4, "App-level undo actions": `registerUndo(withTarget:handler:)` as
/// `NSUndoManager` runs it — handlers that group their own inverse, removing one target's
/// actions, a manager without a context, registration outside any group, handlers that
/// throw.
@Suite struct UndoManagerParity {
    /// The common `setZoom` pattern: each change is its own group, and the handler sets the
    /// value back through the same function, so its inverse is grouped the same way.
    private func setZoom(_ zoom: Int, of view: UndoableValue, _ undo: ContextUndoManager) throws {
        undo.beginUndoGrouping()
        let old = view.value
        try undo.registerUndo(withTarget: view) { [unowned undo] view in try self.setZoom(old, of: view, undo) }
        view.value = zoom
        try undo.endUndoGrouping()
    }

    private func employeeContext() throws -> (ManagedObjectContext, ContextUndoManager) {
        let coordinator = PersistentStoreCoordinator(model: .employeesExample())
        try coordinator.addStore(InMemoryStore(model: coordinator.model))
        let context = ManagedObjectContext(coordinator: coordinator)
        return (context, try #require(context.undoManager))
    }

    @Test func aHandlerThatGroupsItsOwnInverseLeavesNoStrayGroup() throws {
        let (_, undo) = try employeeContext()
        undo.groupsByEvent = false
        let view = UndoableValue(1)
        try setZoom(2, of: view, undo)
        try setZoom(3, of: view, undo)
        #expect(undo.undoCount == 2)
        try undo.undo()
        #expect(view.value == 2)
        #expect(undo.undoCount == 1, "undo stack after undo 1")
        #expect(undo.redoCount == 1)
        try undo.undo()
        #expect(view.value == 1 && undo.undoCount == 0 && undo.redoCount == 2)
        try undo.redo()
        try undo.redo()
        #expect(view.value == 3 && undo.undoCount == 2 && undo.redoCount == 0)
    }

    @Test func removingATargetsActionsDropsTheGroupsItEmptiedNestedOnesIncluded() throws {
        let undo = ContextUndoManager()
        undo.groupsByEvent = false
        let first = UndoableValue(15), second = UndoableValue(25)
        func update(_ target: UndoableValue, to value: Int) throws {
            undo.beginUndoGrouping()
            let old = target.value
            try undo.registerUndo(withTarget: target) { target in try update(target, to: old) }
            target.value = value
            try undo.endUndoGrouping()
        }
        try update(second, to: 26)
        try update(second, to: 27)
        undo.beginUndoGrouping()
        try update(first, to: 16)          // a top-level group whose only content is a nested group
        try undo.endUndoGrouping()
        try update(first, to: 17)
        undo.removeAllActions(withTarget: first)
        #expect(undo.undoCount == 2)
        try undo.undo()
        #expect(first.value == 17 && second.value == 26 && undo.canUndo)
        try undo.undo()
        #expect(first.value == 17 && second.value == 25 && !undo.canUndo)
    }

    @Test func aGroupThatWasEmptyBeforeRemovingActionsStays() throws {
        let undo = ContextUndoManager()
        undo.groupsByEvent = false
        undo.beginUndoGrouping()
        try undo.endUndoGrouping()
        undo.removeAllActions(withTarget: UndoableValue(0))
        #expect(undo.canUndo && undo.undoCount == 1)
    }

    @Test func aManagerWithoutAContextRunsItsHandlers() throws {
        let undo = ContextUndoManager()
        let view = UndoableValue(1)
        try setZoom(2, of: view, undo)
        try undo.undo()
        #expect(view.value == 1)
        try undo.redo()
        #expect(view.value == 2)
    }

    @Test func aModelChangeOutsideAnyGroupWithGroupsByEventOffIsAnError() throws {
        let (context, undo) = try employeeContext()
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue("Ada", forKey: "firstName")
        context.processPendingChanges()
        undo.removeAllActions()
        undo.groupsByEvent = false
        #expect(throws: StrataError.self) { try employee.setValue("Augusta", forKey: "firstName") }
        #expect(throws: StrataError.self) { try context.insertObject(forEntityName: "Employee") }
        #expect(try employee.value(forKey: "firstName") == .string("Ada"))
        // Inside a group, or with registration disabled, the change is accepted.
        undo.beginUndoGrouping()
        try employee.setValue("Augusta", forKey: "firstName")
        try undo.endUndoGrouping()
        undo.disableUndoRegistration()
        try employee.setValue("Countess", forKey: "firstName")
        context.processPendingChanges()
        try undo.enableUndoRegistration()
        #expect(undo.undoCount == 1)
    }

    struct ZoomFailed: Error {}

    @Test func aHandlerThatThrowsMakesUndoThrowItsError() throws {
        let (_, undo) = try employeeContext()
        let view = UndoableValue(1)
        try undo.registerUndo(withTarget: view) { _ in throw ZoomFailed() }
        #expect(throws: ZoomFailed.self) { try undo.undo() }
        #expect(!undo.canUndo)
    }
}
