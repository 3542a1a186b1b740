import Foundation
import Testing
@testable import Strata

@Suite struct FetchDictionaryTests {
    @Test func dictionariesHoldThePropertiesToFetchInSortOrder() throws {
        let fixture = try FetchFixture()
        let research = try fixture.department("R&D")
        let request = try employeesRequest("salary > 80000", sortedBy: [FetchSortDescriptor("salary")])
        request.propertiesToFetch = ["lastName", "salary", "department.name", "department"]
        let rows = try fixture.context.fetchDictionaries(request)
        #expect(rows.count == 3)
        #expect(rows[0] == ["lastName": "Turing", "salary": 90_000, "department.name": "R&D", "department": .object(research.objectID)])
        #expect(rows.map { $0["lastName"] } == ["Turing", "Lovelace", "Hopper"])
        #expect(rows[2]["department.name"] == "Sales")
    }

    @Test func nullValuesLeaveTheirKeyOut() throws {
        let fixture = try FetchFixture()
        let request = try employeesRequest("lastName IN {'dijkstra', 'Liskov'}", sortedBy: [FetchSortDescriptor("lastName")])
        request.propertiesToFetch = ["lastName", "salary", "department.name"]
        #expect(try fixture.context.fetchDictionaries(request) == [
            ["lastName": "Liskov", "salary": 70_000],
            ["lastName": "dijkstra", "department.name": "Sales"],
        ])
    }

    @Test func rowsAreIndependentAndARepeatedKeyIsOneKey() throws {
        let fixture = try FetchFixture()
        let request = try employeesRequest("lastName IN {'dijkstra', 'Liskov', 'Turing'}", sortedBy: [FetchSortDescriptor("lastName")])
        request.propertiesToFetch = ["salary", "lastName", "department.name", "salary"]
        // The saving context answers from its loaded objects, a fresh one from stored rows.
        for context in [fixture.context, fixture.freshContext()] {
            var rows = try context.fetchDictionaries(request)
            #expect(rows == [
                ["lastName": "Liskov", "salary": 70_000],
                ["lastName": "Turing", "salary": 90_000, "department.name": "R&D"],
                ["lastName": "dijkstra", "department.name": "Sales"],
            ])
            // Changing one result changes neither the others nor what the next fetch returns.
            rows[0]["salary"] = 1
            rows[1]["department.name"] = nil
            #expect(rows[2] == ["lastName": "dijkstra", "department.name": "Sales"])
            let again = try context.fetchDictionaries(request)
            #expect(again[0] == ["lastName": "Liskov", "salary": 70_000])
            #expect(again[1]["department.name"] == "R&D")
        }
    }

    @Test func withoutPropertiesToFetchEveryPersistentAttributeAndToOneIsReturned() throws {
        let fixture = try FetchFixture()
        let request = FetchRequest(entityName: "Department", sortDescriptors: [FetchSortDescriptor("name")])
        let rows = try fixture.context.fetchDictionaries(request)
        #expect(rows.map { $0["name"] } == ["R&D", "Sales"])
        #expect(rows.allSatisfy { $0["employees"] == nil })
        let employees = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "lastName == 'Lovelace'"))
        let ada = try #require(try fixture.context.fetchDictionaries(employees).first)
        #expect(ada["firstName"] == "Ada" && ada["active"] == true && ada["fullName"] == nil)
        #expect(ada["department"] == .object(try fixture.department("R&D").objectID))
        #expect(ada["projects"] == nil && ada["directReports"] == nil)
    }

    @Test func distinctResultsDropRepeatsBeforeTheWindow() throws {
        let fixture = try FetchFixture()
        let request = try employeesRequest(sortedBy: [FetchSortDescriptor("department.name")])
        request.propertiesToFetch = ["department.name"]
        request.returnsDistinctResults = true
        #expect(try fixture.context.fetchDictionaries(request) == [[:], ["department.name": "R&D"], ["department.name": "Sales"]])
        request.fetchOffset = 1
        request.fetchLimit = 1
        #expect(try fixture.context.fetchDictionaries(request) == [["department.name": "R&D"]])
        request.returnsDistinctResults = false
        #expect(try fixture.context.fetchDictionaries(request) == [["department.name": "R&D"]])
        request.fetchOffset = 0
        request.fetchLimit = 0
        #expect(try fixture.context.fetchDictionaries(request).count == 5)
    }

    @Test func aToManyCannotBeAPropertyToFetch() throws {
        let fixture = try FetchFixture()
        let request = FetchRequest(entityName: "Department")
        request.propertiesToFetch = ["employees"]
        #expect {
            try fixture.context.fetchDictionaries(request)
        } throws: { error in
            (error as? StrataError)?.code == .invalidArgument && (error as? StrataError)?.context.key == "employees"
        }
    }

    @Test func dictionariesIncludeInsertedObjectsWithTheirCurrentValues() throws {
        let fixture = try FetchFixture()
        try fixture.insertEmployee("Katherine", "Johnson", salary: 200_000, department: try fixture.department("Sales"))
        let request = try employeesRequest("salary > 130000", sortedBy: [FetchSortDescriptor("salary")])
        request.propertiesToFetch = ["lastName", "department.name"]
        #expect(try fixture.context.fetchDictionaries(request) == [
            ["lastName": "Hopper", "department.name": "Sales"],
            ["lastName": "Johnson", "department.name": "Sales"],
        ])
        request.includesPendingChanges = false
        #expect(try fixture.context.fetchDictionaries(request).count == 1)
    }

    @Test func countHonoursTheWindowAndPendingChanges() throws {
        let fixture = try FetchFixture()
        let request = try employeesRequest("salary != nil")
        #expect(try fixture.context.count(for: request) == 4)
        request.fetchOffset = 1
        #expect(try fixture.context.count(for: request) == 3)
        request.fetchLimit = 2
        #expect(try fixture.context.count(for: request) == 2)
        request.fetchOffset = 3
        #expect(try fixture.context.count(for: request) == 1)
        request.fetchOffset = 9
        #expect(try fixture.context.count(for: request) == 0)
        (request.fetchOffset, request.fetchLimit) = (0, 0)
        try fixture.insertEmployee("K", "J", salary: 1, department: nil)
        try fixture.employee("dijkstra").setValue(.integer(5), forKey: "salary")
        fixture.context.delete(try fixture.employee("Hopper"))
        #expect(try fixture.context.count(for: request) == 5)
        request.includesPendingChanges = false
        #expect(try fixture.context.count(for: request) == 4)
    }
}
