import Foundation
import StrataModels
import StrataTestSupport
import Testing

/// `SortDescriptor` key paths through to-ones (`\Employee.department?.name`) sort by the
/// dotted key (docs/PREDICATES.md §1b), in memory, in SQL and after compaction.
@Suite("Sorting through to-one relationships")
struct RelationshipSortTests {
    /// Four employees in two departments (and one in none), inserted into `context`.
    @discardableResult
    private func insertStaff(into context: ManagedObjectContext) throws -> [Employee] {
        let research = try context.insert(Department.self)
        research.name = "Research"
        let admin = try context.insert(Department.self)
        admin.name = "Admin"
        var staff: [Employee] = []
        for (first, last, department, manager) in [("Ada", "Lovelace", research, nil), ("Grace", "Hopper", admin, 0),
                                                   ("Alan", "Turing", research, 1), ("Edsger", "Dijkstra", nil as Department?, 1)] {
            let employee = try context.insert(Employee.self)
            (employee.firstName, employee.lastName, employee.department) = (first, last, department)
            if let manager { employee.manager = staff[manager] }
            staff.append(employee)
        }
        return staff
    }

    private var request: FetchRequest<Employee> {
        FetchRequest<Employee>(sortBy: [SortDescriptor(\Employee.department?.name, order: .reverse), SortDescriptor(\.lastName)])
    }

    private var twoHops: FetchRequest<Employee> {
        FetchRequest<Employee>(sortBy: [SortDescriptor(\Employee.manager?.department?.name), SortDescriptor(\.lastName)])
    }

    @Test func theKeyPathIsTranslatedToTheDottedKey() throws {
        let descriptor = try FetchSortDescriptor(SortDescriptor(\Employee.department?.name))
        #expect(descriptor == FetchSortDescriptor("department.name"))
        #expect(try FetchSortDescriptor(SortDescriptor(\Employee.manager?.salary, order: .reverse))
                == FetchSortDescriptor("manager.salary", ascending: false))
        #expect(try FetchSortDescriptor(SortDescriptor(\Employee.manager?.department?.name)) == FetchSortDescriptor("manager.department.name"))
    }

    @Test func theOrderIsTheSameInMemoryInSQLAndAfterCompaction() throws {
        let model = try staffModel()
        let unsaved = try DocumentStack(model: model, configuration: manualCompaction())
        try insertStaff(into: unsaved.context)
        let saved = try DocumentStack(model: model, configuration: manualCompaction())
        try insertStaff(into: saved.context)
        try saved.context.save()
        // Descending by department name, nulls as the store orders them, then by last name.
        let expected = try unsaved.context.fetch(FetchRequest(entityName: "Employee", sortDescriptors: [
            FetchSortDescriptor("department.name", ascending: false), FetchSortDescriptor("lastName")]), as: Employee.self).map(\.lastName)
        let memory = try unsaved.context.fetch(request).map(\.lastName)
        #expect(memory == expected)
        let position = { (name: String) in memory.firstIndex(of: name) ?? -1 }
        #expect(position("Lovelace") < position("Turing") && position("Turing") < position("Hopper"))
        // A fresh context with no pending change, kept while its objects are read: SQL answers.
        let reader = saved.newContext()
        let stored = try reader.fetch(request).map(\.lastName)
        #expect(stored == memory)
        let twoHopsMemory = try unsaved.context.fetch(twoHops).map(\.lastName)
        let twoHopsStored = try reader.fetch(twoHops).map(\.lastName)
        #expect(twoHopsStored == twoHopsMemory)
        try saved.store.compact()
        let compactedReader = saved.newContext()
        let compacted = try compactedReader.fetch(request).map(\.lastName)
        #expect(compacted == memory)
        let twoHopsCompacted = try compactedReader.fetch(twoHops).map(\.lastName)
        #expect(twoHopsCompacted == twoHopsMemory)
        #expect(reader.typedAccessErrors.isEmpty && compactedReader.typedAccessErrors.isEmpty)
    }

    @Test func aParentsPropertyIsFoundAndAnUnmappedKeyPathIsAnUnknownKey() throws {
        // lastName is declared by Employee's parent entity's class, Person.
        #expect(try FetchSortDescriptor(SortDescriptor(\Employee.manager?.lastName)) == FetchSortDescriptor("manager.lastName"))
        // A computed property that is not a model property is an unknown key, not a guess.
        let error = try #require(throws: StrataError.self) {
            _ = try FetchSortDescriptor(SortDescriptor(\Employee.manager?.fullName))
        }
        #expect(error.code == .unknownKey)
    }
}
