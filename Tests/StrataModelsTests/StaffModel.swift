import Foundation
import StrataModels

// One schema declared twice: as @Entity classes here and as JSON in `staffJSON`, in the
// same order (entities as listed, attributes in source order before relationships), so
// both have the same version hash and open each other's documents.

enum Grade: String, Codable, Sendable {
    case junior, senior
}

struct Address: Codable, Equatable, Sendable {
    var street: String
    var city: String
}

@Entity(isAbstract: true)
class Person: ManagedObject {
    var firstName: String
    @Attribute(.indexed, minLength: 1) var lastName: String
    @Transient var nickname: String?

    /// Computed: not part of the entity.
    var fullName: String { firstName + " " + lastName }
}

@Entity
final class Employee: Person {
    var salary: Int64? = 50_000
    var employeeID: Int32 = 0
    var level: Int16?
    var rating: Double?
    var ratio: Float?
    var bonus: Decimal?
    var active: Bool = true
    var startDate: Date?
    var photo: Data?
    @Unique var badge: UUID?
    var homepage: URL?
    var grade: Grade = .junior
    var address: Address?
    var department: Department?
    var manager: Employee?
    @Relationship(inverse: \Employee.manager) var reports: [Employee]

    #UniquenessConstraint<Employee>([\.firstName, \.lastName])
    #FetchIndex<Employee>([\.salary, \.startDate])
}

@Entity
final class Department: ManagedObject {
    @Attribute(.unique) var name: String
    @Relationship(deleteRule: .cascade, inverse: \Employee.department) var employees: Set<Employee>
}

func staffModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(types: [Person.self, Employee.self, Department.self])
}

let staffJSON = """
{
  "format": "strata-model", "formatVersion": 1,
  "entities": [
    {"name": "Person", "abstract": true, "attributes": [
      {"name": "firstName", "type": "string", "optional": false},
      {"name": "lastName", "type": "string", "optional": false, "indexed": true, "minLength": 1},
      {"name": "nickname", "type": "string", "transient": true}
    ]},
    {"name": "Employee", "parent": "Person", "attributes": [
      {"name": "salary", "type": "integer64", "default": 50000},
      {"name": "employeeID", "type": "integer32", "optional": false, "default": 0},
      {"name": "level", "type": "integer16"},
      {"name": "rating", "type": "double"},
      {"name": "ratio", "type": "float"},
      {"name": "bonus", "type": "decimal"},
      {"name": "active", "type": "boolean", "optional": false, "default": true},
      {"name": "startDate", "type": "date"},
      {"name": "photo", "type": "binaryData"},
      {"name": "badge", "type": "uuid"},
      {"name": "homepage", "type": "uri"},
      {"name": "grade", "type": "string", "optional": false, "default": "junior"},
      {"name": "address", "type": "transformable"}
    ], "relationships": [
      {"name": "department", "destination": "Department", "inverse": "employees"},
      {"name": "manager", "destination": "Employee", "inverse": "reports"},
      {"name": "reports", "destination": "Employee", "toMany": true, "ordered": true, "inverse": "manager"}
    ], "uniquenessConstraints": [["firstName", "lastName"], ["badge"]],
       "fetchIndexes": [{"name": "bySalaryStartDate", "elements": [{"property": "salary"}, {"property": "startDate"}]}]},
    {"name": "Department", "attributes": [
      {"name": "name", "type": "string", "optional": false}
    ], "relationships": [
      {"name": "employees", "destination": "Employee", "toMany": true, "inverse": "department", "deleteRule": "cascade"}
    ], "uniquenessConstraints": [["name"]]}
  ]
}
"""
