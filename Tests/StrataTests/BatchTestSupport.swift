import Foundation
import Testing
@testable import Strata

/// A small saved graph for batch tests: departments R&D and Sales, projects Engine and
/// Apollo, five employees (Ada manages Alan and Grace).
///
/// | employee | salary | department | projects       |
/// |----------|--------|------------|----------------|
/// | Ada      | 120000 | R&D        | Engine, Apollo |
/// | Alan     |  90000 | R&D        | Engine         |
/// | Grace    | 150000 | Sales      | Apollo         |
/// | Edsger   |  (nil) | Sales      |                |
/// | Barbara  |  70000 | (none)     |                |
struct BatchGraph {
    var employees: [String: ManagedObjectID] = [:]
    var departments: [String: ManagedObjectID] = [:]
    var projects: [String: ManagedObjectID] = [:]

    init(in context: ManagedObjectContext) throws {
        func named(_ entity: String, _ name: String) throws -> ManagedObject {
            let object = try context.insertObject(forEntityName: entity)
            try object.setValue(.string(name), forKey: "name")
            return object
        }
        let research = try named("Department", "R&D")
        let sales = try named("Department", "Sales")
        let engine = try named("Project", "Engine")
        let apollo = try named("Project", "Apollo")
        var objects: [String: ManagedObject] = [:]
        let rows: [(String, Int64?, ManagedObject?, [ManagedObject])] = [
            ("Ada", 120_000, research, [engine, apollo]), ("Alan", 90_000, research, [engine]),
            ("Grace", 150_000, sales, [apollo]), ("Edsger", nil, sales, []), ("Barbara", 70_000, nil, []),
        ]
        for (name, salary, department, projects) in rows {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string(name), forKey: "firstName")
            try employee.setValue(.string(name + "son"), forKey: "lastName")
            try employee.setValue(salary.map { .integer($0) } ?? .null, forKey: "salary")
            try employee.setObject(department, forKey: "department")
            for project in projects { try employee.mutableSetValue(forKey: "projects").add(project) }
            objects[name] = employee
        }
        try objects["Alan"]?.setObject(objects["Ada"], forKey: "manager")
        try objects["Grace"]?.setObject(objects["Ada"], forKey: "manager")
        try context.save()
        employees = objects.mapValues(\.objectID)
        departments = ["R&D": research.objectID, "Sales": sales.objectID]
        projects = ["Engine": engine.objectID, "Apollo": apollo.objectID]
    }

    func employee(_ name: String) -> ManagedObjectID { employees[name]! }
}

/// A store's persistent value of one key of a record (nil when the record is gone).
func storedValue(_ id: ManagedObjectID, _ key: String, in store: any PersistentStore) throws -> PropertyValue? {
    guard let values = try store.values(for: id), let slot = id.entity.slot(forKey: key) else { return nil }
    return values[slot]
}
