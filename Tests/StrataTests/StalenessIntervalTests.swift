import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §5: `stalenessInterval` governs the coordinator's row cache, as Core
/// Data's investigation tests observe: a negative interval (the default) reuses cached rows,
/// zero always reads the store, a positive one reuses rows younger than it. The change is
/// made through a second coordinator on the same store, which this coordinator never hears
/// of: another process, as far as its cache is concerned.
@Suite struct StalenessInterval {
    /// A store with one employee (salary 100), a reader context that has loaded it, and
    /// another coordinator's save of salary 300 the reader's coordinator did not see.
    private func readerWithStaleRow(stalenessInterval: TimeInterval, pause: Double = 0)
        throws -> (ManagedObjectContext, ManagedObject)
    {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 100).objectID
        let readerCoordinator = PersistentStoreCoordinator(model: stack.model)
        try readerCoordinator.addStore(stack.store)
        let reader = ManagedObjectContext(coordinator: readerCoordinator)
        reader.stalenessInterval = stalenessInterval
        let object = try reader.existingObject(with: id)
        #expect(try object.int("salary") == 100)

        let writer = stack.newContext()
        try writer.existingObject(with: id).setValue(.integer(300), forKey: "salary")
        try writer.save()
        if pause > 0 { Thread.sleep(forTimeInterval: pause) }
        reader.refresh(object, mergeChanges: false)
        return (reader, object)
    }

    @Test func aNegativeIntervalReusesTheCachedRow() throws {
        let (reader, object) = try readerWithStaleRow(stalenessInterval: -1)
        #expect(try withExtendedLifetime(reader) { try object.int("salary") } == 100)
    }

    @Test func theDefaultIsNegative() {
        #expect(Stack().context.stalenessInterval < 0)
    }

    @Test func zeroAlwaysReadsTheStore() throws {
        let (reader, object) = try readerWithStaleRow(stalenessInterval: 0)
        #expect(try withExtendedLifetime(reader) { try object.int("salary") } == 300)
    }

    @Test func aPositiveIntervalReusesRowsYoungerThanIt() throws {
        let (reader, object) = try readerWithStaleRow(stalenessInterval: 3600)
        #expect(try withExtendedLifetime(reader) { try object.int("salary") } == 100)
    }

    @Test func aPositiveIntervalRereadsRowsOlderThanIt() throws {
        let (reader, object) = try readerWithStaleRow(stalenessInterval: 0.05, pause: 0.1)
        #expect(try withExtendedLifetime(reader) { try object.int("salary") } == 300)
    }

    @Test func refreshWithMergingOfAChangedObjectHonoursTheIntervalToo() throws {
        for (interval, expected) in [(-1.0, Int64(100)), (0, 300)] {
            let stack = Stack()
            let id = try stack.savedEmployee("Ada", "Lovelace", salary: 100).objectID
            let readerCoordinator = PersistentStoreCoordinator(model: stack.model)
            try readerCoordinator.addStore(stack.store)
            let reader = ManagedObjectContext(coordinator: readerCoordinator)
            reader.stalenessInterval = interval
            let object = try reader.existingObject(with: id)
            try object.setValue(.string("Byron"), forKey: "lastName")
            let writer = stack.newContext()
            try writer.existingObject(with: id).setValue(.integer(300), forKey: "salary")
            try writer.save()
            reader.refresh(object, mergeChanges: true)
            #expect(try object.int("salary") == expected, "stalenessInterval \(interval)")
            #expect(try object.string("lastName") == "Byron")
        }
    }

    @Test func savesThroughTheSameCoordinatorAreAlwaysSeen() throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 100).objectID
        let reader = stack.newContext()
        let object = try reader.existingObject(with: id)
        let writer = stack.newContext()
        try writer.existingObject(with: id).setValue(.integer(300), forKey: "salary")
        try writer.save()
        reader.refresh(object, mergeChanges: false)
        #expect(try object.int("salary") == 300)
    }

    @Test func aMergeOfTheOtherCoordinatorsSaveReadsTheRecordAgain() throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 100).objectID
        let readerCoordinator = PersistentStoreCoordinator(model: stack.model)
        try readerCoordinator.addStore(stack.store)
        let reader = ManagedObjectContext(coordinator: readerCoordinator)
        let object = try reader.existingObject(with: id)
        let writer = stack.newContext()
        try writer.existingObject(with: id).setValue(.integer(300), forKey: "salary")
        try writer.save()
        reader.mergeChanges(fromContextDidSave: SaveChanges(updated: [id]))
        #expect(try object.int("salary") == 300)
    }

    @Test func aFetchedObjectsFaultFillsTheCache() throws {
        let stack = Stack()
        let id = try stack.savedEmployee(salary: 100).objectID
        let reader = stack.newContext()
        _ = try reader.existingObject(with: id)
        #expect(stack.coordinator.rowCache.count >= 1)
    }
}
