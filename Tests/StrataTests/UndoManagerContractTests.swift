import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §4: the `NSUndoManager` contract, including the edge rules open
/// implementations' test suites assert.
@Suite struct UndoManagerContract {
    func salary(_ object: ManagedObject) throws -> Int64? { try object.int("salary") }

    /// A saved employee and the stack, with an empty undo history.
    func fixture(salary: Int64 = 0) throws -> (Stack, ManagedObject) {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: salary)
        stack.undo.removeAllActions()
        return (stack, employee)
    }

    /// Makes one top-level group: sets the salary and flushes.
    func group(_ stack: Stack, _ employee: ManagedObject, _ salary: Int64, name: String? = nil) throws {
        try employee.setValue(.integer(salary), forKey: "salary")
        stack.context.processPendingChanges()
        if let name { stack.undo.setActionName(name) }
    }

    // MARK: Edge rules

    @Test func theInitialStateIsLevelsZeroGroupingZeroRegistrationEnabledAndGroupsByEvent() {
        let manager = ContextUndoManager()
        #expect(manager.levelsOfUndo == 0)
        #expect(manager.groupingLevel == 0)
        #expect(manager.isUndoRegistrationEnabled)
        #expect(manager.groupsByEvent)
        #expect(!manager.canUndo && !manager.canRedo)
        #expect(!manager.isUndoing && !manager.isRedoing)
        #expect(manager.undoActionName == "" && manager.redoActionName == "")
        #expect(Stack().undo.groupingLevel == 0)
    }

    @Test func endingAGroupThatWasNeverBegunIsAnError() throws {
        let manager = ContextUndoManager()
        #expect(strataError { try manager.endUndoGrouping() }?.code == .undo)
        let (stack, _) = try fixture()
        stack.undo.beginUndoGrouping()
        try stack.undo.endUndoGrouping()
        #expect(strataError { try stack.undo.endUndoGrouping() }?.code == .undo)
        #expect(stack.undo.groupingLevel == 0)
    }

    @Test func undoWithANestedGroupOpenIsAnError() throws {
        let (stack, employee) = try fixture(salary: 1)
        stack.undo.beginUndoGrouping()
        stack.undo.beginUndoGrouping()
        try employee.setValue(.integer(2), forKey: "salary")
        #expect(stack.undo.groupingLevel == 2)
        #expect(strataError { try stack.undo.undo() }?.code == .undo)
        #expect(try salary(employee) == 2, "the failed undo changed nothing")
        #expect(stack.undo.groupingLevel == 2)
    }

    @Test func withGroupsByEventUndoFirstClosesAnOpenTopLevelGroup() throws {
        let (stack, employee) = try fixture(salary: 1)
        stack.undo.beginUndoGrouping()
        try employee.setValue(.integer(2), forKey: "salary")
        try employee.setValue(.string("Byron"), forKey: "lastName")
        try stack.undo.undo()
        #expect(stack.undo.groupingLevel == 0)
        #expect(try salary(employee) == 1)
        #expect(try employee.string("lastName") == "Lovelace")
        #expect(stack.undo.canRedo)
    }

    @Test func withoutGroupsByEventUndoWithAnOpenGroupIsAnError() throws {
        let (stack, employee) = try fixture(salary: 1)
        stack.undo.groupsByEvent = false
        stack.undo.beginUndoGrouping()
        try employee.setValue(.integer(2), forKey: "salary")
        #expect(strataError { try stack.undo.undo() }?.code == .undo)
        try stack.undo.endUndoGrouping()
        try stack.undo.undo()
        #expect(try salary(employee) == 1)
    }

    @Test func redoWhileUndoingIsAnError() throws {
        let (stack, employee) = try fixture(salary: 1)
        try group(stack, employee, 2)
        try group(stack, employee, 3)
        try stack.undo.undo()  // something to redo
        #expect(stack.undo.canRedo)

        let undo = stack.undo
        let observed = LockedBox<(isUndoing: Bool, error: StrataError.Code?)?>(nil)
        nonisolated(unsafe) let manager = undo
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.objectsDidChangeNotification, object: stack.context, queue: nil
        ) { _ in
            guard manager.isUndoing, observed.value == nil else { return }
            let code = strataError { try manager.redo() }?.code
            observed.value = (manager.isUndoing, code)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try stack.undo.undo()
        let seen = try #require(observed.value, "the observer did not run during the undo")
        #expect(seen.isUndoing)
        #expect(seen.error == .undo)
        #expect(try salary(employee) == 1, "the undo finished; the nested redo did nothing")
        #expect(stack.undo.redoCount == 2)
    }

    @Test func disablingTwiceAndEnablingOnceStaysDisabledAndOneEnableTooManyIsAnError() throws {
        let manager = ContextUndoManager()
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        try manager.enableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        try manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        #expect(strataError { try manager.enableUndoRegistration() }?.code == .undo)
        #expect(manager.isUndoRegistrationEnabled)
    }

    @Test func withThreeLevelsOfUndoAndFourGroupsExactlyThreeUndosSucceed() throws {
        let (stack, employee) = try fixture(salary: 0)
        stack.undo.levelsOfUndo = 3
        for value: Int64 in 1...4 { try group(stack, employee, value) }
        #expect(stack.undo.undoCount == 3)
        var undone = 0
        while stack.undo.canUndo {
            try stack.undo.undo()
            undone += 1
        }
        #expect(undone == 3)
        #expect(try salary(employee) == 1, "the first group fell off and stays applied")
        try stack.undo.undo()  // nothing left: does nothing
        #expect(try salary(employee) == 1)
        #expect(stack.undo.redoCount == 3)
    }

    @Test func loweringLevelsOfUndoDropsTheOldestGroupsAtOnce() throws {
        let (stack, employee) = try fixture(salary: 0)
        for value: Int64 in 1...4 { try group(stack, employee, value, name: "Set \(value)") }
        stack.undo.levelsOfUndo = 2
        #expect(stack.undo.undoCount == 2)
        #expect(stack.undo.undoGroups.map(\.actionName) == ["Set 3", "Set 4"])
        try stack.undo.undo()
        try stack.undo.undo()
        #expect(try salary(employee) == 2)
        #expect(!stack.undo.canUndo)
    }

    @Test func undoWithNothingToUndoDoesNothing() throws {
        let (stack, employee) = try fixture(salary: 5)
        let recorder = NotificationRecorder(
            [ContextUndoManager.willUndoNotification, ContextUndoManager.didUndoNotification], object: stack.undo)
        try stack.undo.undo()
        try stack.undo.redo()
        #expect(recorder.names.isEmpty)
        #expect(try salary(employee) == 5)
        #expect(!stack.context.hasChanges)
        #expect(!stack.undo.canUndo && !stack.undo.canRedo)
    }

    @Test func actionNamesAndMenuTitles() throws {
        let (stack, employee) = try fixture()
        #expect(stack.undo.undoMenuItemTitle == "Undo")
        #expect(stack.undo.redoMenuItemTitle == "Redo")
        try group(stack, employee, 1)
        #expect(stack.undo.undoActionName == "")
        #expect(stack.undo.undoMenuItemTitle == "Undo")
        try group(stack, employee, 2, name: "Raise")
        #expect(stack.undo.undoActionName == "Raise")
        #expect(stack.undo.undoMenuItemTitle == "Undo Raise")
        try stack.undo.undo()
        #expect(stack.undo.redoActionName == "Raise")
        #expect(stack.undo.redoMenuItemTitle == "Redo Raise")
        #expect(stack.undo.undoActionName == "")
        #expect(stack.undo.undoMenuTitle(forUndoActionName: "") == "Undo")
        #expect(stack.undo.undoMenuTitle(forUndoActionName: "Cut") == "Undo Cut")
        #expect(stack.undo.redoMenuTitle(forUndoActionName: "") == "Redo")
        #expect(stack.undo.redoMenuTitle(forUndoActionName: "Cut") == "Redo Cut")
    }

    @Test func theActionNameIsEmptyOnceTheOldestGroupsFellOffAndTheStackIsEmpty() throws {
        let (stack, employee) = try fixture()
        stack.undo.levelsOfUndo = 2
        try group(stack, employee, 1, name: "One")
        try group(stack, employee, 2, name: "Two")
        try group(stack, employee, 3, name: "Three")
        #expect(stack.undo.undoActionName == "Three")
        try stack.undo.undo()
        #expect(stack.undo.undoActionName == "Two")
        try stack.undo.undo()
        #expect(!stack.undo.canUndo)
        #expect(stack.undo.undoActionName == "", "'One' fell off, so no name is left")
        #expect(stack.undo.undoMenuItemTitle == "Undo")
    }

    // MARK: Grouping

    @Test func nestedGroupsAreUndoneAsOneUnit() throws {
        let (stack, employee) = try fixture(salary: 1)
        stack.undo.beginUndoGrouping()
        try employee.setValue(.integer(2), forKey: "salary")
        stack.undo.beginUndoGrouping()
        #expect(stack.undo.groupingLevel == 2)
        try employee.setValue(.string("Byron"), forKey: "lastName")
        try stack.undo.endUndoGrouping()
        let project = try stack.project()
        try stack.undo.endUndoGrouping()
        #expect(stack.undo.undoCount == 1)

        try stack.undo.undo()
        #expect(try salary(employee) == 1)
        #expect(try employee.string("lastName") == "Lovelace")
        #expect(project.isDeleted || project.isInvalid)
        #expect(!stack.undo.canUndo)
        try stack.undo.redo()
        #expect(try salary(employee) == 2)
        #expect(try employee.string("lastName") == "Byron")
    }

    @Test func undoNestedGroupUndoesOnlyTheLastNestedGroup() throws {
        let (stack, employee) = try fixture(salary: 1)
        stack.undo.beginUndoGrouping()
        stack.undo.beginUndoGrouping()
        try employee.setValue(.integer(2), forKey: "salary")
        try stack.undo.endUndoGrouping()
        stack.undo.beginUndoGrouping()
        try employee.setValue(.string("Byron"), forKey: "lastName")
        try stack.undo.endUndoGrouping()

        try stack.undo.undoNestedGroup()
        #expect(stack.undo.groupingLevel == 1)
        #expect(try employee.string("lastName") == "Lovelace")
        #expect(try salary(employee) == 2, "only the last nested group was undone")
        try stack.undo.endUndoGrouping()

        try stack.undo.undo()
        #expect(try salary(employee) == 1)
    }

    @Test func undoNestedGroupWithNoGroupOpenUndoesTheLastTopLevelGroup() throws {
        let (stack, employee) = try fixture(salary: 1)
        try group(stack, employee, 2)
        try group(stack, employee, 3)
        try stack.undo.undoNestedGroup()
        #expect(try salary(employee) == 2)
        #expect(stack.undo.canRedo)
    }

    @Test func eachFlushOutsideAnExplicitGroupIsOneGroup() throws {
        let (stack, employee) = try fixture(salary: 1)
        try group(stack, employee, 2)
        try group(stack, employee, 3)
        #expect(stack.undo.undoCount == 2)
        try stack.undo.undo()
        #expect(try salary(employee) == 2)
    }

    @Test func unflushedChangesAreFlushedAndUndoneByUndo() throws {
        let (stack, employee) = try fixture(salary: 1)
        try employee.setValue(.integer(2), forKey: "salary")
        #expect(stack.undo.canUndo, "unflushed changes count as undoable")
        try stack.undo.undo()
        #expect(try salary(employee) == 1)
    }

    // MARK: Undo, redo and their state

    @Test func undoAndRedoMoveGroupsBetweenTheStacks() throws {
        let (stack, employee) = try fixture(salary: 1)
        #expect(!stack.undo.canUndo && !stack.undo.canRedo)
        try group(stack, employee, 2)
        #expect(stack.undo.canUndo && !stack.undo.canRedo)
        try stack.undo.undo()
        #expect(try salary(employee) == 1)
        #expect(!stack.undo.canUndo && stack.undo.canRedo)
        try stack.undo.redo()
        #expect(try salary(employee) == 2)
        #expect(stack.undo.canUndo && !stack.undo.canRedo)
        #expect(!stack.undo.isUndoing && !stack.undo.isRedoing)
    }

    @Test func isUndoingAndIsRedoingAreTrueWhileTheChangesAreApplied() throws {
        let (stack, employee) = try fixture(salary: 1)
        try group(stack, employee, 2)
        nonisolated(unsafe) let manager = stack.undo
        let seen = LockedBox<[String]>([])
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.objectsDidChangeNotification, object: stack.context, queue: nil
        ) { _ in
            seen.mutate { $0.append("undoing=\(manager.isUndoing) redoing=\(manager.isRedoing)") }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try stack.undo.undo()
        try stack.undo.redo()
        #expect(seen.value == ["undoing=true redoing=false", "undoing=false redoing=true"])
    }

    @Test func aNewChangeAfterUndoClearsTheRedoStack() throws {
        let (stack, employee) = try fixture(salary: 1)
        try group(stack, employee, 2)
        try group(stack, employee, 3)
        try stack.undo.undo()
        try stack.undo.undo()
        #expect(stack.undo.redoCount == 2)
        try group(stack, employee, 9)
        #expect(!stack.undo.canRedo)
        try stack.undo.redo()  // nothing to redo
        #expect(try salary(employee) == 9)
    }

    @Test func removeAllActionsClearsBothStacks() throws {
        let (stack, employee) = try fixture(salary: 1)
        try group(stack, employee, 2)
        try group(stack, employee, 3)
        try stack.undo.undo()
        #expect(stack.undo.canUndo && stack.undo.canRedo)
        stack.undo.removeAllActions()
        #expect(!stack.undo.canUndo && !stack.undo.canRedo)
        try stack.undo.undo()
        #expect(try salary(employee) == 2)
    }

    // MARK: Notifications

    @Test func groupingUndoAndRedoPostTheirNotifications() throws {
        let (stack, employee) = try fixture(salary: 1)
        typealias M = ContextUndoManager
        let recorder = NotificationRecorder([
            M.didOpenUndoGroupNotification, M.didCloseUndoGroupNotification, M.willUndoNotification,
            M.didUndoNotification, M.willRedoNotification, M.didRedoNotification, M.checkpointNotification,
        ], object: stack.undo)

        stack.undo.beginUndoGrouping()
        try employee.setValue(.integer(2), forKey: "salary")
        try stack.undo.endUndoGrouping()
        #expect(recorder.names == [
            M.didOpenUndoGroupNotification, M.checkpointNotification,
            M.checkpointNotification, M.didCloseUndoGroupNotification,
        ])
        recorder.clear()

        try stack.undo.undo()
        #expect(recorder.names.first == M.willUndoNotification)
        #expect(recorder.names.last == M.didUndoNotification)
        recorder.clear()

        try stack.undo.redo()
        #expect(recorder.names.first == M.willRedoNotification)
        #expect(recorder.names.last == M.didRedoNotification)
        recorder.clear()

        // A group formed by an event (a flush outside explicit groups) opens and closes too.
        try group(stack, employee, 3)
        #expect(recorder.names.contains(M.didOpenUndoGroupNotification))
        #expect(recorder.names.contains(M.didCloseUndoGroupNotification))
    }

    // MARK: Lifetime

    @Test func anUndoManagerThatOutlivesItsContextForgetsIt() throws {
        let stack = Stack()
        let manager = ContextUndoManager()
        do {
            let context = stack.newContext()
            context.undoManager = manager
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.integer(1), forKey: "salary")
            context.processPendingChanges()
            #expect(manager.canUndo)
            #expect(manager.context === context)
        }
        // The manager holds its context unowned: the context's end must clear it.
        #expect(manager.context == nil)
        try manager.undo()   // nothing to replay into: a no-op, not a crash
        #expect(!manager.isUndoing)
    }

    @Test func anUndoManagerHandedToAnotherContextStaysWithIt() throws {
        let stack = Stack()
        let manager = ContextUndoManager()
        let second = stack.newContext()
        do {
            let first = stack.newContext()
            first.undoManager = manager
            second.undoManager = manager
            #expect(manager.context === second)
        }
        // The first context's end leaves the manager with the second.
        #expect(manager.context === second)
        let employee = try second.insertObject(forEntityName: "Employee")
        try employee.setValue(.integer(7), forKey: "salary")
        second.processPendingChanges()
        try manager.undo()
        #expect(second.insertedObjects.isEmpty)   // the undo reached the second context

        // Replacing the manager detaches the old one.
        second.undoManager = ContextUndoManager()
        #expect(manager.context == nil)
    }
}
