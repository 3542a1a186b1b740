import Foundation
import Testing
import Strata

/// A number whose changes register their inverse, the way the undo test suites of open
/// Foundation implementations drive `NSUndoManager`.
final class UndoableNumber {
    let undo: ContextUndoManager
    var value: Int
    var history: [Int] = []
    init(_ value: Int, undo: ContextUndoManager = ContextUndoManager()) {
        self.value = value
        self.undo = undo
    }

    /// Registers setting the old value back, then sets the new one.
    func update(_ value: Int) throws {
        let old = self.value
        try undo.registerUndo(withTarget: self) { number in try number.update(old) }
        self.value = value
    }

    /// The same change as a group of its own.
    func updateInOwnGroup(_ value: Int) throws {
        undo.beginUndoGrouping()
        try update(value)
        try undo.endUndoGrouping()
    }
}

/// docs/SEMANTICS.md §4: the cases of the public WinObjC undo test file (`NSUndoManagerTests`),
/// rebuilt on a `ContextUndoManager` that no context owns. Such a manager has no events that
/// end on their own, as an `NSUndoManager` whose run loop does not turn: the group
/// `groupsByEvent` opens stays open until `undo()` (or `endUndoGrouping()`) closes it.
@Suite struct UndoManagerOpenSuiteCases {
    @Test func basicUndo() throws {
        let number = UndoableNumber(5)
        #expect(!number.undo.canUndo)
        try number.update(6)
        #expect(number.undo.canUndo && number.value == 6)
        try number.undo.undo()
        #expect(number.value == 5 && !number.undo.canUndo)
    }

    @Test func registrationsOutsideAnyGroupShareTheEventsGroup() throws {
        let number = UndoableNumber(5)
        for value in [6, 7, 8] { try number.update(value) }
        #expect(number.value == 8)
        try number.undo.undo()
        #expect(number.value == 5 && !number.undo.canUndo)
    }

    @Test func undoThenRedoThenUndo() throws {
        let number = UndoableNumber(5)
        for value in [6, 7, 8] { try number.update(value) }
        try number.undo.undo()
        #expect(number.undo.canRedo && number.value == 5)
        try number.undo.redo()
        #expect(number.value == 8 && !number.undo.canRedo)
        try number.undo.undo()
        #expect(number.value == 5 && number.undo.canRedo)
    }

    @Test func undoAndRedoOfAMutableCollection() throws {
        let undo = ContextUndoManager()
        final class Numbers { var items: [Int] = [] }
        let numbers = Numbers()
        func add(_ value: Int) throws {
            try undo.registerUndo(withTarget: numbers) { _ in try remove(value) }
            numbers.items.append(value)
        }
        func remove(_ value: Int) throws {
            try undo.registerUndo(withTarget: numbers) { _ in try add(value) }
            numbers.items.removeAll { $0 == value }
        }
        for value in [5, 6, 7] { try add(value) }
        #expect(numbers.items == [5, 6, 7])
        try undo.undo()
        #expect(numbers.items.isEmpty)
        try undo.redo()
        #expect(numbers.items == [5, 6, 7])
    }

    @Test func undoWithNothingLeftToUndoDoesNothing() throws {
        let number = UndoableNumber(5)
        try number.update(6)
        try number.undo.undo()
        try number.undo.undo()
        #expect(number.value == 5)
    }

    @Test func undoNestedGroupUndoesTheGroupsInsideTheEventsGroupOneByOne() throws {
        let number = UndoableNumber(5)
        for value in [5, 6, 7, 8] { try number.updateInOwnGroup(value) }
        #expect(number.value == 8)
        for expected in [7, 6, 5] {
            try number.undo.undoNestedGroup()
            #expect(number.value == expected)
        }
    }

    @Test func withGroupsByEventOffEachGroupIsTopLevel() throws {
        let number = UndoableNumber(5)
        number.undo.groupsByEvent = false
        for value in [5, 6, 7, 8] { try number.updateInOwnGroup(value) }
        for expected in [7, 6, 5] {
            try number.undo.undo()
            #expect(number.value == expected)
        }
    }

