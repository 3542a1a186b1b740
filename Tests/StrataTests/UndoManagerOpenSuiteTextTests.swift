import Foundation
import Testing
import Strata

/// docs/SEMANTICS.md §4: the cases of the public GNUstep undo test file
/// (`NSUndoManager_basic`), rebuilt on a `ContextUndoManager` that no context owns.
@Suite struct UndoManagerOpenSuiteTextCases {

    @Test func theInitialState() {
        let undo = ContextUndoManager()
        #expect(undo.levelsOfUndo == 0 && undo.groupingLevel == 0)
        #expect(undo.isUndoRegistrationEnabled && undo.groupsByEvent)
        #expect(!undo.isUndoing && !undo.isRedoing)
    }

    /// A text whose setter checks, each time it runs, that the manager says whether it is
    /// undoing or redoing as the caller expects.
    private final class Text {
        let undo: ContextUndoManager
        var text: String?
        var expectUndoing = false, expectRedoing = false
        var sane = true
        init(undo: ContextUndoManager) { self.undo = undo }
        func set(_ text: String?) throws {
            if undo.isUndoing != expectUndoing || undo.isRedoing != expectRedoing { sane = false }
            let old = self.text
            try undo.registerUndo(withTarget: self) { target in try target.set(old) }
            self.text = text
        }
        func inGroup(_ text: String?) throws {
            expectUndoing = false
            expectRedoing = false
            undo.beginUndoGrouping()
            try set(text)
            try undo.endUndoGrouping()
        }
        func undoOnce() throws -> String? {
            expectUndoing = true
            expectRedoing = false
            try undo.undo()
            return text
        }
        func redoOnce() throws -> String? {
            expectUndoing = false
            expectRedoing = true
            try undo.redo()
            return text
        }
    }

    @Test func singleAndMultiLevelUndoAndRedoWithExplicitGroups() throws {
        let undo = ContextUndoManager()
        undo.groupsByEvent = false
        let text = Text(undo: undo)
        try text.inGroup("one")
        #expect(try text.undoOnce() == nil)
        #expect(try text.redoOnce() == "one")
        try text.inGroup("two")
        try text.inGroup("three")
        #expect(try [text.undoOnce(), text.undoOnce(), text.undoOnce()] == ["two", "one", nil])
        #expect(try [text.redoOnce(), text.redoOnce(), text.redoOnce()] == ["one", "two", "three"])
        try text.inGroup("four")
        try text.inGroup("five")
        #expect(try text.undoOnce() == "four")
        #expect(try text.redoOnce() == "five")
        try text.inGroup("six")
        #expect(try [text.undoOnce(), text.undoOnce()] == ["five", "four"])
        #expect(try [text.redoOnce(), text.redoOnce()] == ["five", "six"])
        #expect(try (0..<6).map { _ in try text.undoOnce() } == ["five", "four", "three", "two", "one", nil])
        #expect(try (0..<6).map { _ in try text.redoOnce() } == ["one", "two", "three", "four", "five", "six"])
        #expect(text.sane, "isUndoing and isRedoing are set while the handlers run")
    }

    @Test func aGroupOfTwoTargetsIsUndoneAndRedoneTogether() throws {
        let undo = ContextUndoManager()
        undo.groupsByEvent = false
        let text = Text(undo: undo)
        let number = UndoableNumber(0, undo: undo)
        undo.beginUndoGrouping()
        try number.update(7)
        try text.set("seven")
        try undo.endUndoGrouping()
        undo.beginUndoGrouping()
        try number.update(8)
        try text.set("eight")
        try undo.endUndoGrouping()
        try undo.undo()
        #expect(number.value == 7 && text.text == "seven")
        try undo.redo()
        #expect(number.value == 8 && text.text == "eight")
    }

    @Test func withTwoLevelsOfUndoOnlyTheLastTwoGroupsAreKept() throws {
        let undo = ContextUndoManager()
        undo.groupsByEvent = false
        undo.levelsOfUndo = 2
        #expect(undo.levelsOfUndo == 2)
        let text = Text(undo: undo)
        for value in ["one", "two", "three", "four"] { try text.inGroup(value) }
        #expect(try [text.undoOnce(), text.undoOnce(), text.undoOnce()] == ["three", "two", "two"])
        #expect(try [text.redoOnce(), text.redoOnce(), text.redoOnce()] == ["three", "four", "four"])
    }

    @Test func registeringOutsideAnyGroupWithGroupsByEventOffIsAnError() throws {
        let undo = ContextUndoManager()
        undo.groupsByEvent = false
        #expect(throws: StrataError.self) { try undo.registerUndo(withTarget: Text(undo: undo)) { _ in } }
    }

    @Test func anUndoneActionReleasesItsTarget() throws {
        let undo = ContextUndoManager()
        undo.groupsByEvent = false
        weak var released: UndoableValue?
        do {
            let target = UndoableValue(0)
            released = target
            undo.beginUndoGrouping()
            try undo.registerUndo(withTarget: target) { _ in }
            try undo.endUndoGrouping()
        }
        #expect(released != nil, "the manager holds its target")
        try undo.undo()
        #expect(released == nil, "and lets it go once the action ran")
    }
}
