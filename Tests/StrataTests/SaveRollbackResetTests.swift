import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §5: save, rollback and reset.
@Suite struct SaveRollbackReset {
    // MARK: Save

    @Test func aSavePostsDidSaveWithPermanentIDs() throws {
        let stack = Stack()
        let kept = try stack.savedEmployee("Kept", "K")
        let doomed = try stack.savedEmployee("Doomed", "D")
        let recorder = NotificationRecorder([ManagedObjectContext.didSaveNotification], object: stack.context)
        let inserted = try stack.project()
        try kept.setValue(.integer(1), forKey: "salary")
        stack.context.delete(doomed)
        try stack.context.save()
        let info = try #require(recorder.userInfos.first)
        #expect(recorder.names.count == 1)
        #expect(info[ManagedObjectContext.insertedObjectsKey] == [inserted.objectID])
        #expect(info[ManagedObjectContext.insertedObjectsKey]?.allSatisfy { !$0.isTemporaryID } == true)
        #expect(info[ManagedObjectContext.updatedObjectsKey] == [kept.objectID])
        #expect(info[ManagedObjectContext.deletedObjectsKey] == [doomed.objectID])
        try stack.context.save()
        #expect(recorder.names.count == 1, "a save with nothing to save posts nothing")
    }

    @Test func didSaveIsDeliveredThroughTheAsyncStream() async throws {
        let stack = Stack()
        var iterator = stack.context.didSave().makeAsyncIterator()
        let project = try stack.project()
        try stack.context.save()
        let saved = try #require(await iterator.next())
        #expect(saved.inserted == [project.objectID])
        #expect(saved.updated.isEmpty && saved.deleted.isEmpty)
    }

    @Test func aFailedSaveLeavesTheContextAndTheStoreAsTheyWere() throws {
        let stack = Stack()
        let context = stack.context
        let updated = try stack.savedEmployee("Kept", "K", salary: 100)
        let project = try stack.project("Doomed")
        try context.save()

        let invalid = try context.insertObject(forEntityName: "Employee")  // no names: invalid
        try invalid.setValue(.integer(5), forKey: "salary")
        let valid = try stack.employee("New", "N")
        try updated.setValue(.integer(200), forKey: "salary")
        context.delete(project)
        context.processPendingChanges()

        let before = (
            ids: [invalid.objectID, valid.objectID], values: [invalid.storage, valid.storage, updated.storage],
            inserted: context.insertedObjects, updated: context.updatedObjects, deleted: context.deletedObjects,
            batches: context.log.unsaved, undoCount: stack.undo.undoCount)

        let error = strataError { try context.save() }
        #expect(error?.code == .validation)
        #expect(Set(error?.problems.compactMap(\.key) ?? []) == ["firstName", "lastName"])

        #expect(context.hasChanges)
        #expect([invalid.objectID, valid.objectID] == before.ids)
        #expect(invalid.objectID.isTemporaryID && valid.objectID.isTemporaryID)
        #expect([invalid.storage, valid.storage, updated.storage] == before.values)
        #expect(context.insertedObjects == before.inserted)
        #expect(context.updatedObjects == before.updated)
        #expect(context.deletedObjects == before.deleted)
        #expect(context.log.unsaved == before.batches)
        #expect(stack.undo.undoCount == before.undoCount)
        #expect(try updated.committedValues(forKeys: ["salary"]) == ["salary": .integer(100)])

        let other = stack.newContext()
        #expect(try other.existingObject(with: updated.objectID).int("salary") == 100)
        #expect(try other.existingObject(with: project.objectID).string("name") == "Doomed")
        let employees = try stack.store.objectIDs(for: updated.entity, includingSubentities: false)
        #expect(employees == [updated.objectID])

        // Fixing the problem lets the same changes save.
        try invalid.setValue(.string("Fixed"), forKey: "firstName")
        try invalid.setValue(.string("F"), forKey: "lastName")
        try context.save()
        #expect(!invalid.objectID.isTemporaryID)
        let third = stack.newContext()
        #expect(try third.existingObject(with: invalid.objectID).int("salary") == 5)
        #expect(try third.existingObject(with: updated.objectID).int("salary") == 200)
        #expect(strataError { _ = try third.existingObject(with: project.objectID) }?.code == .objectNotFound)
    }