    @Test func undoNestedGroupAndRedoInterleaved() throws {
        let number = UndoableNumber(5)
        for value in [5, 6, 7, 8] { try number.updateInOwnGroup(value) }
        try number.undo.undoNestedGroup()
        try number.undo.undoNestedGroup()
        #expect(number.value == 6)
        try number.undo.redo()
        #expect(number.value == 7)
        try number.undo.redo()
        #expect(number.value == 8)
        try number.undo.undoNestedGroup()
        #expect(number.value == 7)
        try number.undo.undoNestedGroup()
        #expect(number.value == 6)
    }

    @Test func endingAGroupNeverBegunAndUndoInsideAnExplicitGroupAreErrors() throws {
        #expect(throws: StrataError.self) { try UndoableNumber(5).undo.endUndoGrouping() }
        let number = UndoableNumber(5)
        number.undo.beginUndoGrouping()
        #expect(throws: StrataError.self) { try number.undo.undo() }
    }

    @Test func registrationEnablingNests() throws {
        let undo = ContextUndoManager()
        undo.disableUndoRegistration()
        #expect(!undo.isUndoRegistrationEnabled)
        undo.disableUndoRegistration()
        try undo.enableUndoRegistration()
        #expect(!undo.isUndoRegistrationEnabled)
        try undo.enableUndoRegistration()
        #expect(undo.isUndoRegistrationEnabled)
        #expect(throws: StrataError.self) { try undo.enableUndoRegistration() }
    }

    @Test func groupingLevelCountsTheEventsGroup() throws {
        var number = UndoableNumber(5)
        #expect(number.undo.groupingLevel == 0)
        for value in [6, 7, 8] { try number.update(value) }
        #expect(number.undo.groupingLevel == 1)
        try number.undo.undo()
        try number.undo.redo()
        #expect(number.undo.groupingLevel == 0)
        try number.undo.undo()
        #expect(number.undo.groupingLevel == 0)

        number = UndoableNumber(5)
        let undo = number.undo
        undo.beginUndoGrouping()
        #expect(undo.groupingLevel == 2, "the event's group, and the explicit one in it")
        try number.update(6)
        try undo.endUndoGrouping()
        #expect(undo.groupingLevel == 1)
        try number.updateInOwnGroup(7)
        try number.updateInOwnGroup(8)
        #expect(undo.groupingLevel == 1)
        try undo.undo()
        #expect(undo.groupingLevel == 0 && number.value == 5)

        undo.beginUndoGrouping()
        try number.updateInOwnGroup(6)
        undo.beginUndoGrouping()
        try number.updateInOwnGroup(7)
        undo.beginUndoGrouping()
        try number.updateInOwnGroup(8)
        #expect(undo.groupingLevel == 4)
        try undo.endUndoGrouping()
        #expect(undo.groupingLevel == 3)
        try undo.endUndoGrouping()
        #expect(undo.groupingLevel == 2)
        undo.beginUndoGrouping()
        #expect(undo.groupingLevel == 3)
        try undo.endUndoGrouping()
        try undo.endUndoGrouping()
        try undo.undo()
        #expect(undo.groupingLevel == 0)
        try undo.redo()
        #expect(undo.groupingLevel == 0)
        for _ in 0..<3 { undo.beginUndoGrouping() }
        #expect(undo.groupingLevel == 4)
    }

    @Test func undoNestedGroupAfterClosingTheEventsGroupUndoesIt() throws {
        let number = UndoableNumber(5)
        try number.update(6)
        try number.update(7)
        #expect(number.undo.groupingLevel == 1 && number.undo.canUndo && number.value == 7)
        try number.undo.endUndoGrouping()
        try number.undo.undoNestedGroup()
        #expect(number.value == 5)
    }

    @Test func explicitGroupsWithGroupsByEventOff() throws {
        let number = UndoableNumber(5)
        number.undo.groupsByEvent = false
        number.undo.beginUndoGrouping()
        try number.update(6)
        #expect(number.undo.canUndo && number.value == 6)
        try number.undo.endUndoGrouping()
        try number.undo.undo()
        #expect(number.value == 5 && !number.undo.canUndo)
    }

