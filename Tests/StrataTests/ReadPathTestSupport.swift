import Foundation
import Testing
@testable import Strata

/// A compacted document of the example model for the read path's tests
/// (docs/ARCHITECTURE.md, "Reads: one pass from SQL to objects"): `employeeCount`
/// employees over three departments and three projects, each employee (but the first)
/// managed by the one at half its index, in two projects.
///
/// Employee has two persistent to-many relationships (`directReports`, read through the
/// `manager` key; `projects`, a join table), Department one (`employees`), Project one
/// (`members`, the join table read from its other side).
struct ReadPathFixture {
    let stack: DocumentStack
    /// The employees' IDs, by index (last name `L000`, `L001`, …; salary 1000 × index).
    let employees: [ManagedObjectID]
    let departments: [ManagedObjectID]
    let projects: [ManagedObjectID]

    var store: DocumentStore { stack.store }
    var model: ManagedObjectModel { stack.model }

    init(employeeCount: Int = 40) throws {
        stack = try DocumentStack(configuration: manualCompaction())
        let context = stack.context
        var departments: [ManagedObject] = []
        for index in 0..<3 {
            let department = try context.insertObject(forEntityName: "Department")
            try department.setValue(.string("D\(index)"), forKey: "name")
            departments.append(department)
        }
        var projects: [ManagedObject] = []
        for index in 0..<3 {
            let project = try context.insertObject(forEntityName: "Project")
            try project.setValue(.string("P\(index)"), forKey: "name")
            projects.append(project)
        }
        var employees: [ManagedObject] = []
        for index in 0..<employeeCount {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("F\(index)"), forKey: "firstName")
            try employee.setValue(.string(Self.lastName(index)), forKey: "lastName")
            try employee.setValue(.integer(Int64(1000 * index)), forKey: "salary")
            try employee.setObject(departments[index % 3], forKey: "department")
            if index > 0 { try employee.setObject(employees[index / 2], forKey: "manager") }
            try employee.mutableSetValue(forKey: "projects").add(projects[index % 3])
            try employee.mutableSetValue(forKey: "projects").add(projects[(index + 1) % 3])
            employees.append(employee)
        }
        try context.save()
        try stack.store.compact()
        self.employees = employees.map(\.objectID)
        self.departments = departments.map(\.objectID)
        self.projects = projects.map(\.objectID)
    }

    static func lastName(_ index: Int) -> String { "L" + String(format: "%03d", index) }

    /// A context on a coordinator of its own over the document, with an empty row cache.
    func freshContext() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        return ManagedObjectContext(coordinator: coordinator)
    }

    /// The SQL statements the store's connection started while `body` ran.
    func statements<T>(during body: () throws -> T) throws -> (value: T, statements: [String]) {
        let log = Locked<[String]>([])
        try store.traceStatements { sql in log.withLock { $0.append(sql) } }
        defer { try? store.traceStatements(nil) }
        let value = try body()
        return (value, log.withLock { $0 })
    }

    /// The request for every employee, in last-name order.
    func employeesByLastName() -> FetchRequest<ManagedObject> {
        FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("lastName")])
    }

    /// The record's values as the store reads one record alone (the reference the batched
    /// reads must agree with), transient slots set as a context sets them.
    func storedValues(_ id: ManagedObjectID) throws -> [PropertyValue]? {
        try store.values(for: id).map { ManagedObjectContext.withTransientDefaults($0, of: id.entity) }
    }
}
