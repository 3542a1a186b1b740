import Foundation
import OrderedCollections
import Testing
@testable import Strata

/// docs/SEMANTICS.md §3: `processPendingChanges()` coalesces the changes of one flush, per object.
@Suite struct ChangeCoalescing {
    /// The operations of the one batch the last flush appended.
    func onlyBatch(_ context: ManagedObjectContext) throws -> [ChangeOperation] {
        try #require(context.log.unsaved.count == 1, "expected one batch, got \(context.log.unsaved.count)")
        return context.log.unsaved[0].operations
    }

    @Test func severalSetsOfOneKeyAreOneChangeFromTheFirstOldValueToTheLastNewOne() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        for salary: Int64 in [200, 300, 400] { try employee.setValue(.integer(salary), forKey: "salary") }
        stack.context.processPendingChanges()
        let operations = try onlyBatch(stack.context)
        #expect(operations == [
            .update(employee.objectID, changes: [SlotChange(slot: employee.slot("salary"), old: .integer(100), new: .integer(400))]),
        ])
    }

    @Test func severalKeysOfOneObjectAreOneUpdate() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        try employee.setValue(.string("Byron"), forKey: "lastName")
        try employee.setValue(.integer(1), forKey: "salary")
        try employee.setValue(.string("King"), forKey: "lastName")
        stack.context.processPendingChanges()
        let operations = try onlyBatch(stack.context)
        #expect(operations.count == 1)
        guard case .update(let id, let changes) = operations.first else {
            Issue.record("expected an update, got \(operations)")
            return
        }
        #expect(id == employee.objectID)
        #expect(Set(changes) == [
            SlotChange(slot: employee.slot("lastName"), old: .string("Lovelace"), new: .string("King")),
            SlotChange(slot: employee.slot("salary"), old: .integer(100), new: .integer(1)),
        ])
    }

    @Test func aKeySetBackToItsOldValueIsNoChange() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        let groups = stack.undo.undoCount
        try employee.setValue(.integer(200), forKey: "salary")
        try employee.setValue(.integer(100), forKey: "salary")
        stack.context.processPendingChanges()
        #expect(stack.context.log.unsaved.isEmpty)
        #expect(!employee.isUpdated)
        #expect(!stack.context.hasChanges)
        #expect(stack.context.updatedObjects.isEmpty)
        #expect(stack.undo.undoCount == groups, "no change, so no new undo group")
    }

    @Test func aToManySetBackToItsOldMembersIsNoChange() throws {
        let stack = Stack()
        let department = try stack.department()
        let employee = try stack.employee()
        try stack.context.save()
        try department.mutableSetValue(forKey: "employees").add(employee)
        try department.mutableSetValue(forKey: "employees").remove(employee)
        stack.context.processPendingChanges()
        #expect(stack.context.log.unsaved.isEmpty)
        #expect(!stack.context.hasChanges)
    }

    @Test func anInsertThenADeleteIsNothing() throws {
        let stack = Stack()
        let employee = try stack.employee()
        try employee.setValue(.integer(5), forKey: "salary")
        stack.context.delete(employee)
        stack.context.processPendingChanges()
        #expect(stack.context.log.unsaved.isEmpty)
        #expect(!stack.context.hasChanges)
        #expect(stack.context.insertedObjects.isEmpty)
        #expect(stack.context.deletedObjects.isEmpty)
        #expect(employee.isInvalid && employee.context == nil)
        #expect(stack.context.registeredObject(for: employee.objectID) == nil)
        #expect(!stack.undo.canUndo)
    }

    @Test func anInsertThenADeleteIsNothingEvenWhenTheObjectWasRelatedToASavedOne() throws {
        let stack = Stack()
        let department = try stack.department()
        try stack.context.save()
        let employee = try stack.employee()
        try employee.setObject(department, forKey: "department")
        #expect(try department.relatedSet("employees") == [employee])
        stack.context.delete(employee)
        stack.context.processPendingChanges()
        #expect(try department.relatedSet("employees").isEmpty, "nullify removed the deleted object from the inverse")
        #expect(stack.context.log.unsaved.isEmpty, "\(stack.context.log.unsaved)")
        #expect(!stack.context.hasChanges)
    }

    @Test func anInsertThenUpdatesIsOneInsertWithTheFinalValues() throws {
        let stack = Stack()
        let employee = try stack.employee()
        for salary: Int64 in [1, 2, 3] { try employee.setValue(.integer(salary), forKey: "salary") }
        try employee.setValue(.string("Byron"), forKey: "lastName")
        stack.context.processPendingChanges()
        let operations = try onlyBatch(stack.context)
        #expect(operations.count == 1)
        guard case .insert(let id, let values) = operations.first else {
            Issue.record("expected one insert, got \(operations)")
            return
        }
        #expect(id == employee.objectID)
        #expect(values[employee.slot("salary")] == .integer(3))
        #expect(values[employee.slot("lastName")] == .string("Byron"))
        #expect(values[employee.slot("firstName")] == .string("Ada"))
        #expect(values == employee.storage)
    }

    @Test func updatesThenADeleteIsOneDeleteCarryingTheValuesBeforeTheUpdates() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        let committed = employee.storage.array
        try employee.setValue(.integer(200), forKey: "salary")
        try employee.setValue(.string("Byron"), forKey: "lastName")
        stack.context.delete(employee)
        stack.context.processPendingChanges()
        let operations = try onlyBatch(stack.context)
        #expect(operations == [.delete(employee.objectID, values: committed)])
        guard case .delete(_, let values) = operations.first else { return }
        #expect(values[employee.slot("salary")] == .integer(100))
        #expect(values[employee.slot("lastName")] == .string("Lovelace"))
    }

    @Test func eachFlushAppendsItsOwnBatch() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        try employee.setValue(.integer(200), forKey: "salary")
        stack.context.processPendingChanges()
        try employee.setValue(.integer(300), forKey: "salary")
        stack.context.processPendingChanges()
        stack.context.processPendingChanges()  // nothing pending: no batch
        let batches = stack.context.log.unsaved
        #expect(batches.count == 2)
        let slot = employee.slot("salary")
        #expect(batches.map(\.operations) == [
            [.update(employee.objectID, changes: [SlotChange(slot: slot, old: .integer(100), new: .integer(200))])],
            [.update(employee.objectID, changes: [SlotChange(slot: slot, old: .integer(200), new: .integer(300))])],
        ])
        #expect(batches[1].sequence == batches[0].sequence + 1)
        try stack.context.save()
        #expect(stack.context.log.unsaved.isEmpty)
    }

    @Test func toManyChangesAreLoggedAsAddedAndRemovedMembers() throws {
        let stack = Stack()
        let engine = try stack.project()
        let a = try stack.employee("A", "A")
        let b = try stack.employee("B", "B")
        try engine.mutableSetValue(forKey: "members").add(a)
        try stack.context.save()
        let aID = a.objectID, bID = b.objectID, engineID = engine.objectID
        try engine.mutableSetValue(forKey: "members").set([b])
        stack.context.processPendingChanges()
        let operations = try onlyBatch(stack.context)
        #expect(operations.contains(.relate(engineID, slot: engine.slot("members"), added: [bID], removed: [aID])))
        #expect(operations.contains(.relate(aID, slot: a.slot("projects"), added: [], removed: [engineID])))
        #expect(operations.contains(.relate(bID, slot: b.slot("projects"), added: [engineID], removed: [])))
        #expect(operations.count == 3)
    }
}
