import Foundation
import Testing
@testable import Strata

@Suite struct FetchRequestTests {
    @Test func aFetchRequestHasCoreDataDefaults() {
        let request = FetchRequest(entityName: "Employee")
        #expect(request.predicate == nil)
        #expect(request.sortDescriptors.isEmpty)
        #expect(request.fetchLimit == 0 && request.fetchOffset == 0 && request.fetchBatchSize == 0)
        #expect(request.includesSubentities && request.includesPendingChanges && request.returnsObjectsAsFaults)
        #expect(request.relationshipKeyPathsForPrefetching.isEmpty)
        #expect(request.resultType == .managedObject)
        #expect(request.propertiesToFetch == nil && !request.returnsDistinctResults)
        let copy = request.copy()
        copy.fetchLimit = 3
        #expect(request.fetchLimit == 0 && copy.entityName == "Employee")
    }

    @Test func fetchReturnsTheMatchingObjectsInOrder() throws {
        let fixture = try FetchFixture()
        let request = try employeesRequest("salary >= 90000", sortedBy: [FetchSortDescriptor("salary", ascending: false)])
        #expect(try lastNames(fixture.context.fetch(request)) == ["Hopper", "Lovelace", "Turing"])
    }

    @Test func resultsAreTheRegisteredInstances() throws {
        let fixture = try FetchFixture()
        let ada = try fixture.employee("Lovelace")
        let again = try fixture.context.fetch(try employeesRequest("firstName == 'Ada'"))
        #expect(again.count == 1 && again[0] === ada)
    }

    @Test func aFetchOfAnAbstractParentIncludesSubEntitiesUnlessTurnedOff() throws {
        let fixture = try FetchFixture()
        let people = FetchRequest(entityName: "Person")
        #expect(try fixture.context.fetch(people).count == 5)
        #expect(try fixture.context.fetch(people).allSatisfy { $0.entity.name == "Employee" })
        people.includesSubentities = false
        #expect(try fixture.context.fetch(people).isEmpty)
        #expect(try fixture.context.count(for: people) == 0)
    }

    @Test func limitAndOffsetSelectAWindow() throws {
        let fixture = try FetchFixture()
        let request = try employeesRequest(sortedBy: [FetchSortDescriptor("lastName")])
        request.fetchOffset = 1
        request.fetchLimit = 2
        // Binary order: capitals before "dijkstra".
        #expect(try lastNames(fixture.context.fetch(request)) == ["Liskov", "Lovelace"])
        request.fetchOffset = 4
        #expect(try lastNames(fixture.context.fetch(request)) == ["dijkstra"])
        request.fetchOffset = 10
        #expect(try fixture.context.fetch(request).isEmpty)
    }

    @Test func fetchObjectIDsLoadsNothing() throws {
        let fixture = try FetchFixture()
        let context = fixture.freshContext()
        fixture.store.resetCounts()
        let ids = try context.fetchObjectIDs(try employeesRequest("salary > 100000", sortedBy: [FetchSortDescriptor("salary")]))
        #expect(ids.count == 2)
        #expect(ids.allSatisfy { context.registeredObject(for: $0) == nil })
        #expect(fixture.store.valuesCalls == 0)
    }

