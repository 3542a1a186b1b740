import Foundation
import Testing
@testable import Strata

@Suite struct FetchFaultingTests {
    @Test func resultsAreFaultsByDefaultAndNothingIsLoaded() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        fixture.store.resetCounts()
        let all = try context.fetch(try employeesRequest("salary > 0", sortedBy: [FetchSortDescriptor("salary")]))
        #expect(all.count == 4)
        #expect(all.allSatisfy { $0.isFault })
        #expect(fixture.store.valuesCalls == 0)
        #expect(fixture.store.fetchCalls == 1)
        // Touching one fires only its fault.
        #expect(try all[0].string("lastName") == "Liskov")
        #expect(fixture.store.valuesCalls == 1)
        #expect(all.dropFirst().allSatisfy { $0.isFault })
    }

    @Test func returnsObjectsAsFaultsFalseLoadsEveryResultOnce() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        fixture.store.resetCounts()
        let request = FetchRequest(entityName: "Employee")
        request.returnsObjectsAsFaults = false
        let all = try context.fetch(request)
        #expect(all.count == 5 && all.allSatisfy { !$0.isFault })
        #expect(fixture.store.valuesCalls == 5)
        _ = try all.map { try $0.value(forKey: "salary") }
        #expect(fixture.store.valuesCalls == 5)
        // A second fetch reads the rows with the IDs again (as Core Data's fetch does; this
        // store has the default fetchRecords, which reads them one by one), and changes no
        // loaded object: an unsaved value stays.
        try all[0].setValue(.integer(1), forKey: "salary")
        let again = try context.fetch(request)
        #expect(fixture.store.valuesCalls == 10)
        #expect(again.map(ObjectIdentifier.init) == all.map(ObjectIdentifier.init))
        #expect(try all[0].int("salary") == 1)
    }

    @Test func resultsBeyondTheFirstBatchStayFaultsUntilABatchIsTouched() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        fixture.store.resetCounts()
        let request = try employeesRequest(sortedBy: [FetchSortDescriptor("lastName")])
        request.fetchBatchSize = 2
        request.returnsObjectsAsFaults = false
        let all = try context.fetch(request)
        #expect(all.map(\.isFault) == [false, false, true, true, true])
        #expect(fixture.store.valuesCalls == 2)
        // As in Core Data, touching a fault of a batch fills its batch (results 2 and 3).
        #expect(try all[3].string("lastName") == "Turing")
        #expect(!all[3].isFault && !all[2].isFault && all[4].isFault)
        #expect(fixture.store.valuesCalls == 4)
    }

    @Test func aBatchSizeAloneLoadsTheFirstBatch() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        fixture.store.resetCounts()
        let request = try employeesRequest(sortedBy: [FetchSortDescriptor("lastName")])
        request.fetchBatchSize = 3
        let all = try context.fetch(request)
        #expect(all.map(\.isFault) == [false, false, false, true, true])
        #expect(fixture.store.valuesCalls == 3)
    }

    @Test func prefetchingLoadsToOneDestinations() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        fixture.store.resetCounts()
        let request = try employeesRequest("department != nil")
        request.relationshipKeyPathsForPrefetching = ["department"]
        let all = try context.fetch(request)
        // Four employees and their two departments, each loaded once.
        #expect(fixture.store.valuesCalls == 6)
        let departments = try all.compactMap { try $0.related("department") }
        #expect(Set(departments).count == 2)
        #expect(departments.allSatisfy { !$0.isFault })
        #expect(try Set(departments.map { try $0.string("name") ?? "" }) == ["R&D", "Sales"])
        #expect(fixture.store.valuesCalls == 6)
    }

    @Test func withoutPrefetchingDestinationsAreFaults() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        let request = try employeesRequest("department != nil")
        request.returnsObjectsAsFaults = false
        let all = try context.fetch(request)
        fixture.store.resetCounts()
        let departments = try all.compactMap { try $0.related("department") }
        #expect(departments.allSatisfy { $0.isFault })
        #expect(all[0].hasFault(forRelationshipNamed: "department"))
        _ = try departments.map { try $0.string("name") }
        #expect(fixture.store.valuesCalls == 2)
    }

    @Test func prefetchingFollowsKeyPathsThroughToManys() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        fixture.store.resetCounts()
        let request = FetchRequest(entityName: "Department", predicate: try FetchPredicate(format: "name == 'R&D'"))
        request.relationshipKeyPathsForPrefetching = ["employees", "employees.department"]
        let departments = try context.fetch(request)
        #expect(departments.count == 1)
        // The department and its two employees; the department is already loaded.
        #expect(fixture.store.valuesCalls == 3)
        let employees = try departments[0].objects(forKey: "employees")
        #expect(employees.count == 2 && employees.allSatisfy { !$0.isFault })
        #expect(!departments[0].hasFault(forRelationshipNamed: "employees"))
        _ = try employees.map { try $0.value(forKeyPath: "department.name") }
        #expect(fixture.store.valuesCalls == 3)
    }

    @Test func countsAndIDFetchesLoadNoObject() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        fixture.store.resetCounts()
        #expect(try context.count(for: try employeesRequest("salary > 80000")) == 3)
        #expect(fixture.store.countCalls == 1 && fixture.store.valuesCalls == 0)
        #expect(try context.fetchObjectIDs(try employeesRequest("salary > 80000")).count == 3)
        #expect(fixture.store.valuesCalls == 0)
        #expect(context.registeredObjects.isEmpty)
    }

    @Test func dictionaryResultsFireNoFault() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        let faults = try context.fetch(FetchRequest(entityName: "Employee"))
        let request = FetchRequest(entityName: "Employee")
        request.propertiesToFetch = ["lastName", "department.name"]
        #expect(try context.fetchDictionaries(request).count == 5)
        #expect(faults.allSatisfy { $0.isFault })
    }
}
