import Foundation
import Strata

// The guide's classes over the example model. Their keys and typed properties are
// generated (Generated/*+Properties.swift, by
// `strata codegen --example employees --mode extension --out Examples/Employees/Generated`);
// the classes themselves are written here so that they can override ManagedObject's hooks.

/// The abstract parent of Employee.
class Person: ManagedObject {
    /// Checked against the model when the class is registered.
    override class var typedKeys: [TypedKeyDescription] { generatedPersonKeys }
}

/// The guide's Employee.
final class Employee: Person {
    override class var typedKeys: [TypedKeyDescription] { super.typedKeys + generatedEmployeeKeys }

    /// The guide's cached transient: computed when the object is loaded.
    override func awakeFromFetch() {
        fullName = "\(firstName) \(lastName)"
    }

    /// The names the cached `fullName` was computed from. The guide's refresh pitfall:
    /// `refresh(_:mergeChanges: true)` with pending changes runs `awakeFromFetch()` on the
    /// saved names, then puts the pending names and the old transient back, so the cache
    /// alone can be stale. Its fix: remember the cache's inputs (forgotten when the object
    /// turns into a fault) and compute it again when they differ from the current names.
    private var fullNameInputs: [String]?

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
final class Department: ManagedObject {
    override class var typedKeys: [TypedKeyDescription] { generatedDepartmentKeys }
}

/// A project employees work on.
final class Project: ManagedObject {
    override class var typedKeys: [TypedKeyDescription] { generatedProjectKeys }
}
