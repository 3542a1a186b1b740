import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §4: coalescing by time (`coalescingInterval`): consecutive groups with
/// the same action name within the interval are one undo step, as an editor's typing is.
@Suite struct UndoCoalescing {
    /// Types `text` one character per flush into the employee's first name, naming each
    /// group "Typing".
    private func type(_ text: String, into employee: ManagedObject, _ stack: Stack) throws {
        for character in text {
            let current = try employee.string("firstName") ?? ""
            try employee.setValue(.string(current + String(character)), forKey: "firstName")
            stack.context.processPendingChanges()
            stack.undo.setActionName("Typing")
        }
    }

    private func fixture() throws -> (Stack, ManagedObject) {
        let stack = Stack()
        let employee = try stack.savedEmployee("A", "Lovelace")
        stack.undo.removeAllActions()
        return (stack, employee)
    }

    @Test func typingAWordWithinTheIntervalIsOneUndoStep() throws {
        let (stack, employee) = try fixture()
        stack.undo.coalescingInterval = 60
        try type("da", into: employee, stack)
        #expect(stack.undo.undoCount == 1)
        try stack.undo.undo()
        #expect(try employee.string("firstName") == "A")
        try stack.undo.redo()
        #expect(try employee.string("firstName") == "Ada")
        #expect(stack.context.log.unsavedGroups().count == 3, "the user group, its undo and its redo")
    }

    @Test func withoutAnIntervalEveryFlushIsAStep() throws {
        let (stack, employee) = try fixture()
        try type("da", into: employee, stack)
        #expect(stack.undo.undoCount == 2)
    }

    @Test func anotherActionNameStartsANewStep() throws {
        let (stack, employee) = try fixture()
        stack.undo.coalescingInterval = 60
        try type("da", into: employee, stack)
        try employee.setValue(.integer(5), forKey: "salary")
        stack.context.processPendingChanges()
        stack.undo.setActionName("Raise")
        try type("!", into: employee, stack)
        #expect(stack.undo.undoCount == 3)
    }

    @Test func aPauseLongerThanTheIntervalStartsANewStep() throws {
        let (stack, employee) = try fixture()
        stack.undo.coalescingInterval = 0.05
        try type("d", into: employee, stack)
        Thread.sleep(forTimeInterval: 0.1)
        try type("a", into: employee, stack)
        #expect(stack.undo.undoCount == 2)
    }

    @Test func aSavedWordStaysOneGroupInTheDocumentLog() throws {
        let (stack, employee) = try fixture()
        stack.undo.coalescingInterval = 60
        try type("da", into: employee, stack)
        let groups = stack.context.log.unsavedGroups()
        #expect(groups.count == 1 && groups[0].actionName == "Typing")
        try stack.context.save()
        try stack.undo.undo()
        #expect(try employee.string("firstName") == "A")
    }

    @Test func namedInsideAnEventTheGroupCoalescesWhenTheEventEnds() throws {
        let (stack, employee) = try fixture()
        stack.undo.coalescingInterval = 60
        for character in "da" {
            stack.context.performAndWait {
                let current = (try? employee.string("firstName")) ?? ""
                try? employee.setValue(.string(current + String(character)), forKey: "firstName")
                stack.undo.setActionName("Typing")
            }
        }
        #expect(stack.undo.undoCount == 1)
    }

    @Test func aReopenedDocumentHasTheCoalescedWordAsOneGroup() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let uri: URL
        do {
            let stack = try DocumentStack.create(url)
            let employee = try stack.context.insertObject(forEntityName: "Employee")
            try employee.setValue("A", forKey: "firstName")
            try employee.setValue("Lovelace", forKey: "lastName")
            stack.undo.setActionName("Hire")
            try stack.context.save()
            stack.undo.coalescingInterval = 60
            for character in "da" {
                try employee.setValue(.string((try employee.string("firstName") ?? "") + String(character)), forKey: "firstName")
                stack.context.processPendingChanges()
                stack.undo.setActionName("Typing")
                try stack.context.save()   // an autosave after each keystroke
            }
            #expect(stack.undo.undoGroups.map(\.actionName) == ["Hire", "Typing"])
            uri = employee.objectID.uriRepresentation()
            try stack.store.close()
        }
        let verification = try DocumentVerifier.verify(url)
        #expect(verification.isValid, "\(verification.problems)")
        let stack = try DocumentStack.open(url)
        try stack.context.restoreUndoHistory()
        #expect(stack.undo.undoGroups.map(\.actionName) == ["Hire", "Typing"])
        let ada = try stack.object(uri)
        try stack.undo.undo()
        #expect(try ada.string("firstName") == "A")
    }
}
