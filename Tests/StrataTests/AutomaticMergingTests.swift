import Foundation
import Testing
@testable import Strata

@Suite struct AutomaticMerging {
    private func savedEmployee(_ context: ManagedObjectContext) throws -> ManagedObject {
        let ada = try context.insertObject(forEntityName: "Employee")
        try ada.setValue("Ada", forKey: "firstName")
        try ada.setValue("Lovelace", forKey: "lastName")
        try ada.setValue(.integer(100), forKey: "salary")
        try context.save()
        return ada
    }

    @Test func aPrivateQueueContextTakesInAnotherContextsSaveOnItsQueue() async throws {
        let stack = Stack()
        let ada = try savedEmployee(stack.context)
        let id = ada.objectID
        let merging = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue)
        let other = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue)
        merging.automaticallyMergesChangesFromParent = true
        // Both keep their objects, as an editor showing them would (unheld ones are released).
        merging.retainsRegisteredObjects = true
        other.retainsRegisteredObjects = true
        #expect(merging.automaticallyMergesChangesFromParent && !other.automaticallyMergesChangesFromParent)
        _ = try await merging.perform { try merging.existingObject(with: id).int("salary") }
        _ = try await other.perform { try other.existingObject(with: id).int("salary") }

        try ada.setValue(.integer(200), forKey: "salary")
        try stack.context.save()

        #expect(try await merging.perform { try merging.existingObject(with: id).int("salary") } == 200)
        #expect(try await other.perform { try other.existingObject(with: id).int("salary") } == 100, "not merging: stale")
        // Having merged, it saves its own change without a conflict.
        try await merging.perform {
            try merging.existingObject(with: id).setValue("Augusta", forKey: "firstName")
            try merging.save()
        }
        #expect(try storedValue(id, "salary", in: stack.store) == .integer(200))
        #expect(try storedValue(id, "firstName", in: stack.store) == .string("Augusta"))
    }

    @Test func aConfinementContextTakesThemInAtItsNextOperation() throws {
        let stack = Stack()
        let ada = try savedEmployee(stack.context)
        let grace = try stack.context.insertObject(forEntityName: "Employee")
        try grace.setValue("Grace", forKey: "firstName")
        try grace.setValue("Hopper", forKey: "lastName")
        try stack.context.save()
        let reader = ManagedObjectContext(coordinator: stack.coordinator)
        reader.automaticallyMergesChangesFromParent = true
        let adaHere = try reader.existingObject(with: ada.objectID)
        let graceHere = try reader.existingObject(with: grace.objectID)

        try ada.setValue(.integer(300), forKey: "salary")
        stack.context.delete(grace)
        try stack.context.save()
        #expect(try adaHere.int("salary") == 100, "nothing happens behind the context's back")
        #expect(!graceHere.isInvalid)

        #expect(try reader.count(for: FetchRequest(entityName: "Employee")) == 1)
        #expect(try adaHere.int("salary") == 300)
        #expect(graceHere.isInvalid)
        // The saving context did not merge its own save.
        #expect(stack.context.registeredObject(for: ada.objectID) === ada)
    }

    @Test func batchRequestsAreMergedToo() throws {
        let stack = Stack()
        let ada = try savedEmployee(stack.context)
        let reader = ManagedObjectContext(coordinator: stack.coordinator)
        reader.automaticallyMergesChangesFromParent = true
        let adaHere = try reader.existingObject(with: ada.objectID)
        _ = try stack.context.executeBatch(BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: ["salary": 7]))
        _ = try reader.fetch(FetchRequest(entityName: "Department"))
        #expect(try adaHere.int("salary") == 7)
        reader.automaticallyMergesChangesFromParent = false
        _ = try stack.context.executeBatch(BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: ["salary": 8]))
        _ = try reader.fetch(FetchRequest(entityName: "Department"))
        #expect(try adaHere.int("salary") == 7, "no longer merging")
    }
}
