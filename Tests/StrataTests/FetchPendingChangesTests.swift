import Foundation
import Testing
@testable import Strata

@Suite struct FetchPendingChangesTests {
    @Test func anInsertedObjectThatMatchesAppears() throws {
        let fixture = try FetchFixture()
        let newcomer = try fixture.insertEmployee("Katherine", "Johnson", salary: 200_000, department: nil)
        let rich = try fixture.context.fetch(try employeesRequest("salary > 100000", sortedBy: [FetchSortDescriptor("salary")]))
        #expect(try lastNames(rich) == ["Lovelace", "Hopper", "Johnson"])
        #expect(rich.last === newcomer)
        #expect(try fixture.context.count(for: try employeesRequest("salary > 100000")) == 3)
        // One that does not match stays out.
        try fixture.insertEmployee("Low", "Paid", salary: 10, department: nil)
        #expect(try fixture.context.count(for: try employeesRequest("salary > 100000")) == 3)
    }

    @Test func aDeletedObjectDisappears() throws {
        let fixture = try FetchFixture()
        let ada = try fixture.employee("Lovelace")
        fixture.context.delete(ada)
        let all = try fixture.context.fetch(FetchRequest(entityName: "Employee"))
        #expect(all.count == 4 && !all.contains(ada))
        #expect(try fixture.context.count(for: FetchRequest(entityName: "Employee")) == 4)
        #expect(try !fixture.context.fetchObjectIDs(FetchRequest(entityName: "Employee")).contains(ada.objectID))
    }

    @Test func anUpdatedObjectIsJudgedByItsCurrentValues() throws {
        let fixture = try FetchFixture()
        try fixture.employee("Turing").setValue(.integer(130_000), forKey: "salary")
        try fixture.employee("Lovelace").setValue(.integer(50_000), forKey: "salary")
        let rich = try fixture.context.fetch(try employeesRequest("salary > 100000", sortedBy: [FetchSortDescriptor("salary")]))
        #expect(try lastNames(rich) == ["Turing", "Hopper"])
    }

    @Test func pendingObjectsAreSortedByTheirCurrentValues() throws {
        let fixture = try FetchFixture()
        try fixture.employee("Liskov").setValue(.integer(1_000_000), forKey: "salary")
        let request = try employeesRequest("salary != nil", sortedBy: [FetchSortDescriptor("salary", ascending: false)])
        #expect(try lastNames(fixture.context.fetch(request)) == ["Liskov", "Hopper", "Lovelace", "Turing"])
    }

    @Test func withoutPendingChangesTheStoreAnswersAlone() throws {
        let fixture = try FetchFixture()
        try fixture.insertEmployee("Katherine", "Johnson", salary: 200_000, department: nil)
        let turing = try fixture.employee("Turing")
        let ada = try fixture.employee("Lovelace")
        try turing.setValue(.integer(130_000), forKey: "salary")
        try ada.setValue(.integer(50_000), forKey: "salary")
        let request = try employeesRequest("salary > 100000", sortedBy: [FetchSortDescriptor("salary")])
        request.includesPendingChanges = false
        request.returnsObjectsAsFaults = false
        let rich = try fixture.context.fetch(request)
        // Judged by the saved values: Ada (saved 120000) matches, Turing (saved 90000) does not.
        #expect(try lastNames(rich) == ["Lovelace", "Hopper"])
        #expect(rich[0] === ada)
        // …and Ada keeps her pending salary: the fetch did not overwrite it.
        #expect(try ada.int("salary") == 50_000)
        #expect(ada.isUpdated)
        #expect(try fixture.context.count(for: request) == 2)
    }

    @Test func aFetchNeverOverwritesPendingValues() throws {
        let fixture = try FetchFixture()
        let ada = try fixture.employee("Lovelace")
        try ada.setValue(.string("Byron"), forKey: "lastName")
        for includesPending in [true, false] {
            let request = FetchRequest(entityName: "Employee")
            request.includesPendingChanges = includesPending
            request.returnsObjectsAsFaults = false
            request.relationshipKeyPathsForPrefetching = ["department.employees"]
            let all = try fixture.context.fetch(request)
            #expect(all.contains(ada))
            #expect(try ada.string("lastName") == "Byron")
            #expect(ada.changedValues()["lastName"] == "Byron")
        }
        // Dictionaries show the current value with pending changes, the saved one without.
        let names = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Ada'"))
        names.propertiesToFetch = ["lastName"]
        #expect(try fixture.context.fetchDictionaries(names) == [["lastName": "Byron"]])
        names.includesPendingChanges = false
        #expect(try fixture.context.fetchDictionaries(names) == [["lastName": "Lovelace"]])
    }

