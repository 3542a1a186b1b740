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
}

/// The guide's Department.
final class Department: ManagedObject {
    override class var typedKeys: [TypedKeyDescription] { generatedDepartmentKeys }
}

/// A project employees work on.
final class Project: ManagedObject {
    override class var typedKeys: [TypedKeyDescription] { generatedProjectKeys }
}
