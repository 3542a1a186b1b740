import Foundation
import StrataModels

// The guide's classes over the example model (`ManagedObjectModel.employeesExample()`),
// declared with `@Entity`: each stored `var` is the entity's property of that name, its
// accessors generated. The model itself comes from the library, with its fetch request
// templates and the fetched property `Department.highEarners`, which classes do not declare;
// main.swift registers the classes for its entities.

/// The abstract parent of Employee.
@Entity(isAbstract: true)
class Person: ManagedObject {
    var firstName: String
    var lastName: String
    /// A transient attribute: kept with the object, never saved.
    @Transient var fullName: String?
}

/// The guide's Employee.
@Entity
final class Employee: Person {
    var salary: Int64?
    var startDate: Date?
    var employeeID: Int32?
    var email: String?
    var active: Bool?
    var rating: Double?
    var bonus: Decimal?
    var badge: UUID?
    var homepage: URL?
    var photo: Data?
    var notes: Data?
    var manager: Employee?
    @Relationship(inverse: \Employee.manager) var directReports: Set<Employee>
    var department: Department?
    var projects: Set<Project>

    /// The guide's cached transient: computed when the object is loaded.
    override func awakeFromFetch() {
        fullName = "\(firstName) \(lastName)"
    }

    /// The names the cached `fullName` was computed from. The guide's refresh pitfall:
    /// `refresh(_:mergeChanges: true)` with pending changes runs `awakeFromFetch()` on the
    /// saved names, then puts the pending names and the old transient back, so the cache
    /// alone can be stale. Its fix: remember the cache's inputs (forgotten when the object
    /// turns into a fault) and compute it again when they differ from the current names.
    /// `lazy`, so that `@Entity` leaves it plain Swift storage, not an entity property.
    private lazy var fullNameInputs: [String]? = nil

    override func didTurnIntoFault() { fullNameInputs = nil }

    /// "First Last", computed again when the cache may be stale.
    var currentFullName: String {
        let inputs = [firstName, lastName]
        // Rollback resets transients to nil without turning the object into a fault.
        if fullNameInputs != inputs || fullName == nil {
            fullName = "\(firstName) \(lastName)"
            fullNameInputs = inputs
        }
        return fullName ?? ""
    }
}

/// The guide's Department.
@Entity
final class Department: ManagedObject {
    var name: String
    var budget: Decimal?
    @Relationship(deleteRule: .cascade, inverse: \Employee.department) var employees: Set<Employee>
}

/// A project employees work on.
@Entity
final class Project: ManagedObject {
    var name: String
    var deadline: Date?
    @Relationship(inverse: \Employee.projects) var members: Set<Employee>
}
