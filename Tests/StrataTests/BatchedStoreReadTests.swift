import Foundation
import Testing
@testable import Strata

/// `PersistentStore.values(for: [ManagedObjectID])` and `fetchRecords(_:)`: their default
/// implementations (what a third-party store that implements neither gets), and the batches
/// of faults a fetch with `fetchBatchSize` leaves (docs/ARCHITECTURE.md, "Reads: one pass
/// from SQL to objects").
@Suite struct BatchedStoreReadTests {
    @Test func theDefaultBatchedReadAsksForEachRecordInOrder() throws {
        let fixture = try FetchFixture()
        let ids = try fixture.context.fetchObjectIDs(employeesRequest(sortedBy: [FetchSortDescriptor("lastName")]))
        let missing = ManagedObjectID(entity: ids[0].entity, storeTag: ids[0].storeTag, primaryKey: 9_999)
        fixture.store.resetCounts()
        let asked = [ids[2], missing, ids[0], ids[2]]
        let rows = try fixture.store.values(for: asked)
        // CountingStore implements only the single read: the default loops over it.
        #expect(fixture.store.valuesCalls == 4)
        #expect(rows.count == 4)
        #expect(rows[1] == nil)
        for (id, row) in zip(asked, rows) where id != missing {
            #expect(row == (try fixture.store.values(for: id)))
        }
        #expect(try fixture.store.values(for: [ManagedObjectID]()).isEmpty)
    }

    @Test func theDefaultFetchOfRecordsIsTheFetchedIDsWithTheirValues() throws {
        let fixture = try FetchFixture()
        let employee = fixture.model.entitiesByName["Employee"]!
        let request = StoreFetchRequest(entity: employee, predicate: try FetchPredicate(format: "salary > 80000"),
                                        sortDescriptors: [FetchSortDescriptor("salary")])
        let records = try fixture.store.fetchRecords(request)
        #expect(records.map(\.objectID) == (try fixture.store.fetchObjectIDs(request)))
        for record in records {
            #expect(record.values == (try fixture.store.values(for: record.objectID)))
        }
        #expect(try records.map { try fixture.context.object(with: $0.objectID).string("lastName") } == ["Turing", "Lovelace", "Hopper"])
    }

