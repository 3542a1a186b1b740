import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §4: undo applied to a context — after saves, of transient attributes, with
/// registration disabled, and without an undo manager.
@Suite struct UndoWithContext {
    @Test func undoAfterSaveMakesTheContextDirtyAndASecondSavePersistsTheUndo() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        try employee.setValue(.integer(200), forKey: "salary")
        try stack.context.save()
        #expect(!stack.context.hasChanges)
        #expect(stack.undo.canUndo, "a save does not clear the undo stack")

        try stack.undo.undo()
        #expect(try employee.int("salary") == 100)
        #expect(stack.context.hasChanges)
        #expect(stack.context.updatedObjects == [employee])
        let other = stack.newContext()
        #expect(try other.existingObject(with: employee.objectID).int("salary") == 200, "not saved yet")

        try stack.context.save()
        let third = stack.newContext()
        #expect(try third.existingObject(with: employee.objectID).int("salary") == 100)

        try stack.undo.redo()
        try stack.context.save()
        #expect(try stack.newContext().existingObject(with: employee.objectID).int("salary") == 200)
    }

    @Test func undoingASavedInsertDeletesTheRecordAtTheNextSave() throws {
        let stack = Stack()
        let department = try stack.department()
        let employee = try stack.employee()
        try employee.setObject(department, forKey: "department")
        try stack.context.save()
        let id = employee.objectID

        try stack.undo.undo()
        #expect(stack.context.hasChanges)
        try stack.context.save()
        let other = stack.newContext()
        #expect(strataError { _ = try other.existingObject(with: id) }?.code == .objectNotFound)
        #expect(strataError { _ = try other.existingObject(with: department.objectID) }?.code == .objectNotFound)

        try stack.undo.redo()
        try stack.context.save()
        let third = stack.newContext()
        let restored = try third.existingObject(with: id)
        #expect(try restored.string("firstName") == "Ada")
        #expect(try restored.related("department")?.string("name") == "Research")
    }

    @Test func undoingADeleteRestoresTheObjectAndItsRelationships() throws {
        let stack = Stack()
        let department = try stack.department()
        let employee = try stack.employee()
        try employee.setObject(department, forKey: "department")
        try stack.context.save()
        stack.undo.removeAllActions()

        stack.context.delete(department)  // cascades to the employee
        stack.context.processPendingChanges()
        #expect(employee.isDeleted)
        try stack.undo.undo()
        #expect(!department.isDeleted && !employee.isDeleted)
        #expect(try employee.related("department") === department)
        #expect(try department.relatedSet("employees") == [employee])
        #expect(!stack.context.hasChanges)
        #expect(stack.context.graphInvariantViolations().isEmpty)
    }

    @Test func undoingAnUnsavedInsertLeavesNoChanges() throws {
        let stack = Stack()
        let project = try stack.project()
        stack.context.processPendingChanges()
        try stack.undo.undo()
        #expect(!stack.context.hasChanges)
        #expect(stack.context.insertedObjects.isEmpty)
        #expect(project.isDeleted)
        try stack.context.save()
        let entity = try #require(stack.model.entitiesByName["Project"])
        #expect(try stack.store.objectIDs(for: entity, includingSubentities: false).isEmpty)

        try stack.undo.redo()
        #expect(stack.context.insertedObjects == [project], "redo revives the same instance")
        #expect(!project.isDeleted)
        try stack.context.save()
        #expect(try stack.store.objectIDs(for: entity, includingSubentities: false).count == 1)
    }

    @Test func undoRestoresTransientAttributes() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee()
        try employee.setValue(.string("Ada L."), forKey: "fullName")
        stack.context.processPendingChanges()
        try employee.setValue(.string("Countess"), forKey: "fullName")
        stack.context.processPendingChanges()
        try stack.undo.undo()
        #expect(try employee.string("fullName") == "Ada L.")
        try stack.undo.undo()
        #expect(try employee.value(forKey: "fullName") == .null)
        try stack.undo.redo()
        try stack.undo.redo()
        #expect(try employee.string("fullName") == "Countess")
        // Transient: never written to the store.
        try stack.context.save()
        #expect(try stack.newContext().existingObject(with: employee.objectID).value(forKey: "fullName") == .null)
    }

    // MARK: The disable-registration pattern

    /// Flush, disable, change, flush, enable: the salary change is not undoable.
    func changeWithoutRegistration(_ stack: Stack) throws -> ManagedObject {
        let employee = try stack.savedEmployee(salary: 100)
        stack.undo.removeAllActions()
        try employee.setValue(.string("Byron"), forKey: "lastName")
        stack.context.processPendingChanges()
        stack.undo.disableUndoRegistration()
        try employee.setValue(.integer(500), forKey: "salary")
        stack.context.processPendingChanges()
        try stack.undo.enableUndoRegistration()
        return employee
    }

    @Test func changesMadeWithRegistrationDisabledAreNotUndone() throws {
        let stack = Stack()
        let employee = try changeWithoutRegistration(stack)
        #expect(stack.undo.undoCount == 1)
        try stack.undo.undo()
        #expect(try employee.string("lastName") == "Lovelace")
        #expect(try employee.int("salary") == 500, "the unregistered change stays")
        #expect(!stack.undo.canUndo)
    }

    @Test func changesMadeWithRegistrationDisabledAreSaved() throws {
        let stack = Stack()
        let employee = try changeWithoutRegistration(stack)
        try stack.context.save()
        let loaded = try stack.newContext().existingObject(with: employee.objectID)
        #expect(try loaded.int("salary") == 500)
        #expect(try loaded.string("lastName") == "Byron")
    }

    @Test func changesMadeWithRegistrationDisabledAreRevertedByRollback() throws {
        let stack = Stack()
        let employee = try changeWithoutRegistration(stack)
        stack.context.rollback()
        #expect(try employee.int("salary") == 100)
        #expect(try employee.string("lastName") == "Lovelace")
        #expect(!stack.context.hasChanges)
        try stack.context.save()
        #expect(try stack.newContext().existingObject(with: employee.objectID).int("salary") == 100)
    }

    // MARK: No undo manager

    @Test func aNilUndoManagerKeepsNoGroupsButChangesStillSave() throws {
        let stack = Stack()
        let detached = stack.undo
        stack.context.undoManager = nil
        let employee = try stack.employee(salary: 1)
        stack.context.processPendingChanges()
        try employee.setValue(.integer(2), forKey: "salary")
        stack.context.processPendingChanges()
        #expect(!detached.canUndo, "the detached manager received nothing")
        #expect(detached.undoCount == 0)
        #expect(stack.context.log.unsaved.allSatisfy { !$0.isUndoable })
        try stack.context.save()
        #expect(try stack.newContext().existingObject(with: employee.objectID).int("salary") == 2)

        try employee.setValue(.integer(3), forKey: "salary")
        stack.context.rollback()
        #expect(try employee.int("salary") == 2, "rollback works without an undo manager")
    }

    @Test func aContextCreatedWithoutAnUndoManagerWorks() throws {
        let stack = Stack()
        let context = ManagedObjectContext(coordinator: stack.coordinator, undoManager: nil)
        #expect(context.undoManager == nil)
        let project = try context.insertObject(forEntityName: "Project")
        try project.setValue(.string("Solo"), forKey: "name")
        try context.save()
        #expect(try stack.newContext().existingObject(with: project.objectID).string("name") == "Solo")
    }
}
