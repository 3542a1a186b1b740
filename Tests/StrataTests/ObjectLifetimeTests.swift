import Foundation
import Testing
@testable import Strata

/// Records every lifecycle hook called on it, in order.
final class HookRecordingEmployee: ManagedObject {
    var calls: [String] = []
    override func awakeFromInsert() { super.awakeFromInsert(); calls.append("awakeFromInsert") }
    override func awakeFromFetch() { super.awakeFromFetch(); calls.append("awakeFromFetch") }
    override func willSave() { super.willSave(); calls.append("willSave") }
    override func didSave() { super.didSave(); calls.append("didSave") }
    override func prepareForDeletion() { super.prepareForDeletion(); calls.append("prepareForDeletion") }
    override func willTurnIntoFault() { super.willTurnIntoFault(); calls.append("willTurnIntoFault") }
    override func didTurnIntoFault() { super.didTurnIntoFault(); calls.append("didTurnIntoFault") }
}

/// The example model with ``HookRecordingEmployee`` for Employee (kept for the process).
let hookModel: ManagedObjectModel = {
    let model = ManagedObjectModel.employeesExample()
    try! model.register(HookRecordingEmployee.self, forEntityName: "Employee")
    return model
}()

/// docs/SEMANTICS.md §2: lifetime (weak registry, strong changed objects) and lifecycle hooks.
@Suite struct ObjectLifetime {
    @Test func unchangedRegisteredObjectsAreHeldWeakly() throws {
        let stack = Stack()
        let id = try stack.savedEmployee().objectID
        let other = stack.newContext()
        weak var weakObject: ManagedObject?
        do {
            let object = try other.existingObject(with: id)
            weakObject = object
            #expect(other.registeredObject(for: id) === object)
        }
        #expect(weakObject == nil)
        #expect(other.registeredObject(for: id) == nil)
        #expect(other.registeredObjects.isEmpty)
    }

