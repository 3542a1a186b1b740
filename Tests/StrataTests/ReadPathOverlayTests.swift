import Foundation
import Testing
@testable import Strata

/// The one-pass reads over a document whose last saves are not compacted: the overlay of
/// uncompacted segments wins over the snapshot rows the same statement read, exactly as the
/// single-record read lets it (docs/ARCHITECTURE.md, "Reads: snapshot ⊕ overlay").
@Suite struct ReadPathOverlayTests {
    /// The fixture with, in one uncompacted save: employee 4's salary changed, employee 7
    /// deleted (a member of department D1's employees, projects P1 and P2, and employee 3's
    /// direct reports), and a new employee `L100` in D1 and P1 managed by employee 3.
    private func fixtureWithOverlay() throws -> (fixture: ReadPathFixture, inserted: ManagedObjectID) {
        let fixture = try ReadPathFixture()
        let context = fixture.stack.context
        try context.existingObject(with: fixture.employees[4]).setValue(.integer(999_999), forKey: "salary")
        context.delete(try context.existingObject(with: fixture.employees[7]))
        let added = try context.insertObject(forEntityName: "Employee")
        try added.setValue(.string("New"), forKey: "firstName")
        try added.setValue(.string("L100"), forKey: "lastName")
        try added.setValue(.integer(100_000), forKey: "salary")
        try added.setObject(try context.existingObject(with: fixture.departments[1]), forKey: "department")
        try added.setObject(try context.existingObject(with: fixture.employees[3]), forKey: "manager")
        try added.mutableSetValue(forKey: "projects").add(try context.existingObject(with: fixture.projects[1]))
        try context.save()
        let state = try fixture.store.withOpenState { ($0.overlay.rows.count, $0.overlay.deleted.count) }
        #expect(state.0 > 0 && state.1 == 1, "the changes are in the overlay, not compacted")
        return (fixture, added.objectID)
    }

    @Test func fetchedValuesAreTheOverlaysWhereItHasThem() throws {
        let (fixture, inserted) = try fixtureWithOverlay()
        let context = try fixture.freshContext()
        let request = fixture.employeesByLastName()
        request.returnsObjectsAsFaults = false
        let employees = try context.fetch(request)
        let expectedNames = (0..<40).filter { $0 != 7 }.map(ReadPathFixture.lastName) + ["L100"]
        #expect(try employees.map { try $0.string("lastName") } == expectedNames)
        #expect(employees.last?.objectID == inserted)
        #expect(try context.existingObject(with: fixture.employees[4]).int("salary") == 999_999)
        for employee in employees {
            #expect(employee.storage.array == (try fixture.storedValues(employee.objectID)), "\(employee.objectID)")
        }
        // Employee 3's direct reports: 6 and the new one (7 is deleted).
        let three = try context.existingObject(with: fixture.employees[3])
        #expect(Set(try three.objects(forKey: "directReports").map(\.objectID)) == [fixture.employees[6], inserted])
    }

    @Test func relatedRecordsReadInBatchesLeaveTheDeletedMemberOut() throws {
        let (fixture, inserted) = try fixtureWithOverlay()
        let context = try fixture.freshContext()
        let request = FetchRequest(entityName: "Department", sortDescriptors: [FetchSortDescriptor("name")])
        request.returnsObjectsAsFaults = false
        request.relationshipKeyPathsForPrefetching = ["employees.projects"]
        let departments = try context.fetch(request)
        let d1 = try Set(departments[1].objects(forKey: "employees").map(\.objectID))
        #expect(!d1.contains(fixture.employees[7]))
        #expect(d1.contains(inserted))
        #expect(d1.count == (0..<40).filter { $0 % 3 == 1 && $0 != 7 }.count + 1)
        let projects = try fixture.projects.map { try context.existingObject(with: $0) }
        for project in projects {
            #expect(project.storage.array == (try fixture.storedValues(project.objectID)))
            #expect(!(try project.objects(forKey: "members").map(\.objectID)).contains(fixture.employees[7]))
        }
        #expect(try projects[1].objects(forKey: "members").map(\.objectID).contains(inserted))
    }

    @Test func theBatchedReadAgreesWithTheSingleReadOverTheOverlay() throws {
        let (fixture, inserted) = try fixtureWithOverlay()
        let asked = [fixture.employees[4], fixture.employees[7], inserted, fixture.employees[5],
                     fixture.departments[1], fixture.projects[2], fixture.employees[5]]
        let rows = try fixture.store.values(for: asked)
        #expect(rows.count == asked.count)
        #expect(rows[1] == nil)
        for (id, row) in zip(asked, rows) {
            #expect(row == (try fixture.store.values(for: id)), "\(id)")
        }
        let salary = try #require(fixture.model.entitiesByName["Employee"]?.slot(forKey: "salary"))
        #expect(rows[0]?[salary] == .integer(999_999))
    }

    @Test func aFetchWhoseAnswerTheOverlayChangesSeesTheNewValues() throws {
        let (fixture, inserted) = try fixtureWithOverlay()
        let context = try fixture.freshContext()
        let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary >= 38000"),
                                   sortDescriptors: [FetchSortDescriptor("salary", ascending: false)])
        request.returnsObjectsAsFaults = false
        request.fetchLimit = 3
        let top = try context.fetch(request)
        #expect(top.map(\.objectID) == [fixture.employees[4], inserted, fixture.employees[39]])
        #expect(try top.map { try $0.int("salary") } == [999_999, 100_000, 39_000])
        let rows = try context.fetchDictionaries({
            let dictionaries = request.copy()
            dictionaries.propertiesToFetch = ["lastName", "salary"]
            return dictionaries
        }())
        #expect(rows == [["lastName": .string("L004"), "salary": .integer(999_999)],
                         ["lastName": .string("L100"), "salary": .integer(100_000)],
                         ["lastName": .string("L039"), "salary": .integer(39_000)]])
    }

    @Test func aPinnedContextReadsItsGenerationInOnePass() throws {
        let (fixture, _) = try fixtureWithOverlay()
        let context = try fixture.freshContext()
        try context.setQueryGenerationFrom(.current)
        // A later save the pinned context does not see.
        let writer = fixture.stack.context
        try writer.existingObject(with: fixture.employees[5]).setValue(.integer(1), forKey: "salary")
        try writer.save()
        let request = fixture.employeesByLastName()
        request.returnsObjectsAsFaults = false
        let employees = try context.fetch(request)
        #expect(employees.count == 40)
        #expect(try context.existingObject(with: fixture.employees[5]).int("salary") == 5000)
        #expect(try context.existingObject(with: fixture.employees[4]).int("salary") == 999_999)
    }
}
