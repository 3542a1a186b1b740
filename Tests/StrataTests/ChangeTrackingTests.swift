import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §3: change sets, per-object changed and committed values, ObjectsDidChange.
@Suite struct ChangeTracking {
    // MARK: Change sets

    @Test func aFreshContextHasNoChanges() {
        let stack = Stack()
        #expect(!stack.context.hasChanges)
        #expect(stack.context.insertedObjects.isEmpty)
        #expect(stack.context.updatedObjects.isEmpty)
        #expect(stack.context.deletedObjects.isEmpty)
    }

    @Test func insertedUpdatedAndDeletedObjectsAreTrackedUntilTheSave() throws {
        let stack = Stack()
        let context = stack.context
        let kept = try stack.savedEmployee("Kept", "K")
        let doomed = try stack.savedEmployee("Doomed", "D")
        let untouched = try stack.savedEmployee("Untouched", "U")
        #expect(!context.hasChanges)

        let inserted = try stack.project()
        #expect(context.hasChanges, "an unflushed insert is a change")
        try kept.setValue(.integer(7), forKey: "salary")
        context.delete(doomed)

        #expect(context.insertedObjects == [inserted])
        #expect(context.updatedObjects == [kept])
        #expect(context.deletedObjects == [doomed])
        #expect(inserted.isInserted && !inserted.isUpdated && !inserted.isDeleted)
        #expect(!kept.isInserted && kept.isUpdated && !kept.isDeleted)
        #expect(doomed.isDeleted && !doomed.isUpdated)
        #expect(!untouched.hasChanges)

        context.processPendingChanges()
        #expect(context.insertedObjects == [inserted])
        #expect(context.updatedObjects == [kept])
        #expect(context.deletedObjects == [doomed])

        try context.save()
        #expect(!context.hasChanges)
        #expect(context.insertedObjects.isEmpty && context.updatedObjects.isEmpty && context.deletedObjects.isEmpty)
        #expect(!inserted.isInserted && !kept.isUpdated)
        #expect(doomed.isInvalid)
    }

    @Test func anInsertedObjectThatIsUpdatedIsStillOnlyInserted() throws {
        let stack = Stack()
        let project = try stack.project()
        stack.context.processPendingChanges()
        try project.setValue(.string("Renamed"), forKey: "name")
        #expect(stack.context.insertedObjects == [project])
        #expect(stack.context.updatedObjects.isEmpty)
        #expect(!project.isUpdated)
    }

    // MARK: changedValues and committedValues

    @Test func changedValuesListOnlyTheKeysChangedSinceTheSave() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        #expect(employee.changedValues().isEmpty)
        try employee.setValue(.integer(200), forKey: "salary")
        try employee.setValue(.string("Byron"), forKey: "lastName")
        stack.context.processPendingChanges()
        try employee.setValue(.integer(300), forKey: "salary")
        #expect(employee.changedValues() == ["salary": .integer(300), "lastName": .string("Byron")])
        try employee.setValue(.string("Lovelace"), forKey: "lastName")
        #expect(employee.changedValues() == ["salary": .integer(300)])
        try stack.context.save()
        #expect(employee.changedValues().isEmpty)
    }

    @Test func changedValuesIncludeRelationships() throws {
        let stack = Stack()
        let department = try stack.department()
        let employee = try stack.savedEmployee()
        try employee.setObject(department, forKey: "department")
        #expect(employee.changedValues() == ["department": .object(department.objectID)])
    }

    @Test func changedValuesOfAnInsertedObjectAreItsSetValues() throws {
        let stack = Stack()
        let employee = try stack.employee(salary: 5)
        let changed = employee.changedValues()
        #expect(changed["firstName"] == .string("Ada"))
        #expect(changed["lastName"] == .string("Lovelace"))
        #expect(changed["salary"] == .integer(5))
        #expect(changed["email"] == nil, "a key never set is not a change")
    }

    @Test func committedValuesAreTheValuesAsOfTheLastSave() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        try employee.setValue(.integer(200), forKey: "salary")
        try employee.setValue(.string("Byron"), forKey: "lastName")
        stack.context.processPendingChanges()
        #expect(try employee.committedValues(forKeys: ["salary", "lastName"]) == [
            "salary": .integer(100), "lastName": .string("Lovelace"),
        ])
        let all = try employee.committedValues(forKeys: nil)
        #expect(all.count == employee.entity.slotCount)
        #expect(all["firstName"] == .string("Ada"))
        try stack.context.save()
        #expect(try employee.committedValues(forKeys: ["salary"]) == ["salary": .integer(200)])
        #expect(strataError { _ = try employee.committedValues(forKeys: ["nope"]) }?.code == .unknownKey)
    }

    @Test func committedValuesOfAFaultLoadTheStoreValues() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        let other = stack.newContext()
        let fault = other.object(with: employee.objectID)
        #expect(try fault.committedValues(forKeys: ["salary"]) == ["salary": .integer(100)])
    }

    // MARK: ObjectsDidChange

    @Test func objectsDidChangeIsPostedToTheNotificationCenterOnEachFlush() throws {
        let stack = Stack()
        let context = stack.context
        let kept = try stack.savedEmployee("Kept", "K")
        let doomed = try stack.savedEmployee("Doomed", "D")
        let recorder = NotificationRecorder([ManagedObjectContext.objectsDidChangeNotification], object: context)

        let inserted = try stack.project()
        try kept.setValue(.integer(1), forKey: "salary")
        context.delete(doomed)
        #expect(recorder.names.isEmpty, "nothing is posted before the flush")
        context.processPendingChanges()
        #expect(recorder.names == [ManagedObjectContext.objectsDidChangeNotification])
        let info = try #require(recorder.userInfos.first)
        #expect(info[ManagedObjectContext.insertedObjectsKey] == [inserted.objectID])
        #expect(info[ManagedObjectContext.updatedObjectsKey] == [kept.objectID])
        #expect(info[ManagedObjectContext.deletedObjectsKey] == [doomed.objectID])

        context.processPendingChanges()
        #expect(recorder.names.count == 1, "a flush with nothing pending posts nothing")
        try kept.setValue(.integer(2), forKey: "salary")
        try context.save()
        #expect(recorder.names.count == 2, "save flushes first")
    }

    @Test func objectsDidChangeIsDeliveredThroughTheAsyncStream() async throws {
        let stack = Stack()
        let context = stack.context
        let kept = try stack.savedEmployee("Kept", "K")
        let stream = context.objectsDidChange()
        var iterator = stream.makeAsyncIterator()

        let inserted = try stack.project()
        try kept.setValue(.integer(1), forKey: "salary")
        context.processPendingChanges()
        let first = try #require(await iterator.next())
        #expect(first.inserted == [inserted.objectID])
        #expect(first.updated == [kept.objectID])
        #expect(first.deleted.isEmpty)

        context.delete(inserted)
        context.delete(kept)
        context.processPendingChanges()
        let second = try #require(await iterator.next())
        #expect(second.deleted == [inserted.objectID, kept.objectID])
        #expect(second.inserted.isEmpty)
    }

    @Test func undoPostsObjectsDidChangeForTheObjectsItReverts() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 1)
        try employee.setValue(.integer(2), forKey: "salary")
        stack.context.processPendingChanges()
        let recorder = NotificationRecorder([ManagedObjectContext.objectsDidChangeNotification], object: stack.context)
        try stack.undo.undo()
        #expect(recorder.userInfos.map { $0[ManagedObjectContext.updatedObjectsKey] } == [[employee.objectID]])
    }
}