    @Test func nestedGroupsAreUndoneWithTheirTopLevelGroup() throws {
        let number = UndoableNumber(5)
        let undo = number.undo
        undo.groupsByEvent = false
        try number.updateInOwnGroup(6)
        undo.beginUndoGrouping()
        try number.updateInOwnGroup(7)
        try number.update(8)
        try undo.endUndoGrouping()
        #expect(number.value == 8)
        try undo.undo()
        #expect(number.value == 6)
        try undo.undo()
        #expect(number.value == 5)
    }

    @Test func undoNestedGroupWithGroupsByEventOffUndoesTopLevelGroups() throws {
        let number = UndoableNumber(5)
        number.undo.groupsByEvent = false
        for value in [6, 7, 8] { try number.updateInOwnGroup(value) }
        try number.undo.undoNestedGroup()
        #expect(number.value == 7)
        try number.undo.undoNestedGroup()
        #expect(number.value == 6)
    }

    @Test func removingOneOfSeveralTargetsKeepsTheOthersUndoable() throws {
        let undo = ContextUndoManager()
        let first = UndoableNumber(15, undo: undo), second = UndoableNumber(25, undo: undo), third = UndoableNumber(35, undo: undo)
        func values() -> [Int] { [first.value, second.value, third.value] }
        try first.updateInOwnGroup(16)
        try second.updateInOwnGroup(26)
        try first.updateInOwnGroup(17)
        #expect(values() == [17, 26, 35])
        try undo.undoNestedGroup()
        #expect(values() == [16, 26, 35])
        try third.updateInOwnGroup(36)
        #expect(values() == [16, 26, 36])
        undo.beginUndoGrouping()
        try first.updateInOwnGroup(17)
        try second.updateInOwnGroup(27)
        try third.updateInOwnGroup(37)
        try undo.endUndoGrouping()
        #expect(values() == [17, 27, 37])
        try undo.undoNestedGroup()
        #expect(values() == [16, 26, 36])
        try undo.redo()
        #expect(values() == [17, 27, 37])
        undo.removeAllActions(withTarget: second)
        try undo.undoNestedGroup()
        #expect(values() == [16, 27, 36])
        try undo.undoNestedGroup()
        #expect(values() == [16, 27, 35])
        try undo.undo()
        #expect(values() == [15, 27, 35])
    }

    @Test func withThreeLevelsOfUndoTheOldestGroupFallsOff() throws {
        let number = UndoableNumber(1)
        number.undo.groupsByEvent = false
        number.undo.levelsOfUndo = 3
        for value in [2, 3, 4, 5] { try number.updateInOwnGroup(value) }
        #expect(number.value == 5)
        for expectedCanUndo in [true, true, false] {
            try number.undo.undo()
            #expect(number.undo.canUndo == expectedCanUndo)
        }
        try number.undo.undo()
        #expect(number.value == 2)
    }

    @Test func anEmptyGroupIsAnUndoStep() throws {
        let undo = ContextUndoManager()
        undo.groupsByEvent = false
        undo.beginUndoGrouping()
        try undo.endUndoGrouping()
        #expect(undo.canUndo)
    }

    @Test func removingATargetDropsEveryGroupItWasAloneIn() throws {
        let undo = ContextUndoManager()
        undo.groupsByEvent = false
        let first = UndoableNumber(15, undo: undo), second = UndoableNumber(25, undo: undo)
        for value in [26, 27] {
            undo.beginUndoGrouping()
            try second.updateInOwnGroup(value)
            try undo.endUndoGrouping()
        }
        undo.beginUndoGrouping()
        undo.beginUndoGrouping()
        try first.updateInOwnGroup(16)
        try undo.endUndoGrouping()
        try undo.endUndoGrouping()
        undo.beginUndoGrouping()
        try first.updateInOwnGroup(17)
        try undo.endUndoGrouping()
        #expect(first.value == 17 && second.value == 27)
        undo.removeAllActions(withTarget: first)
        try undo.undo()
        #expect(first.value == 17 && second.value == 26 && undo.canUndo)
        try undo.undo()
        #expect(first.value == 17 && second.value == 25 && !undo.canUndo)
        try undo.undo()
        #expect(first.value == 17 && second.value == 25)
    }
}
