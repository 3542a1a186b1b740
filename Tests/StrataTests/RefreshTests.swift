import Foundation
import Testing
@testable import Strata

/// The guide's Employee that caches `fullName` (transient) when it is fetched.
final class CachedFullNameEmployee: ManagedObject {
    override func awakeFromFetch() {
        super.awakeFromFetch()
        let first = (try? string("firstName")) ?? ""
        let last = (try? string("lastName")) ?? ""
        try? setPrimitiveValue(.string("\(first) \(last)"), forKey: "fullName")
    }
}

/// The example model with ``CachedFullNameEmployee`` for Employee (kept for the process).
let fullNameModel: ManagedObjectModel = {
    let model = ManagedObjectModel.employeesExample()
    try! model.register(CachedFullNameEmployee.self, forEntityName: "Employee")
    return model
}()

/// docs/SEMANTICS.md §5: `refresh(_:mergeChanges:)`.
@Suite struct Refresh {
    @Test func refreshWithoutMergingTurnsTheObjectIntoAFaultAndDiscardsPendingChanges() throws {
        let stack = Stack()
        let department = try stack.department()
        let employee = try stack.employee(salary: 100)
        try employee.setObject(department, forKey: "department")
        try stack.context.save()

        try employee.setValue(.integer(200), forKey: "salary")
        stack.context.refresh(employee, mergeChanges: false)
        #expect(employee.isFault)
        #expect(!employee.hasChanges)
        #expect(!stack.context.hasChanges)
        #expect(stack.context.updatedObjects.isEmpty)
        #expect(employee.storage.isEmpty, "a fault holds no values, and no references to related objects")
        #expect(try employee.int("salary") == 100)
        #expect(try employee.related("department") === department)
    }

    @Test func changesDiscardedByRefreshAreNotSavedEvenOnceFlushed() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        try employee.setValue(.integer(200), forKey: "salary")
        stack.context.processPendingChanges()
        stack.context.refresh(employee, mergeChanges: false)
        #expect(!stack.context.hasChanges)
        try stack.context.save()
        #expect(try stack.newContext().existingObject(with: employee.objectID).int("salary") == 100)
        #expect(try employee.int("salary") == 100)
    }

    @Test func aDeleteDiscardedByRefreshIsNotSavedEvenOnceFlushed() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        try employee.setValue(.integer(200), forKey: "salary")
        stack.context.processPendingChanges()
        stack.context.delete(employee)
        stack.context.processPendingChanges()
        stack.context.refresh(employee, mergeChanges: false)
        #expect(!employee.isDeleted)
        #expect(!stack.context.hasChanges)
        try stack.context.save()
        #expect(try employee.int("salary") == 100, "the record is still there, as it was saved")
        #expect(try stack.newContext().existingObject(with: employee.objectID).int("salary") == 100)
    }

    @Test func refreshWithoutMergingPicksUpAnotherContextsSave() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        let other = stack.newContext()
        try other.existingObject(with: employee.objectID).setValue(.integer(300), forKey: "salary")
        try other.save()
        #expect(try employee.int("salary") == 100, "the cached values stay until a refresh")
        stack.context.refresh(employee, mergeChanges: false)
        #expect(try employee.int("salary") == 300)
    }

    @Test func refreshWithMergingReloadsStoreValuesAndReappliesPendingChanges() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        try employee.setValue(.string("Pending"), forKey: "firstName")

        let other = stack.newContext()
        let theirs = try other.existingObject(with: employee.objectID)
        try theirs.setValue(.integer(300), forKey: "salary")
        try theirs.setValue(.string("Byron"), forKey: "lastName")
        try other.save()

        stack.context.refresh(employee, mergeChanges: true)
        #expect(!employee.isFault)
        #expect(try employee.int("salary") == 300)
        #expect(try employee.string("lastName") == "Byron")
        #expect(try employee.string("firstName") == "Pending", "the pending change is re-applied")
        #expect(employee.changedValues() == ["firstName": .string("Pending")])
        #expect(try employee.committedValues(forKeys: ["salary"]) == ["salary": .integer(300)])
        #expect(stack.context.hasChanges)

        try stack.context.save()
        let third = try stack.newContext().existingObject(with: employee.objectID)
        #expect(try third.string("firstName") == "Pending")
        #expect(try third.int("salary") == 300)
        #expect(try third.string("lastName") == "Byron")
    }

    @Test func refreshWithMergingKeepsAPendingChangeOverTheStoresValueOfTheSameKey() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        try employee.setValue(.integer(150), forKey: "salary")
        let other = stack.newContext()
        try other.existingObject(with: employee.objectID).setValue(.integer(300), forKey: "salary")
        try other.save()
        stack.context.refresh(employee, mergeChanges: true)
        #expect(try employee.int("salary") == 150)
        #expect(try employee.committedValues(forKeys: ["salary"]) == ["salary": .integer(300)])
    }

    @Test func refreshWithMergingOfAnUnchangedObjectJustReloads() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        let other = stack.newContext()
        try other.existingObject(with: employee.objectID).setValue(.integer(300), forKey: "salary")
        try other.save()
        stack.context.refresh(employee, mergeChanges: true)
        #expect(try employee.int("salary") == 300)
        #expect(!employee.hasChanges)
        #expect(!stack.context.hasChanges)
    }

    @Test func aTransientComputedInAwakeFromFetchIsAFetchedBaselineNotAChange() throws {
        let stack = Stack(model: fullNameModel)
        let employee = try stack.savedEmployee("Ada", "Lovelace")
        let other = stack.newContext()
        let loaded = try other.existingObject(with: employee.objectID)
        #expect(try loaded.string("fullName") == "Ada Lovelace")
        #expect(!loaded.hasChanges)
        #expect(!other.hasChanges)
        other.processPendingChanges()
        #expect(other.log.unsaved.isEmpty)
    }

    /// The guide's scenario: a transient cached in `awakeFromFetch()` goes stale when an
    /// object with pending changes is refreshed with merging, because the transient is put
    /// back after `awakeFromFetch()`.
    @Test func refreshWithMergingLeavesACachedTransientStaleAsTheGuideWarns() throws {
        let stack = Stack(model: fullNameModel)
        let employee = try stack.savedEmployee("Sarit", "Smith")
        let mine = stack.newContext()
        let cached = try mine.existingObject(with: employee.objectID)
        #expect(try cached.string("fullName") == "Sarit Smith")
        try cached.setValue(.string("Jones"), forKey: "lastName")

        let theirs = stack.newContext()
        try theirs.existingObject(with: employee.objectID).setValue(.string("Fiona"), forKey: "firstName")
        try theirs.save()

        mine.refresh(cached, mergeChanges: true)
        #expect(try cached.string("firstName") == "Fiona", "persistent values were reloaded")
        #expect(try cached.string("lastName") == "Jones", "the pending change was put back")
        #expect(try cached.string("fullName") == "Sarit Smith", "the transient was restored after awakeFromFetch: stale")

        // Refreshing without merging drops the pending change and re-awakens the object.
        mine.refresh(cached, mergeChanges: false)
        #expect(try cached.string("fullName") == "Fiona Smith")
    }
}