    @Test func typedFetchReturnsTheSubclassOrSaysWhichObjectIsNot() throws {
        let fixture = try FetchFixture()
        let all = try fixture.context.fetch(FetchRequest(entityName: "Employee"), as: ManagedObject.self)
        #expect(all.count == 5)
        final class Other: ManagedObject {}
        #expect {
            try fixture.context.fetch(FetchRequest(entityName: "Department"), as: Other.self)
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .typeMismatch && error?.context.entity == "Department"
        }
    }

    @Test func executeReturnsWhatTheResultTypeAsksFor() throws {
        let fixture = try FetchFixture()
        let request = try employeesRequest("salary > 80000", sortedBy: [FetchSortDescriptor("salary")])
        guard case .objects(let objects) = try fixture.context.execute(request) else { Issue.record("objects"); return }
        #expect(try lastNames(objects) == ["Turing", "Lovelace", "Hopper"])
        request.resultType = .managedObjectID
        guard case .objectIDs(let ids) = try fixture.context.execute(request) else { Issue.record("IDs"); return }
        #expect(ids == objects.map(\.objectID))
        request.resultType = .dictionary
        request.propertiesToFetch = ["lastName"]
        guard case .dictionaries(let rows) = try fixture.context.execute(request) else { Issue.record("rows"); return }
        #expect(rows == [["lastName": "Turing"], ["lastName": "Lovelace"], ["lastName": "Hopper"]])
        request.resultType = .count
        guard case .count(let count) = try fixture.context.execute(request) else { Issue.record("count"); return }
        #expect(count == 3)
    }

    @Test func anUnknownEntityIsAnErrorNamingIt() throws {
        let fixture = try FetchFixture()
        #expect {
            try fixture.context.fetch(FetchRequest(entityName: "Employe"))
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .unknownKey && error?.context.entity == "Employe" && error?.message.contains("Employe") == true
        }
    }

    @Test func anUnknownSortKeyIsAnErrorNamingTheKeyPath() throws {
        let fixture = try FetchFixture()
        for path in ["salry", "department.nam", "manager.department.budgt"] {
            #expect {
                try fixture.context.fetch(try employeesRequest(sortedBy: [FetchSortDescriptor(path)]))
            } throws: { error in
                let error = error as? StrataError
                return error?.code == .unknownKey && error?.context.key == path && error?.message.contains("sort") == true
            }
        }
    }

    @Test func sortingThroughAToManyOrPastAnAttributeIsRejected() throws {
        let fixture = try FetchFixture()
        for path in ["projects.name", "salary.value"] {
            #expect {
                try fixture.context.fetch(try employeesRequest(sortedBy: [FetchSortDescriptor(path)]))
            } throws: { error in
                (error as? StrataError)?.code == .invalidArgument && (error as? StrataError)?.context.key == path
            }
        }
    }

    @Test func anUnknownPropertyToFetchIsAnErrorNamingIt() throws {
        let fixture = try FetchFixture()
        let request = FetchRequest(entityName: "Employee")
        request.propertiesToFetch = ["lastName", "department.title"]
        #expect {
            try fixture.context.fetchDictionaries(request)
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .unknownKey && error?.context.key == "department.title" && error?.context.entity == "Department"
        }
    }

    @Test func negativeWindowsAndAttributePrefetchesAreRejected() throws {
        let fixture = try FetchFixture()
        let request = FetchRequest(entityName: "Employee")
        request.fetchLimit = -1
        #expect(throws: StrataError.self) { try fixture.context.fetch(request) }
        request.fetchLimit = 0
        request.relationshipKeyPathsForPrefetching = ["salary"]
        #expect {
            try fixture.context.fetch(request)
        } throws: { error in
            (error as? StrataError)?.code == .invalidArgument && (error as? StrataError)?.context.key == "salary"
        }
        request.relationshipKeyPathsForPrefetching = ["departmnt"]
        #expect { try fixture.context.fetch(request) } throws: { ($0 as? StrataError)?.code == .unknownKey }
    }

    @Test func aPredicateTypeErrorSurfacesFromTheFetch() throws {
        let fixture = try FetchFixture()
        #expect {
            try fixture.context.fetch(try employeesRequest("lastName > 3"))
        } throws: { error in
            (error as? StrataError)?.code == .predicateEvaluation
        }
    }

    @Test func theInMemoryStoreAnswersStoreRequestsDirectly() throws {
        let fixture = try FetchFixture()
        let entity = try fixture.model.entity(named: "Employee")
        var request = StoreFetchRequest(
            entity: entity, predicate: try FetchPredicate(format: "department != nil"),
            sortDescriptors: [FetchSortDescriptor("department.name", ascending: false), FetchSortDescriptor("salary")])
        let ids = try fixture.store.fetchObjectIDs(request)
        let context = fixture.freshContext()
        #expect(try lastNames(ids.map { context.object(with: $0) }) == ["dijkstra", "Hopper", "Turing", "Lovelace"])
        #expect(try fixture.store.countObjects(request) == 4)
        request.fetchOffset = 1
        request.fetchLimit = 2
        #expect(try fixture.store.fetchObjectIDs(request) == Array(ids[1...2]))
        #expect(try fixture.store.countObjects(request) == 2)
        request.fetchOffset = 3
        #expect(try fixture.store.countObjects(request) == 1)
    }
}
