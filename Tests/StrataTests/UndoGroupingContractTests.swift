import Foundation
import Testing
@testable import Strata

/// One grouping rule of `NSUndoManager`, the documented behaviour it checks, and the check.
struct GroupingCase: Sendable, CustomTestStringConvertible {
    let rule: String
    /// The NSUndoManager behaviour checked, as its documentation states it.
    let documented: String
    let check: @Sendable () throws -> Void
    var testDescription: String { rule }
}

/// Counts one notification name posted by one undo manager.
private final class NotificationCounter: @unchecked Sendable {
    private(set) var count = 0
    private var token: (any NSObjectProtocol)?
    init(_ name: Notification.Name, _ manager: ContextUndoManager) {
        token = NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { [unowned self] _ in
            count += 1
        }
    }
    deinit { token.map(NotificationCenter.default.removeObserver) }
}

/// A saved employee and a stack with an empty history.
private func fixture() throws -> (Stack, ManagedObject) {
    let stack = Stack()
    let employee = try stack.savedEmployee(salary: 1)
    stack.undo.removeAllActions()
    return (stack, employee)
}

private func set(_ employee: ManagedObject, _ salary: Int64, _ stack: Stack) {
    try? employee.setValue(.integer(salary), forKey: "salary")
    stack.context.processPendingChanges()
}

/// docs/SEMANTICS.md §4 and docs/ARCHITECTURE.md "Undo": the `NSUndoManager` grouping
/// contract where Strata used to differ. An event is a `performAndWait` block here (the
/// run loop pass of `NSUndoManager`'s documentation).
@Suite struct UndoGroupingContract {
    static let cases: [GroupingCase] = [
        GroupingCase(
            rule: "the first registration in an event opens an implicit top-level group at level 1, announced once",
            documented: "groupsByEvent: \"the receiver creates undo groups around each pass of the run loop\"; "
                + "the group is begun by the pass's first registration, groupingLevel counts it, and "
                + "NSUndoManagerDidOpenUndoGroup is posted once for it"
        ) {
            let (stack, employee) = try fixture()
            let opened = NotificationCounter(ContextUndoManager.didOpenUndoGroupNotification, stack.undo)
            let closed = NotificationCounter(ContextUndoManager.didCloseUndoGroupNotification, stack.undo)
            stack.context.performAndWait {
                #expect(stack.undo.groupingLevel == 0, "nothing registered yet")
                set(employee, 2, stack)
                #expect(stack.undo.groupingLevel == 1)
                set(employee, 3, stack)
                #expect(opened.count == 1 && closed.count == 0)
            }
            #expect(stack.undo.groupingLevel == 0 && closed.count == 1, "the event's end closes it")
            #expect(stack.undo.undoCount == 1)
        },
        GroupingCase(
            rule: "an explicit beginUndoGrouping inside the event's group nests at level 2",
            documented: "beginUndoGrouping: \"marks the beginning of an undo group\", nested inside the run "
                + "loop's group; groupingLevel: \"the number of nested undo groups (or 0 if no group is open)\""
        ) {
            let (stack, employee) = try fixture()
            stack.context.performAndWait {
                set(employee, 2, stack)
                stack.undo.beginUndoGrouping()
                #expect(stack.undo.groupingLevel == 2)
                set(employee, 3, stack)
                try? stack.undo.endUndoGrouping()
                #expect(stack.undo.groupingLevel == 1)
            }
            #expect(stack.undo.undoCount == 1, "one top-level group: the event's, with the nested one inside")
            try stack.undo.undo()
            #expect(try employee.int("salary") == 1)
        },
        GroupingCase(
            rule: "undoNestedGroup inside the event's group reverts only the nested group",
            documented: "undoNestedGroup: \"undoes the last undo group\" — with a group open, the last group "
                + "nested in it"
        ) {
            let (stack, employee) = try fixture()
            try stack.context.performAndWait {
                set(employee, 2, stack)
                stack.undo.beginUndoGrouping()
                set(employee, 3, stack)
                try stack.undo.endUndoGrouping()
                try stack.undo.undoNestedGroup()
                #expect(try employee.int("salary") == 2)
            }
        },
        GroupingCase(
            rule: "undo with only the event's group open closes it first, then undoes it",
            documented: "undo: \"If groupsByEvent is true, and grouping level is 1, it closes the group before "
                + "undoing\"; it raises if more than one group is open"
        ) {
            let (stack, employee) = try fixture()
            try stack.context.performAndWait {
                set(employee, 2, stack)
                try stack.undo.undo()
                #expect(try employee.int("salary") == 1)
                set(employee, 3, stack)
                stack.undo.beginUndoGrouping()
                #expect(throws: StrataError.self) { try stack.undo.undo() }
                try stack.undo.endUndoGrouping()
            }
        },
        GroupingCase(
            rule: "registering with groupsByEvent off and no open group is an error",
            documented: "registerUndo(withTarget:selector:object:): \"Raises an NSInternalInconsistencyException "
                + "if invoked when no undo group has been established using beginUndoGrouping()\" (with "
                + "groupsByEvent off nothing establishes one)"
        ) {
            let (stack, employee) = try fixture()
            stack.undo.groupsByEvent = false
            #expect(throws: StrataError.self) { try stack.undo.registerUndo(withTarget: stack.undo) { _ in } }
            // A model change that would have to be registered is refused before it is made.
            #expect(throws: StrataError.self) { try employee.setValue(.integer(2), forKey: "salary") }
            #expect(!stack.undo.canUndo)
            #expect(try employee.int("salary") == 1)
            stack.undo.beginUndoGrouping()
            set(employee, 3, stack)
            try stack.undo.endUndoGrouping()
            try stack.undo.undo()
            #expect(try employee.int("salary") == 1)
        },
        GroupingCase(
            rule: "an explicitly begun and ended empty group is an undo step",
            documented: "endUndoGrouping at the top level puts the closed group on the undo stack even when "
                + "nothing was registered in it, so canUndo is true (NSUndoManager's observed behaviour, "
                + "asserted by other implementations' undo test suites)"
        ) {
            let (stack, _) = try fixture()
            stack.undo.beginUndoGrouping()
            try stack.undo.endUndoGrouping()
            #expect(stack.undo.canUndo && stack.undo.undoCount == 1)
            try stack.undo.undo()
            #expect(!stack.undo.canUndo && stack.undo.canRedo, "undoing it moves it to the redo stack")
            try stack.undo.redo()
            #expect(stack.undo.canUndo)
        },
        GroupingCase(
            rule: "an event that registered nothing leaves no group",
            documented: "groupsByEvent: the run loop's group is begun by the first registration of the pass, "
                + "so a pass that registers nothing adds no undo step"
        ) {
            let (stack, _) = try fixture()
            stack.context.performAndWait {}
            #expect(!stack.undo.canUndo && stack.undo.groupingLevel == 0)
        },
        GroupingCase(
            rule: "canUndo is true while the event's group holds changes",
            documented: "canUndo: \"whether the receiver has any actions to undo\"; it \"does not mean you can "
                + "safely invoke undo()\" because an open group may have to be closed first, so the open "
                + "group's actions count"
        ) {
            let (stack, employee) = try fixture()
            stack.context.performAndWait {
                set(employee, 2, stack)
                #expect(stack.undo.canUndo && stack.undo.undoCount == 0)
            }
        },
    ]

    @Test(arguments: cases) func rule(_ rule: GroupingCase) throws {
        try rule.check()
    }
}
