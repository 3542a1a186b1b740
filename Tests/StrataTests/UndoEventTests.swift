import Dispatch
import Foundation
import Testing
@testable import Strata

/// docs/ARCHITECTURE.md "Undo", docs/SEMANTICS.md §4: without a run loop, a `perform` or
/// `performAndWait` block and a main-queue turn that changed something are events; their
/// end processes pending changes and closes the event's undo group.
@Suite struct UndoEvents {
    @Test func aPerformAndWaitBlockIsOneUndoStepWithoutProcessingPendingChangesByHand() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 1)
        stack.undo.removeAllActions()
        stack.context.performAndWait {
            try? employee.setValue(.integer(2), forKey: "salary")
            stack.context.processPendingChanges()
            #expect(stack.undo.groupingLevel == 1, "the event's group stays open until the block ends")
            try? employee.setValue(.integer(3), forKey: "salary")
            stack.context.processPendingChanges()
            try? employee.setValue(.string("Byron"), forKey: "lastName")
        }
        #expect(stack.undo.groupingLevel == 0)
        #expect(stack.context.flushSet.isEmpty, "the block's end processed the pending change")
        #expect(stack.undo.undoCount == 1)
        try stack.undo.undo()
        #expect(try employee.int("salary") == 1)
        #expect(try employee.string("lastName") == "Lovelace")
    }

    @Test func nestedBlocksEndTheEventOnlyAtTheOutermost() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 1)
        stack.undo.removeAllActions()
        stack.context.performAndWait {
            try? employee.setValue(.integer(2), forKey: "salary")
            stack.context.performAndWait { try? employee.setValue(.integer(3), forKey: "salary") }
            #expect(stack.context.flushSet.isEmpty == false, "the inner block did not end the event")
            stack.context.processPendingChanges()
            try? employee.setValue(.integer(4), forKey: "salary")
        }
        #expect(stack.undo.undoCount == 1)
    }

    @Test func eachBlockIsItsOwnStep() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 1)
        stack.undo.removeAllActions()
        for salary: Int64 in [2, 3, 4] {
            stack.context.performAndWait { try? employee.setValue(.integer(salary), forKey: "salary") }
        }
        #expect(stack.undo.undoCount == 3)
        try stack.undo.undo()
        #expect(try employee.int("salary") == 3)
    }

    @Test func aBlockThatChangesNothingLeavesNoGroup() throws {
        let stack = Stack()
        _ = try stack.savedEmployee()
        stack.undo.removeAllActions()
        stack.context.performAndWait {}
        #expect(stack.undo.undoCount == 0 && stack.undo.groupingLevel == 0)
    }

    @Test func outsideABlockAConfinementContextKeepsOneGroupPerFlush() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 1)
        stack.undo.removeAllActions()
        try employee.setValue(.integer(2), forKey: "salary")
        stack.context.processPendingChanges()
        #expect(stack.undo.groupingLevel == 0)
        try employee.setValue(.integer(3), forKey: "salary")
        stack.context.processPendingChanges()
        #expect(stack.undo.undoCount == 2)
    }

    @Test func aPrivateQueuePerformIsOneStep() async throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 1).objectID
        let background = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue)
        try await background.perform {
            let employee = try background.existingObject(with: id)
            try employee.setValue(.integer(2), forKey: "salary")
            background.processPendingChanges()
            try employee.setValue(.integer(3), forKey: "salary")
        }
        let (count, level) = await background.perform { (background.undoManager!.undoCount, background.undoManager!.groupingLevel) }
        #expect(count == 1 && level == 0)
    }

    @MainActor @Test func aMainQueueTurnThatChangedSomethingIsOneStep() async throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 1).objectID
        let ui = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .mainQueue)
        let undo = try #require(ui.undoManager)
        let employee = try ui.existingObject(with: id)
        try employee.setValue(.integer(2), forKey: "salary")
        ui.processPendingChanges()
        #expect(undo.groupingLevel == 1, "the turn's group is open")
        try employee.setValue(.integer(3), forKey: "salary")
        await nextMainQueueTurn()
        #expect(undo.groupingLevel == 0)
        #expect(ui.flushSet.isEmpty, "the turn's end processed the pending change")
        #expect(undo.undoCount == 1)

        try employee.setValue(.integer(4), forKey: "salary")
        await nextMainQueueTurn()
        #expect(undo.undoCount == 2, "the next turn is the next step")
        try undo.undo()
        try undo.undo()
        #expect(try employee.int("salary") == 1)
    }

    /// Lets the main queue run what was queued before this call.
    @MainActor private func nextMainQueueTurn() async {
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
    }
}
