import Foundation
import Testing
@testable import Strata

/// An editor's view state that is not in the model.
final class CanvasView {
    var zoom = 1.0
    var log: [String] = []
}

/// docs/SEMANTICS.md §4: app-level undo actions (`registerUndo(withTarget:handler:)`), in
/// one group and one stack with model changes, redo registering the inverse as
/// `NSUndoManager` does.
@Suite struct UndoAppActions {
    /// Sets the zoom undoably, as an app would: the handler sets it back through the same
    /// function, which registers the inverse.
    private func setZoom(_ zoom: Double, of view: CanvasView, _ undo: ContextUndoManager) throws {
        let old = view.zoom
        // The undo manager keeps the handler: capturing it strongly would be a cycle.
        try undo.registerUndo(withTarget: view) { [weak undo] view in
            if let undo { try? self.setZoom(old, of: view, undo) }
        }
        view.zoom = zoom
    }

    private func fixture() throws -> (Stack, ManagedObject) {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 1)
        stack.undo.removeAllActions()
        return (stack, employee)
    }

    @Test func anActionAndModelChangesInOneGroupAreOneStep() throws {
        let (stack, employee) = try fixture()
        let view = CanvasView()
        stack.undo.beginUndoGrouping()
        try employee.setValue(.integer(2), forKey: "salary")
        try setZoom(2, of: view, stack.undo)
        try employee.setValue(.integer(3), forKey: "salary")
        try stack.undo.endUndoGrouping()
        stack.undo.setActionName("Zoom and Raise")
        #expect(stack.undo.undoCount == 1)

        try stack.undo.undo()
        #expect(view.zoom == 1)
        #expect(try employee.int("salary") == 1)
        #expect(stack.undo.redoMenuItemTitle == "Redo Zoom and Raise")
        try stack.undo.redo()
        #expect(view.zoom == 2)
        #expect(try employee.int("salary") == 3)
        try stack.undo.undo()
        #expect(view.zoom == 1)
        #expect(try employee.int("salary") == 1)
    }

    @Test func insideAnEventTheActionJoinsTheEventsGroup() throws {
        let (stack, employee) = try fixture()
        let view = CanvasView()
        stack.context.performAndWait {
            try? employee.setValue(.integer(2), forKey: "salary")
            try? setZoom(3, of: view, stack.undo)
        }
        #expect(stack.undo.undoCount == 1)
        try stack.undo.undo()
        #expect(view.zoom == 1)
        #expect(try employee.int("salary") == 1)
    }

    @Test func actionsAndChangesAreUndoneNewestFirst() throws {
        let (stack, employee) = try fixture()
        let view = CanvasView()
        stack.undo.beginUndoGrouping()
        try stack.undo.registerUndo(withTarget: view) { view in
            view.log.append("first: salary \((try? employee.int("salary")).flatMap { $0 }.map(String.init) ?? "nil")")
        }
        try employee.setValue(.integer(2), forKey: "salary")
        try stack.undo.registerUndo(withTarget: view) { view in
            view.log.append("second: salary \((try? employee.int("salary")).flatMap { $0 }.map(String.init) ?? "nil")")
        }
        try stack.undo.endUndoGrouping()
        try stack.undo.undo()
        #expect(view.log == ["second: salary 2", "first: salary 1"])
    }

    @Test func anActionOutsideAnyGroupIsItsOwnStepAndANewOneEmptiesRedo() throws {
        let (stack, _) = try fixture()
        let view = CanvasView()
        try setZoom(2, of: view, stack.undo)
        try setZoom(4, of: view, stack.undo)
        #expect(stack.undo.undoCount == 2)
        try stack.undo.undo()
        #expect(view.zoom == 2 && stack.undo.canRedo)
        try setZoom(8, of: view, stack.undo)
        #expect(!stack.undo.canRedo)
    }

    @Test func registeringWithGroupsByEventOffAndNoGroupOpenThrows() throws {
        let (stack, _) = try fixture()
        stack.undo.groupsByEvent = false
        let error = try #require(throws: StrataError.self) {
            try stack.undo.registerUndo(withTarget: CanvasView()) { _ in }
        }
        #expect(error.code == .undo)
    }

    @Test func registrationDisabledRegistersNothing() throws {
        let (stack, _) = try fixture()
        stack.undo.disableUndoRegistration()
        try setZoom(2, of: CanvasView(), stack.undo)
        try stack.undo.enableUndoRegistration()
        #expect(!stack.undo.canUndo)
    }

    @Test func removeAllActionsWithTargetDropsItsActionsAndReleasesIt() throws {
        let (stack, employee) = try fixture()
        weak var released: CanvasView?
        do {
            let view = CanvasView()
            released = view
            try setZoom(2, of: view, stack.undo)
            stack.undo.beginUndoGrouping()
            try setZoom(3, of: view, stack.undo)
            try employee.setValue(.integer(2), forKey: "salary")
            try stack.undo.endUndoGrouping()
            stack.undo.removeAllActions(withTarget: view)
        }
        #expect(released == nil)
        #expect(stack.undo.undoCount == 1, "the action-only group went; the model change stays")
        try stack.undo.undo()
        #expect(try employee.int("salary") == 1)
    }
}