    @Test func updatedObjectsAreKeptStronglyUntilSave() throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 1).objectID
        let other = stack.newContext()
        weak var weakObject: ManagedObject?
        do {
            let object = try other.existingObject(with: id)
            try object.setValue(.integer(2), forKey: "salary")
            weakObject = object
        }
        #expect(weakObject != nil)
        #expect(try other.registeredObject(for: id)?.int("salary") == 2)
        try other.save()
        #expect(weakObject == nil)
        #expect(other.registeredObject(for: id) == nil)
    }

    @Test func insertedObjectsAreKeptStronglyUntilSave() throws {
        let stack = Stack()
        weak var weakObject: ManagedObject?
        let temporary: ManagedObjectID
        do {
            let object = try stack.employee()
            temporary = object.objectID
            weakObject = object
        }
        #expect(stack.context.registeredObject(for: temporary) != nil)
        #expect(stack.context.insertedObjects.count == 1)
        try stack.context.save()
        #expect(weakObject == nil)
        #expect(try stack.store.objectIDs(for: stack.model.entitiesByName["Employee"]!, includingSubentities: false).count == 1)
    }

    @Test func deletedObjectsAreKeptStronglyUntilSave() throws {
        let stack = Stack()
        let id = try stack.savedEmployee().objectID
        let other = stack.newContext()
        weak var weakObject: ManagedObject?
        do {
            let object = try other.existingObject(with: id)
            other.delete(object)
            weakObject = object
        }
        #expect(weakObject != nil)
        #expect(other.deletedObjects.map(\.objectID) == [id])
        try other.save()
        #expect(weakObject == nil)
    }

    @Test func changedObjectsAreReleasedByRollbackAndByReset() throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 1).objectID
        let other = stack.newContext()
        weak var updated: ManagedObject?
        weak var inserted: ManagedObject?
        do {
            let object = try other.existingObject(with: id)
            try object.setValue(.integer(2), forKey: "salary")
            updated = object
            inserted = try other.insertObject(forEntityName: "Project")
        }
        #expect(updated != nil && inserted != nil)
        other.rollback()
        #expect(updated == nil)
        #expect(inserted == nil)

        do {
            let object = try other.existingObject(with: id)
            try object.setValue(.integer(3), forKey: "salary")
            updated = object
        }
        #expect(updated != nil)
        other.reset()
        #expect(updated == nil)
    }

    @Test func undoReleasesTheObjectsItReverts() throws {
        let stack = Stack()
        weak var weakObject: ManagedObject?
        do { weakObject = try stack.project() }
        stack.context.processPendingChanges()
        #expect(weakObject != nil)
        try stack.undo.undo()
        #expect(weakObject == nil, "the undo reverted the insert, so nothing should keep the object")
        #expect(!stack.context.hasChanges)
    }

    @Test func undoReleasesAnUpdatedObjectOnceItRevertsTheUpdate() throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 1).objectID
        stack.undo.removeAllActions()
        let other = stack.newContext()
        weak var weakObject: ManagedObject?
        do {
            let object = try other.existingObject(with: id)
            try object.setValue(.integer(2), forKey: "salary")
            weakObject = object
        }
        other.processPendingChanges()
        #expect(weakObject != nil)
        try other.undoManager?.undo()
        #expect(weakObject == nil)
        #expect(!other.hasChanges)
        // Redo loads the record again and re-applies the change.
        try other.undoManager?.redo()
        #expect(try other.registeredObject(for: id)?.int("salary") == 2)
        try other.save()
        #expect(try stack.newContext().existingObject(with: id).int("salary") == 2)
    }

    @Test func aChangeSetBackToTheCommittedValueReleasesTheObject() throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 1).objectID
        let other = stack.newContext()
        weak var weakObject: ManagedObject?
        do {
            let object = try other.existingObject(with: id)
            try object.setValue(.integer(2), forKey: "salary")
            other.processPendingChanges()
            try object.setValue(.integer(1), forKey: "salary")
            weakObject = object
        }
        other.processPendingChanges()
        #expect(weakObject == nil)
        #expect(!other.hasChanges)
        try other.save()
        #expect(try stack.newContext().existingObject(with: id).int("salary") == 1)
    }

    @Test func retainsRegisteredObjectsKeepsEveryObjectAlive() throws {
        let stack = Stack()
        let id = try stack.savedEmployee().objectID
        let other = stack.newContext()
        other.retainsRegisteredObjects = true
        weak var weakObject: ManagedObject?
        do { weakObject = try other.existingObject(with: id) }
        #expect(weakObject != nil)
        #expect(other.registeredObject(for: id) != nil)
        other.retainsRegisteredObjects = false
        #expect(weakObject == nil)
        #expect(other.registeredObject(for: id) == nil)
    }

    // MARK: Lifecycle hooks

    @Test func awakeFromInsertRunsOnceOnInsertAndAwakeFromFetchOnceOnLoad() throws {
        let stack = Stack(model: hookModel)
        let inserted = try #require(try stack.employee() as? HookRecordingEmployee)
        #expect(inserted.calls == ["awakeFromInsert"])
        try stack.context.save()
        #expect(inserted.calls == ["awakeFromInsert", "willSave", "didSave"])

        let other = stack.newContext()
        let fault = try #require(other.object(with: inserted.objectID) as? HookRecordingEmployee)
        #expect(fault.calls.isEmpty, "a fault is not awake yet")
        _ = try fault.value(forKey: "firstName")
        _ = try fault.value(forKey: "lastName")
        #expect(fault.calls == ["awakeFromFetch"])
    }

    @Test func anObjectCreatedWithoutAContextAwakesWhenInserted() throws {
        let stack = Stack(model: hookModel)
        let entity = try #require(hookModel.entitiesByName["Employee"])
        let employee = HookRecordingEmployee(entity: entity, insertInto: nil)
        #expect(employee.calls.isEmpty)
        #expect(employee.context == nil)
        try stack.context.insert(employee)
        #expect(employee.calls == ["awakeFromInsert"])
        #expect(employee.isInserted)
        #expect(stack.context.insertedObjects == [employee])
    }

    @Test func willSaveAndDidSaveRunForChangedObjectsOnly() throws {
        let stack = Stack(model: hookModel)
        let a = try stack.savedEmployee("A", "One")
        let b = try stack.savedEmployee("B", "Two")
        let other = stack.newContext()
        let changed = try #require(try other.existingObject(with: a.objectID) as? HookRecordingEmployee)
        let untouched = try #require(try other.existingObject(with: b.objectID) as? HookRecordingEmployee)
        try changed.setValue(.integer(10), forKey: "salary")
        try other.save()
        #expect(changed.calls == ["awakeFromFetch", "willSave", "didSave"])
        #expect(untouched.calls == ["awakeFromFetch"])
    }

    @Test func aDeleteCallsPrepareForDeletionThenTheSaveCallsWillSaveAndDidSave() throws {
        let stack = Stack(model: hookModel)
        let employee = try #require(try stack.savedEmployee() as? HookRecordingEmployee)
        employee.calls = []
        stack.context.delete(employee)
        #expect(employee.calls == ["prepareForDeletion"])
        try stack.context.save()
        #expect(employee.calls == ["prepareForDeletion", "willSave", "didSave"])
    }

    @Test func aCascadeDeleteCallsPrepareForDeletionOnEachDestination() throws {
        let stack = Stack(model: hookModel)
        let department = try stack.department()
        let a = try #require(try stack.employee("A", "One") as? HookRecordingEmployee)
        let b = try #require(try stack.employee("B", "Two") as? HookRecordingEmployee)
        try department.mutableSetValue(forKey: "employees").set([a, b])
        try stack.context.save()
        a.calls = []
        b.calls = []
        stack.context.delete(department)
        stack.context.processPendingChanges()
        #expect(a.isDeleted && b.isDeleted)
        #expect(a.calls == ["prepareForDeletion"])
        #expect(b.calls == ["prepareForDeletion"])
    }

    @Test func turningIntoAFaultCallsWillAndDidTurnIntoFault() throws {
        let stack = Stack(model: hookModel)
        let employee = try #require(try stack.savedEmployee() as? HookRecordingEmployee)
        employee.calls = []
        stack.context.refresh(employee, mergeChanges: false)
        #expect(employee.isFault)
        #expect(employee.calls == ["willTurnIntoFault", "didTurnIntoFault"])
        _ = try employee.value(forKey: "firstName")
        #expect(employee.calls == ["willTurnIntoFault", "didTurnIntoFault", "awakeFromFetch"])
    }
}
