import Foundation

extension ManagedObjectModel {
    /// The Employee/Department model of Core Data's programming guide, extended with every
    /// attribute type, a many-to-many, a fetched property and a fetch request template.
    /// The CLI's `--example employees` and the examples use it.
    ///
    /// - `Person` (abstract): firstName, lastName (required), fullName (transient)
    /// - `Employee : Person`: salary, startDate, employeeID, email (pattern), active,
    ///   rating, bonus, badge, homepage, photo, notes (transformable); manager ↔
    ///   directReports, department ↔ Department.employees, projects ↔ Project.members
    /// - `Department`: name (required), budget; employees (cascade); recentHires (fetched)
    /// - `Project`: name, deadline; members
    public static func employeesExample() -> ManagedObjectModel {
        let person = EntityDescription("Person", isAbstract: true, attributes: [
            AttributeDescription("firstName", .string, isOptional: false, minLength: 1),
            AttributeDescription("lastName", .string, isOptional: false, minLength: 1, isIndexed: true),
            AttributeDescription("fullName", .string, isTransient: true),
        ])
        let employee = EntityDescription("Employee", parent: "Person", attributes: [
            AttributeDescription("salary", .integer64, minValue: .integer(0), isIndexed: true),
            AttributeDescription("startDate", .date),
            AttributeDescription("employeeID", .integer32, isIndexed: true),
            AttributeDescription("email", .string, regularExpression: "[^@ ]+@[^@ ]+"),
            AttributeDescription("active", .boolean, defaultValue: .boolean(true)),
            AttributeDescription("rating", .double),
            AttributeDescription("bonus", .decimal),
            AttributeDescription("badge", .uuid),
            AttributeDescription("homepage", .uri),
            AttributeDescription("photo", .binaryData),
            AttributeDescription("notes", .transformable),
        ], relationships: [
            RelationshipDescription("manager", to: "Employee", inverse: "directReports"),
            RelationshipDescription("directReports", to: "Employee", toMany: true, inverse: "manager"),
            RelationshipDescription("department", to: "Department", inverse: "employees"),
            RelationshipDescription("projects", to: "Project", toMany: true, inverse: "members"),
        ])
        let department = EntityDescription("Department", attributes: [
            AttributeDescription("name", .string, isOptional: false, minLength: 1, isIndexed: true),
            AttributeDescription("budget", .decimal),
        ], relationships: [
            RelationshipDescription("employees", to: "Employee", toMany: true, inverse: "department", deleteRule: .cascade),
        ], fetchedProperties: [
            FetchedPropertyDescription("highEarners", entity: "Employee",
                                       predicate: "department == $FETCH_SOURCE AND salary > 100000"),
        ])
        let project = EntityDescription("Project", attributes: [
            AttributeDescription("name", .string, isOptional: false),
            AttributeDescription("deadline", .date),
        ], relationships: [
            RelationshipDescription("members", to: "Employee", toMany: true, inverse: "projects"),
        ])
        do {
            return try ManagedObjectModel(
                entities: [person, employee, department, project],
                fetchRequestTemplates: [
                    FetchRequestTemplate(name: "EmployeesEarningMoreThan", entity: "Employee", predicate: "salary > $SALARY"),
                    FetchRequestTemplate(name: "EmployeesNamed", entity: "Employee", predicate: "lastName == $LAST_NAME"),
                ],
                versionIdentifier: "employees-1")
        } catch {
            preconditionFailure("the built-in example model is invalid: \(error)")
        }
    }
}
