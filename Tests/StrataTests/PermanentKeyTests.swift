import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// docs/ARCHITECTURE.md, "When new objects get their keys": a save reserves its new
/// records' keys inside its held write and renames them in place; a failed save gives
/// them temporary IDs again.
@Suite struct PermanentKeys {
    /// Inserts a department and `count` employees in it.
    private func insertStaff(_ context: ManagedObjectContext, count: Int, prefix: String = "E")
        throws -> (department: ManagedObject, employees: [ManagedObject])
    {
        let department = try context.insertObject(forEntityName: "Department")
        try department.setValue(.string("Dept \(prefix)"), forKey: "name")
        var employees: [ManagedObject] = []
        for index in 0..<count {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("\(prefix)\(index)"), forKey: "firstName")
            try employee.setValue(.string("Last\(index)"), forKey: "lastName")
            try employee.setValue(.integer(Int64(index)), forKey: "salary")
            try employee.setObject(department, forKey: "department")
            employees.append(employee)
        }
        return (department, employees)
    }

    /// The buffer of a row of values, to tell a shared row from an equal copy.
    private func buffer(_ values: [PropertyValue]) -> UnsafeRawPointer? {
        values.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) }
    }

    private func employeeCount(_ stack: DocumentStack) throws -> Int {
        try stack.store.objectIDs(for: stack.model.entity(named: "Employee"), includingSubentities: false).count
    }

    @Test func aSaveKeepsTemporaryIDsUntilItAndSavesEveryRowWithoutCopyingIt() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        stack.context.undoManager = nil
        let (department, employees) = try insertStaff(stack.context, count: 40)
        stack.context.processPendingChanges()
        #expect(employees.allSatisfy { $0.objectID.isTemporaryID }, "IDs stay temporary until the save")
        #expect(department.objectID.isTemporaryID)
        let rowsBefore = employees.map { buffer($0.storage.array) }
        try stack.context.save()

        #expect(!department.objectID.isTemporaryID)
        #expect(employees.allSatisfy { !$0.objectID.isTemporaryID })
        #expect(Set(employees.map(\.objectID.primaryKey)).count == employees.count)
        let overlay = try stack.store.withOpenState { $0.overlay }
        for (employee, before) in zip(employees, rowsBefore) {
            #expect(stack.context.registeredObject(for: employee.objectID) === employee)
            #expect(try employee.object(forKey: "department")?.objectID == department.objectID)
            // Renamed in place: the object kept its buffer, and the store's overlay holds it.
            #expect(buffer(employee.storage.array) == before, "\(employee.objectID)'s row was copied")
            guard case .row(let row) = overlay.lookup(employee.objectID) else {
                Issue.record("no overlay row for \(employee.objectID)")
                continue
            }
            #expect(buffer(row) == before)
        }
        let ids = employees.map(\.objectID)
        let departmentID = department.objectID
        try stack.reopen()
        for (index, id) in ids.enumerated() {
            let employee = try stack.context.existingObject(with: id)
            #expect(try employee.string("firstName") == "E\(index)")
            #expect(try employee.object(forKey: "department")?.objectID == departmentID)
        }
        let reloaded = try stack.context.existingObject(with: departmentID)
        #expect(try reloaded.objects(forKey: "employees").count == 40)
    }

    @Test func aSmallSaveReservesExactlyTheKeysItUses() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let (_, employees) = try insertStaff(stack.context, count: 3)
        try stack.context.save()
        #expect(employees.map(\.objectID.primaryKey) == [1, 2, 3])
        // Nothing reserved beyond the keys used: the next save continues from them.
        let (_, more) = try insertStaff(stack.context, count: 1, prefix: "F")
        try stack.context.save()
        #expect(more[0].objectID.primaryKey == 4)
    }

    @Test func aConflictFoundInTheWriteLeavesTheNewObjectsTemporaryAndReservesNothing() throws {
        let directory = try TemporaryDirectory()
        let (sharedID, one, other) = try DocumentStack.twoConnections(directory.file()) { stack in
            let shared = try stack.context.insertObject(forEntityName: "Department")
            try shared.setValue("Shared", forKey: "name")
            try stack.context.save()
            return shared.objectID
        }
        try one.context.existingObject(with: sharedID).setValue("One", forKey: "name")
        try other.context.existingObject(with: sharedID).setValue("Other", forKey: "name")
        try other.context.save()
        let (_, employees) = try insertStaff(one.context, count: 20)
        // The conflict on the shared department is found inside the write, before keys are
        // reserved: the save fails and the new objects keep their temporary IDs.
        #expect { try one.context.save() } throws: { ($0 as? StrataError)?.code == .mergeConflict }
        #expect(employees.allSatisfy { $0.objectID.isTemporaryID })

        let (_, theirs) = try insertStaff(other.context, count: 15, prefix: "T")
        try other.context.save()
        #expect(theirs.map(\.objectID.primaryKey) == Array(1...15))

        one.context.mergePolicy = .mergeByPropertyObjectTrump
        try one.context.save()
        #expect(employees.map(\.objectID.primaryKey) == Array(16...35), "the retried save reserves after the other's keys")
        try one.store.close()
        try other.store.close()
        let reopened = try DocumentStack.open(directory.file())
        #expect(try employeeCount(reopened) == 35)
        for employee in employees {
            let name = try employee.string("firstName")
            #expect(try reopened.context.existingObject(with: employee.objectID).string("firstName") == name)
        }
        try reopened.store.close()
    }

    @Test func undoAndRedoOfInsertsBeforeAndAfterTheirSave() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let (department, employees) = try insertStaff(stack.context, count: 12)
        stack.undo.setActionName("Hire")
        try stack.context.save()
        let saved = employees.map(\.objectID)
        #expect(saved.allSatisfy { !$0.isTemporaryID })
        #expect(try employeeCount(stack) == 12)
        // Undone and redone after the save: the same records go and come back.
        try stack.undo.undo()
        try stack.context.save()
        #expect(try employeeCount(stack) == 0)
        try stack.undo.redo()
        try stack.context.save()
        #expect(try employeeCount(stack) == 12)
        #expect(employees.map(\.objectID) == saved)

        // Undone before its save: nothing of it is written.
        let (_, extra) = try insertStaff(stack.context, count: 12, prefix: "X")
        stack.undo.setActionName("Hire more")
        stack.context.processPendingChanges()
        #expect(extra.allSatisfy { $0.objectID.isTemporaryID })
        try stack.undo.undo()
        try stack.context.save()
        #expect(try employeeCount(stack) == 12)
        try stack.undo.redo()
        try stack.context.save()
        #expect(try employeeCount(stack) == 24)

        let departmentID = department.objectID
        try stack.reopen()
        try stack.context.restoreUndoHistory()
        #expect(stack.undo.undoActionName == "Hire more")
        for id in saved {
            #expect(try stack.context.existingObject(with: id).object(forKey: "department")?.objectID == departmentID)
        }
        try stack.undo.undo()
        try stack.undo.undo()
        try stack.context.save()
        #expect(try employeeCount(stack) == 0)
    }

    @Test func aChildContextTakesTheKeysItsParentsSaveGave() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let child = ManagedObjectContext(parent: stack.context)
        let (department, employees) = try insertStaff(child, count: 8)
        try child.save()
        let temporary = employees.map(\.objectID)
        #expect(temporary.allSatisfy { $0.isTemporaryID })
        let pushed = try #require(stack.context.registeredObject(for: temporary[0]))
        try stack.context.save()
        #expect(!pushed.objectID.isTemporaryID)
        _ = try child.count(for: FetchRequest(entityName: "Employee"))    // the child's next operation
        #expect(employees.allSatisfy { !$0.objectID.isTemporaryID })
        #expect(employees[0].objectID == pushed.objectID)
        #expect(try child.existingObject(with: department.objectID).value(forKey: "employees").objectIDs.count == 8)
        let fresh = stack.newContext()
        for employee in employees {
            #expect(try fresh.existingObject(with: employee.objectID).object(forKey: "department")?.objectID == department.objectID)
        }
    }
}