    @Test func aSaveTheStoreRejectsWritesNothing() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 1)
        let other = stack.newContext()
        let stale = try other.existingObject(with: employee.objectID)
        stack.context.delete(employee)
        try stack.context.save()

        let project = try other.insertObject(forEntityName: "Project")
        try project.setValue(.string("Orphan"), forKey: "name")
        try stale.setValue(.integer(2), forKey: "salary")  // the record is gone
        #expect(throws: (any Error).self) { try other.save() }
        #expect(project.objectID.isTemporaryID)
        #expect(other.hasChanges)
        let entity = try #require(stack.model.entitiesByName["Project"])
        #expect(try stack.store.objectIDs(for: entity, includingSubentities: false).isEmpty, "the save was not atomic")
    }

    // MARK: Rollback

    @Test func rollbackDiscardsInsertsDeletesAndUpdatesAndClearsUndo() throws {
        let stack = Stack()
        let context = stack.context
        let research = try stack.department("Research")
        let employee = try stack.employee(salary: 100)
        let doomed = try stack.project("Doomed")
        try employee.setObject(research, forKey: "department")
        try employee.mutableSetValue(forKey: "projects").add(doomed)
        try context.save()

        let sales = try stack.department("Sales")
        try employee.setObject(sales, forKey: "department")
        try employee.setValue(.integer(999), forKey: "salary")
        try employee.setValue(.string("Temp"), forKey: "fullName")
        context.processPendingChanges()
        context.delete(doomed)
        #expect(stack.undo.canUndo)

        context.rollback()
        #expect(!context.hasChanges)
        #expect(context.insertedObjects.isEmpty && context.updatedObjects.isEmpty && context.deletedObjects.isEmpty)
        #expect(sales.isInvalid && sales.context == nil)
        #expect(!doomed.isDeleted)
        #expect(try employee.int("salary") == 100)
        #expect(try employee.value(forKey: "fullName") == .null)
        #expect(try employee.related("department") === research)
        #expect(try research.relatedSet("employees") == [employee])
        #expect(try doomed.relatedSet("members") == [employee])
        #expect(try employee.relatedSet("projects") == [doomed])
        #expect(!stack.undo.canUndo && !stack.undo.canRedo)
        #expect(context.log.unsaved.isEmpty)
        #expect(context.graphInvariantViolations().isEmpty)

        // Nothing of the rolled-back work reaches the store.
        try context.save()
        let other = stack.newContext()
        #expect(try other.existingObject(with: employee.objectID).int("salary") == 100)
        #expect(try other.existingObject(with: doomed.objectID).string("name") == "Doomed")
    }

    @Test func rollbackRevertsOnlyWhatChangedSinceTheLastSave() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        try employee.setValue(.integer(200), forKey: "salary")
        try stack.context.save()
        try employee.setValue(.integer(300), forKey: "salary")
        stack.context.rollback()
        #expect(try employee.int("salary") == 200)
    }

    @Test func rollbackAfterUndoAndRedoRestoresTheSavedState() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        try employee.setValue(.integer(200), forKey: "salary")
        stack.context.processPendingChanges()
        try employee.setValue(.integer(300), forKey: "salary")
        stack.context.processPendingChanges()
        try stack.undo.undo()
        try stack.undo.redo()
        try stack.undo.undo()
        stack.context.rollback()
        #expect(try employee.int("salary") == 100)
        #expect(!stack.context.hasChanges)
        #expect(!stack.undo.canRedo)
    }

    // MARK: Reset

    @Test func resetInvalidatesEveryObjectAndClearsUndo() throws {
        let stack = Stack()
        let context = stack.context
        let saved = try stack.savedEmployee(salary: 100)
        try saved.setValue(.integer(200), forKey: "salary")
        let inserted = try stack.project()
        context.processPendingChanges()
        #expect(stack.undo.canUndo)

        context.reset()
        #expect(saved.isInvalid && inserted.isInvalid)
        #expect(saved.context == nil && inserted.context == nil)
        #expect(context.registeredObjects.isEmpty)
        #expect(context.registeredObject(for: saved.objectID) == nil)
        #expect(!context.hasChanges)
        #expect(!stack.undo.canUndo && !stack.undo.canRedo)
        #expect(strataError { _ = try saved.value(forKey: "salary") }?.code == .invalidObject)
        #expect(strataError { try saved.setValue(.integer(1), forKey: "salary") }?.code == .invalidObject)

        // The pending changes were dropped, not saved; the context is usable again.
        try context.save()
        let reloaded = try context.existingObject(with: saved.objectID)
        #expect(reloaded !== saved)
        #expect(try reloaded.int("salary") == 100)
    }
}
