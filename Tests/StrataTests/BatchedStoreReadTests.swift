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
        try other.delete(try fixture.employee("dijkstra", in: other))
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

    @Test func resetForgetsTheBatches() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        let request = try employeesRequest()
        request.fetchBatchSize = 2
        _ = try context.fetch(request)
        #expect(!context.faultBatches.isEmpty)
        context.reset()
        #expect(context.faultBatches.isEmpty)
    }
}
