import Foundation
import Testing
@testable import Strata

/// A selection, as an editor would attach it to an undo group.
struct TextSelection: Sendable, Equatable {
    var start: Int
    var end: Int
}

/// docs/SEMANTICS.md §4: per-group metadata, attached when a group is registered and
/// handed back by undo and redo.
@Suite struct UndoMetadata {
    @Test func metadataRoundTripsThroughUndoAndRedo() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 1)
        stack.undo.removeAllActions()
        try employee.setValue(.integer(2), forKey: "salary")
        stack.undo.setGroupMetadata(TextSelection(start: 3, end: 5))
        try employee.setValue(.integer(3), forKey: "salary")
        stack.undo.setGroupMetadata(TextSelection(start: 7, end: 7))

        #expect(stack.undo.undoGroupMetadata as? TextSelection == TextSelection(start: 7, end: 7))
        #expect(try stack.undo.undo() as? TextSelection == TextSelection(start: 7, end: 7))
        #expect(stack.undo.redoGroupMetadata as? TextSelection == TextSelection(start: 7, end: 7))
        #expect(try stack.undo.undo() as? TextSelection == TextSelection(start: 3, end: 5))
        #expect(try stack.undo.redo() as? TextSelection == TextSelection(start: 3, end: 5))
        #expect(try stack.undo.redo() as? TextSelection == TextSelection(start: 7, end: 7))
        #expect(try stack.undo.undo() as? TextSelection == TextSelection(start: 7, end: 7), "it survives a second round")
    }

    @Test func metadataSetInsideAnExplicitGroupBelongsToTheGroup() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 1)
        stack.undo.removeAllActions()
        stack.undo.beginUndoGrouping()
        try employee.setValue(.integer(2), forKey: "salary")
        stack.undo.setGroupMetadata(TextSelection(start: 1, end: 1))
        try stack.undo.endUndoGrouping()
        #expect(try stack.undo.undo() as? TextSelection == TextSelection(start: 1, end: 1))
    }

    @Test func aGroupWithoutMetadataGivesNil() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 1)
        stack.undo.removeAllActions()
        try employee.setValue(.integer(2), forKey: "salary")
        #expect(try stack.undo.undo() == nil)
        #expect(try stack.undo.undo() == nil, "nothing to undo")
    }

    @Test func coalescedGroupsKeepTheSelectionFromBeforeTheRun() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee("A", "Lovelace")
        stack.undo.removeAllActions()
        stack.undo.coalescingInterval = 60
        for (offset, character) in "da".enumerated() {
            try employee.setValue(.string((try employee.string("firstName") ?? "") + String(character)), forKey: "firstName")
            stack.undo.setGroupMetadata(TextSelection(start: 1 + offset, end: 1 + offset))
            stack.undo.setActionName("Typing")
        }
        #expect(try stack.undo.undo() as? TextSelection == TextSelection(start: 1, end: 1))
    }
}