    @Test func aFetchWithoutFaultsLoadsAThirdPartyStoresRecordsThroughItsDefaults() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        fixture.store.resetCounts()
        let request = try employeesRequest(sortedBy: [FetchSortDescriptor("lastName")])
        request.returnsObjectsAsFaults = false
        let all = try context.fetch(request)
        #expect(try lastNames(all) == ["Hopper", "Liskov", "Lovelace", "Turing", "dijkstra"])
        #expect(all.allSatisfy { !$0.isFault })
        #expect(fixture.store.fetchCalls == 1)
        #expect(fixture.store.valuesCalls == 5)
    }

    @Test func touchingAFaultOfABatchFillsTheWholeBatch() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        fixture.store.resetCounts()
        let request = try employeesRequest(sortedBy: [FetchSortDescriptor("lastName")])
        request.fetchBatchSize = 2
        let all = try context.fetch(request)
        #expect(all.map(\.isFault) == [false, false, true, true, true])
        #expect(fixture.store.valuesCalls == 2)
        // Batches: [Lovelace, Turing], [dijkstra]. Touching Turing fills Lovelace too.
        #expect(try all[3].string("lastName") == "Turing")
        #expect(all.map(\.isFault) == [false, false, false, false, true])
        #expect(fixture.store.valuesCalls == 4)
        #expect(try all[4].string("lastName") == "dijkstra")
        #expect(fixture.store.valuesCalls == 5)
        #expect(context.faultBatches.isEmpty)
    }

    @Test func aBatchMemberGoneFromTheStoreStaysAFaultAndReportsItself() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        let request = try employeesRequest(sortedBy: [FetchSortDescriptor("lastName")])
        request.fetchBatchSize = 1
        let all = try context.fetch(request)
        request.fetchBatchSize = 3
        let batched = try context.fetch(request)
        #expect(batched.map(\.isFault) == [false, false, false, true, true])
        // Another context deletes dijkstra, the second member of the last batch.
        let other = fixture.freshContext()
        other.delete(try fixture.employee("dijkstra", in: other))
        try other.save()
        #expect(try all[3].string("lastName") == "Turing")
        #expect(all[4].isFault)
        #expect(throws: StrataError.self) { try all[4].string("lastName") }
    }

    @Test func aBatchOfAChildContextIsReadThroughItsParent() throws {
        let fixture = try FetchFixture()
        let parent = fixture.freshContext()
        let child = ManagedObjectContext(parent: parent)
        try fixture.employee("dijkstra", in: parent).setValue(.integer(1), forKey: "salary")
        fixture.store.resetCounts()
        let request = try employeesRequest(sortedBy: [FetchSortDescriptor("lastName")])
        request.fetchBatchSize = 2
        let all = try child.fetch(request)
        #expect(all.map(\.isFault) == [false, false, true, true, true])
        #expect(try all[4].int("salary") == 1)   // the parent's unsaved value
        #expect(all.map(\.isFault) == [false, false, true, true, false])
        #expect(try all[2].string("lastName") == "Lovelace")
        #expect(!all[3].isFault)
    }

    @Test func resetAndReleasingForgetTheBatches() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        let request = try employeesRequest()
        request.fetchBatchSize = 2
        let all = try context.fetch(request)
        #expect(!context.faultBatches.isEmpty)
        context.reset()
        #expect(context.faultBatches.isEmpty)
        withExtendedLifetime(all) {}
        // Released objects leave their batches.
        do {
            let released = try context.fetch(request)
            #expect(context.faultBatches.count == 2)   // results 2 and 3; result 4 is alone
            withExtendedLifetime(released) {}
        }
        #expect(context.faultBatches.isEmpty)
    }

    @Test func aStoreWithABatchedReadIsAskedOncePerBatch() throws {
        let store = BatchReadingStore(model: sharedExampleModel)
        let coordinator = PersistentStoreCoordinator(model: sharedExampleModel)
        try coordinator.addStore(store)
        let writer = ManagedObjectContext(coordinator: coordinator)
        let department = try writer.insertObject(forEntityName: "Department")
        try department.setValue(.string("R&D"), forKey: "name")
        for index in 0..<6 {
            let employee = try writer.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("F\(index)"), forKey: "firstName")
            try employee.setValue(.string("L\(index)"), forKey: "lastName")
            try employee.setObject(department, forKey: "department")
        }
        try writer.save()

        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("lastName")])
        request.fetchBatchSize = 2
        store.batches.withLock { $0 = [] }
        let all = try context.fetch(request)
        #expect(store.batches.withLock { $0.map(\.count) } == [2])
        #expect(try all[5].string("lastName") == "L5")
        #expect(store.batches.withLock { $0.map(\.count) } == [2, 2])
        #expect(!all[4].isFault && all[3].isFault)

        let prefetching = FetchRequest(entityName: "Employee")
        prefetching.relationshipKeyPathsForPrefetching = ["department"]
        store.batches.withLock { $0 = [] }
        let other = ManagedObjectContext(coordinator: coordinator)
        _ = try other.fetch(prefetching)
        // The results with their IDs (the default fetchRecords: one batched read), then the
        // department.
        #expect(store.batches.withLock { $0.map(\.count) } == [6, 1])
    }
}

/// A third-party store with a batched read of its own (over an in-memory store), which
/// records the batches it is asked for.
final class BatchReadingStore: PersistentStore {
    let base: InMemoryStore
    let batches = Locked<[[ManagedObjectID]]>([])

    init(model: ManagedObjectModel) { base = InMemoryStore(model: model) }

    var identifier: String { base.identifier }
    var configurationName: String? { base.configurationName }
    var model: ManagedObjectModel { base.model }

    func values(for objectID: ManagedObjectID) throws -> [PropertyValue]? { try base.values(for: objectID) }
    func values(for objectIDs: [ManagedObjectID]) throws -> [[PropertyValue]?] {
        batches.withLock { $0.append(objectIDs) }
        return try objectIDs.map { try base.values(for: $0) }
    }
    func objectIDs(for entity: EntityDescription, includingSubentities: Bool) throws -> [ManagedObjectID] {
        try base.objectIDs(for: entity, includingSubentities: includingSubentities)
    }
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> ClosedRange<Int64> {
        try base.allocatePrimaryKeys(for: entity, count: count)
    }
    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult { try base.save(request) }
    func largestGroupID() throws -> UInt64 { try base.largestGroupID() }
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] { try base.fetchObjectIDs(request) }
    func countObjects(_ request: StoreFetchRequest) throws -> Int { try base.countObjects(request) }
}