    @Test func limitAndOffsetApplyToTheMergedList() throws {
        let fixture = try FetchFixture()
        // Saved salaries: 70000 Liskov, 90000 Turing, 120000 Lovelace, 150000 Hopper.
        try fixture.insertEmployee("A", "Eighty", salary: 80_000, department: nil)
        try fixture.insertEmployee("B", "Hundred", salary: 100_000, department: nil)
        try fixture.insertEmployee("C", "Million", salary: 1_000_000, department: nil)
        fixture.context.delete(try fixture.employee("Liskov"))
        try fixture.employee("Hopper").setValue(.integer(60_000), forKey: "salary")
        let full = ["Hopper", "Eighty", "Turing", "Hundred", "Lovelace", "Million"]
        let request = try employeesRequest("salary != nil", sortedBy: [FetchSortDescriptor("salary")])
        #expect(try lastNames(fixture.context.fetch(request)) == full)
        for offset in 0...7 {
            for limit in 0...7 {
                request.fetchOffset = offset
                request.fetchLimit = limit
                let expected = Array(full.dropFirst(offset).prefix(limit == 0 ? full.count : limit))
                #expect(try lastNames(fixture.context.fetch(request)) == expected, "offset \(offset) limit \(limit)")
                #expect(try fixture.context.count(for: request) == expected.count, "count offset \(offset) limit \(limit)")
            }
        }
    }

    @Test func theStoreIsAskedForEnoughRowsWhenPendingObjectsDropOut() throws {
        let fixture = try FetchFixture()
        // The first two saved matches are deleted in memory: the window must reach past them.
        fixture.context.delete(try fixture.employee("Liskov"))
        fixture.context.delete(try fixture.employee("Turing"))
        let request = try employeesRequest("salary != nil", sortedBy: [FetchSortDescriptor("salary")])
        request.fetchLimit = 2
        #expect(try lastNames(fixture.context.fetch(request)) == ["Lovelace", "Hopper"])
    }

    @Test func fetchingProcessesPendingChangesFirst() throws {
        let fixture = try FetchFixture()
        // Deleting a department cascades to its employees at processPendingChanges.
        fixture.context.delete(try fixture.department("R&D"))
        let remaining = try fixture.context.fetch(try employeesRequest(sortedBy: [FetchSortDescriptor("lastName")]))
        #expect(try lastNames(remaining) == ["Hopper", "Liskov", "dijkstra"])
    }

    @Test func aChangeToARelatedObjectCountsForKeyPathPredicates() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        try fixture.department("R&D", in: context).setValue(.string("Research"), forKey: "name")
        let request = try employeesRequest("department.name == 'Research'", sortedBy: [FetchSortDescriptor("lastName")])
        #expect(try lastNames(context.fetch(request)) == ["Lovelace", "Turing"])
        request.predicate = try FetchPredicate(format: "department.name == 'R&D'")
        #expect(try context.fetch(request).isEmpty)
        request.includesPendingChanges = false
        #expect(try lastNames(context.fetch(request)) == ["Lovelace", "Turing"])
    }

    @Test func movingAnObjectBetweenRelatedObjectsIsSeen() throws {
        let fixture = try FetchFixture()
        let sales = try fixture.department("Sales")
        try fixture.employee("Liskov").setObject(sales, forKey: "department")
        let request = try employeesRequest("department.name == 'Sales'", sortedBy: [FetchSortDescriptor("lastName")])
        #expect(try lastNames(fixture.context.fetch(request)) == ["Hopper", "Liskov", "dijkstra"])
        let bySelf = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "department == %@", .object(sales.objectID)))
        #expect(try fixture.context.count(for: bySelf) == 3)
    }

    @Test func insertedObjectsAreIncludedInSubEntityFetchesAndCounts() throws {
        let fixture = try FetchFixture()
        try fixture.insertEmployee("New", "Person", salary: 1, department: nil)
        #expect(try fixture.context.count(for: FetchRequest(entityName: "Person")) == 6)
        let exact = FetchRequest(entityName: "Person")
        exact.includesSubentities = false
        #expect(try fixture.context.count(for: exact) == 0)
    }
}
