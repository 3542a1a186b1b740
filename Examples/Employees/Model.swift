import Foundation
import Strata

/// The guide's Employee, with typed properties over the example model.
final class Employee: ManagedObject {
    static let firstName = AttributeKey<String>("firstName")
    static let lastName = AttributeKey<String>("lastName")
    static let fullName = AttributeKey<String?>("fullName")
    static let salary = AttributeKey<Int64?>("salary")
    static let department = ToOneKey<Department>("department")
    static let manager = ToOneKey<Employee>("manager")
    /// Checked against the model when the class is registered.
    override class var typedKeys: [TypedKeyDescription] {
        [.init(firstName), .init(lastName), .init(fullName), .init(salary), .init(department), .init(manager)]
    }

    var firstName: String {
        get { self[Self.firstName] }
        set { self[Self.firstName] = newValue; fullNameIsCurrent = false }
    }
    var lastName: String {
        get { self[Self.lastName] }
        set { self[Self.lastName] = newValue; fullNameIsCurrent = false }
    }
    var salary: Int64? {
        get { self[Self.salary] }
        set { self[Self.salary] = newValue }
    }
    var department: Department? {
        get { self[Self.department] }
        set { self[Self.department] = newValue }
    }
    var manager: Employee? {
        get { self[Self.manager] }
        set { self[Self.manager] = newValue }
    }

    /// The guide's cached transient: computed when the object is loaded.
    override func awakeFromFetch() {
        self[Self.fullName] = "\(firstName) \(lastName)"
    }

    /// Whether the cached `fullName` was computed from the current names. The guide's
    /// refresh pitfall: `refresh(_:mergeChanges: true)` with pending changes runs
    /// `awakeFromFetch()` on the saved names, then puts the pending names and the old
    /// transient back, so the cache alone can be stale. Its fix: a flag cleared when the
    /// object turns into a fault (and when a name changes), read by the accessor.
    private var fullNameIsCurrent = false

    override func didTurnIntoFault() { fullNameIsCurrent = false }

    /// "First Last", computed again when the cache may be stale.
    var fullName: String {
        // Rollback resets transients to nil without turning the object into a fault.
        if !fullNameIsCurrent || self[Self.fullName] == nil {
            self[Self.fullName] = "\(firstName) \(lastName)"
            fullNameIsCurrent = true
        }
        return self[Self.fullName] ?? ""
    }
}

/// The guide's Department.
final class Department: ManagedObject {
    static let name = AttributeKey<String>("name")
    static let employees = ToManyKey<Employee>("employees")
    override class var typedKeys: [TypedKeyDescription] { [.init(name), .init(employees)] }

    var name: String {
        get { self[Self.name] }
        set { self[Self.name] = newValue }
    }
    var employees: [Employee] { self[Self.employees] }
}
