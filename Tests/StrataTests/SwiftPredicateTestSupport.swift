import Foundation
import Testing
@testable import Strata
import StrataTestSupport

// Typed classes for the example model's Person, Employee, Department and Project, with the
// key-path table (ManagedObject.propertyName(for:)) that the @Entity macro generates,
// written by hand. Person's table is built for `Self`, so `\SwiftEmployee.lastName` finds
// the name Person declares.

class SwiftPerson: ManagedObject {
    static let firstNameKey = AttributeKey<String>("firstName")
    static let lastNameKey = AttributeKey<String>("lastName")
    var firstName: String {
        get { self[Self.firstNameKey] }
        set { self[Self.firstNameKey] = newValue }
    }
    var lastName: String {
        get { self[Self.lastNameKey] }
        set { self[Self.lastNameKey] = newValue }
    }
    override class var entityName: String { "Person" }
    override class func propertyName(for keyPath: AnyKeyPath) -> String? {
        func names<Root: SwiftPerson>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
            [\.firstName: "firstName", \.lastName: "lastName"]
        }
        return propertyName(for: keyPath, in: names(Self.self)) ?? super.propertyName(for: keyPath)
    }
}

final class SwiftEmployee: SwiftPerson {
    static let salaryKey = AttributeKey<Int64>("salary")
    static let ratingKey = AttributeKey<Double?>("rating")
    static let activeKey = AttributeKey<Bool>("active")
    static let notesKey = AttributeKey<Transformed<EmployeeNotes>>("notes")
    static let departmentKey = ToOneKey<SwiftDepartment>("department")
    static let managerKey = ToOneKey<SwiftEmployee>("manager")
    static let projectsKey = ToManyKey<SwiftProject>("projects")
    static let directReportsKey = ToManyKey<SwiftEmployee>("directReports")

    var salary: Int64 { get { self[Self.salaryKey] } set { self[Self.salaryKey] = newValue } }
    var rating: Double? { get { self[Self.ratingKey] } set { self[Self.ratingKey] = newValue } }
    var active: Bool { get { self[Self.activeKey] } set { self[Self.activeKey] = newValue } }
    var notes: EmployeeNotes? { get { self[Self.notesKey].value } set { self[Self.notesKey] = Transformed(newValue) } }
    var department: SwiftDepartment? { get { self[Self.departmentKey] } set { self[Self.departmentKey] = newValue } }
    var manager: SwiftEmployee? { get { self[Self.managerKey] } set { self[Self.managerKey] = newValue } }
    var projects: [SwiftProject] { get { self[Self.projectsKey] } set { self[Self.projectsKey] = newValue } }
    var directReports: [SwiftEmployee] { get { self[Self.directReportsKey] } set { self[Self.directReportsKey] = newValue } }
    /// Not a model property: absent from the table on purpose.
    var displayName: String { firstName + " " + lastName }

    override class var entityName: String { "Employee" }
    override class func propertyName(for keyPath: AnyKeyPath) -> String? {
        func names<Root: SwiftEmployee>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
            [\.salary: "salary", \.rating: "rating", \.active: "active", \.department: "department", \.manager: "manager",
             \.projects: "projects", \.directReports: "directReports", \.notes: "notes"]
        }
        return propertyName(for: keyPath, in: names(Self.self)) ?? super.propertyName(for: keyPath)
    }
}

final class SwiftDepartment: ManagedObject {
    static let nameKey = AttributeKey<String>("name")
    static let employeesKey = ToManyKey<SwiftEmployee>("employees")
    var name: String { get { self[Self.nameKey] } set { self[Self.nameKey] = newValue } }
    var employees: [SwiftEmployee] { get { self[Self.employeesKey] } set { self[Self.employeesKey] = newValue } }
    override class func propertyName(for keyPath: AnyKeyPath) -> String? {
        propertyName(for: keyPath, in: [\SwiftDepartment.name: "name", \SwiftDepartment.employees: "employees"])
    }
}

final class SwiftProject: ManagedObject {
    static let nameKey = AttributeKey<String>("name")
    var name: String { get { self[Self.nameKey] } set { self[Self.nameKey] = newValue } }
    override class func propertyName(for keyPath: AnyKeyPath) -> String? {
        propertyName(for: keyPath, in: [\SwiftProject.name: "name"])
    }
}

/// A Codable value kept in Employee's transformable `notes`.
struct EmployeeNotes: Codable, Sendable, Equatable {
    var text: String
    var tags: [String]
}

/// The example model with the typed classes registered (a model of its own: registration
/// changes the model).
func swiftTypedModel() throws -> ManagedObjectModel {
    let model = ManagedObjectModel.employeesExample()
    try model.register(SwiftPerson.self, forEntityName: "Person")
    try model.register(SwiftEmployee.self, forEntityName: "Employee")
    try model.register(SwiftDepartment.self, forEntityName: "Department")
    try model.register(SwiftProject.self, forEntityName: "Project")
    return model
}

/// Departments, projects and employees with varied values: some without a department, a
/// rating or a manager, so that optional chaining and nil meet every form.
@discardableResult
func insertSwiftStaff(into context: ManagedObjectContext) throws -> [SwiftEmployee] {
    let research = try context.insert(SwiftDepartment.self)
    research.name = "Research"
    let sales = try context.insert(SwiftDepartment.self)
    sales.name = "Sales"
    let apollo = try context.insert(SwiftProject.self), atlas = try context.insert(SwiftProject.self), zephyr = try context.insert(SwiftProject.self)
    (apollo.name, atlas.name, zephyr.name) = ("Apollo", "Atlas", "Zephyr")
    let rows: [(String, String, Int64, Double?, Bool, SwiftDepartment?, [SwiftProject])] = [
        ("Ada", "Adams", 120_000, 4.5, true, research, [apollo, atlas]),
        ("Bo", "Baker", 95_000, nil, true, research, [zephyr]),
        ("Cy", "Carter", 40_000, 2.0, false, sales, []),
        ("Di", "Dunbar", 150_000, 5.0, false, nil, [apollo]),
        ("Ed", "Ellis", 80_000, 3.5, true, sales, [atlas, zephyr]),
        ("Flo", "Barrow", 100_000, nil, false, nil, []),
        ("Gus", "Garcia", 101_000, 4.0, true, research, [apollo, atlas, zephyr]),
    ]
    var employees: [SwiftEmployee] = []
    for (first, last, salary, rating, active, department, projects) in rows {
        let employee = try context.insert(SwiftEmployee.self)
        employee.firstName = first
        employee.lastName = last
        employee.salary = salary
        employee.rating = rating
        employee.active = active
        employee.department = department
        employee.projects = projects
        employees.append(employee)
    }
    employees[1].manager = employees[0]
    employees[2].manager = employees[4]
    employees[6].manager = employees[0]
    employees[4].manager = employees[3]
    return employees
}
