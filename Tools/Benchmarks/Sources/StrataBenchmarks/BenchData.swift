import Foundation
import Strata

/// The benchmark's Employee/Department model and its deterministic data, identical for
/// every peer (peers/loro_bench.py generates the same values).
///
/// Employee: firstName, lastName (indexed), salary (integer64, indexed), employeeID
/// (integer32, indexed), startDate (date); department: to-one → Department, no inverse
/// (one foreign-key column, like the peers' tables). Department: name (indexed).
enum BenchData {
    static let departments = 100
    static let consonants = Array("bcdfghjklmnpqrstvwz")
    static let vowels = Array("aeiou")
    /// Dates start here (seconds since 2001-01-01) and advance a minute per employee.
    static let baseDate = 600_000_000.0

    static func model() -> ManagedObjectModel {
        let employee = EntityDescription("Employee", attributes: employeeAttributes(), relationships: [
            RelationshipDescription("department", to: "Department"),
        ])
        let department = departmentEntity()
        do {
            return try ManagedObjectModel(entities: [employee, department], versionIdentifier: "bench-1")
        } catch {
            preconditionFailure("the benchmark model is invalid: \(error)")
        }
    }

    /// Employee's five attributes (W1's model and the models built on it, such as W4x's).
    static func employeeAttributes() -> [AttributeDescription] {
        [
            AttributeDescription("firstName", .string),
            AttributeDescription("lastName", .string, isIndexed: true),
            AttributeDescription("salary", .integer64, isIndexed: true),
            AttributeDescription("employeeID", .integer32, isIndexed: true),
            AttributeDescription("startDate", .date),
        ]
    }

    /// The Department entity: its name, indexed.
    static func departmentEntity() -> EntityDescription {
        EntityDescription("Department", attributes: [AttributeDescription("name", .string, isIndexed: true)])
    }

    static func syllable(_ value: Int) -> String {
        let index = value % (consonants.count * vowels.count)
        return String([consonants[index / vowels.count], vowels[index % vowels.count]])
    }

    /// Three syllables, capitalized: every `count / 20` employees share one last name, so an
    /// equality fetch on one name finds 20 objects.
    static func lastName(_ index: Int, count: Int) -> String {
        let distinct = max(count / 20, 1)
        let k = (index % distinct) &* 7_919 % distinct
        let name = syllable(k) + syllable(k / 95) + syllable(k / 9_025)
        return name.prefix(1).uppercased() + name.dropFirst()
    }

    static func firstName(_ index: Int) -> String {
        let name = syllable(index) + syllable(index / 95)
        return name.prefix(1).uppercased() + name.dropFirst()
    }

    static func salary(_ index: Int) -> Int64 { Int64(20_000 + (index &* 7_919) % 100_000) }
    static func startDate(_ index: Int) -> Double { baseDate + Double(index) * 60 }
    static func department(_ index: Int) -> Int { index % departments }

    /// Saves W1's departments in `context` and returns one batch insert of `count`
    /// employees into them, with W1's attributes (W1b and the inspector's big document
    /// build the same rows this one way).
    static func employeeBatch(count: Int, in context: ManagedObjectContext) throws -> BatchInsertRequest {
        let departmentEntity = try context.model.entity(named: "Department")
        var inserted: [ManagedObject] = []
        for index in 0..<BenchData.departments {
            let department = try context.insertObject(of: departmentEntity)
            try department.setValue(.string(BenchData.departmentName(index)), forKey: "name")
            inserted.append(department)
        }
        try context.save()
        // After the save: their permanent IDs.
        let departments = inserted.map { PropertyValue.object($0.objectID) }
        var index = 0
        return BatchInsertRequest(entityName: "Employee") { row in
            guard index < count else { return true }
            row["firstName"] = .string(BenchData.firstName(index))
            row["lastName"] = .string(BenchData.lastName(index, count: count))
            row["salary"] = .integer(BenchData.salary(index))
            row["employeeID"] = .integer(Int64(index))
            row["startDate"] = .date(Date(timeIntervalSinceReferenceDate: BenchData.startDate(index)))
            row["department"] = departments[BenchData.department(index)]
            index += 1
            return false
        }
    }

    /// Inserts W1's graph into `context` — the departments, then `count` employees with
    /// their five attributes and department — and returns the objects, in order (W1, W10
    /// and the memory breakdown build the same objects this one way).
    static func insertW1Graph(count: Int, into context: ManagedObjectContext) throws
        -> (departments: [ManagedObject], employees: [ManagedObject]) {
        let model = context.model
        let employeeEntity = try model.entity(named: "Employee")
        let departmentEntity = try model.entity(named: "Department")
        var departments: [ManagedObject] = []
        var employees: [ManagedObject] = []
        employees.reserveCapacity(count)
        for index in 0..<Self.departments {
            let department = try context.insertObject(of: departmentEntity)
            try department.setValue(.string(departmentName(index)), forKey: "name")
            departments.append(department)
        }
        for index in 0..<count {
            let employee = try context.insertObject(of: employeeEntity)
            try employee.setValue(.string(firstName(index)), forKey: "firstName")
            try employee.setValue(.string(lastName(index, count: count)), forKey: "lastName")
            try employee.setValue(.integer(salary(index)), forKey: "salary")
            try employee.setValue(.integer(Int64(index)), forKey: "employeeID")
            try employee.setValue(.date(Date(timeIntervalSinceReferenceDate: startDate(index))), forKey: "startDate")
            try employee.setObject(departments[department(index)], forKey: "department")
            employees.append(employee)
        }
        return (departments, employees)
    }
    static func departmentName(_ index: Int) -> String { "Department \(index)" }

    /// The last name the W4 equality fetch asks for.
    static func probeLastName(count: Int) -> String { lastName(count / 2, count: count) }
}
