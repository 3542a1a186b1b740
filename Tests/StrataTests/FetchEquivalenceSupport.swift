import Foundation
import Testing
@testable import Strata

/// One edit of the equivalence script, applied identically to every world. Objects are
/// named by their index in the world's per-entity lists.
enum EquivalenceStep: CustomStringConvertible {
    struct NewEmployee {
        var first: String, last: String, salary: PropertyValue, rating: PropertyValue, bonus: PropertyValue
        var start: PropertyValue, active: Bool, department: Int?, manager: Int?, projects: [Int]
    }
    case insertEmployee(NewEmployee)
    case insertDepartment(name: String, budget: PropertyValue)
    case insertProject(name: String, deadline: PropertyValue)
    case set(entity: String, index: Int, key: String, value: PropertyValue)
    case relate(employee: Int, key: String, to: Int?)
    case join(employee: Int, project: Int, adding: Bool)
    case delete(entity: String, index: Int)
    case save

    var description: String {
        switch self {
        case .insertEmployee(let new): return "insert Employee \(new.first) \(new.last) salary \(new.salary) dept \(new.department.map(String.init) ?? "-") mgr \(new.manager.map(String.init) ?? "-")"
        case .insertDepartment(let name, _): return "insert Department \(name)"
        case .insertProject(let name, _): return "insert Project \(name)"
        case .set(let entity, let index, let key, let value): return "\(entity)#\(index).\(key) = \(value)"
        case .relate(let employee, let key, let to): return "Employee#\(employee).\(key) = \(to.map(String.init) ?? "nil")"
        case .join(let employee, let project, let adding): return "Employee#\(employee) \(adding ? "joins" : "leaves") Project#\(project)"
        case .delete(let entity, let index): return "delete \(entity)#\(index)"
        case .save: return "save"
        }
    }
}

/// A context over one store, with the script's objects by entity and index.
final class EquivalenceWorld {
    let name: String
    private(set) var context: ManagedObjectContext
    var objects: [String: [ManagedObject]] = ["Employee": [], "Department": [], "Project": []]

    init(name: String, context: ManagedObjectContext) {
        self.name = name
        self.context = context
    }

    /// Switches to a new context (after reopening), re-resolving the saved objects.
    func adopt(_ context: ManagedObjectContext) {
        self.context = context
        objects = objects.mapValues { list in list.map { $0.objectID.isTemporaryID ? $0 : context.object(with: $0.objectID) } }
    }

    /// Whether the object exists now, in this context (pending changes included).
    func isAlive(_ object: ManagedObject) -> Bool {
        if object.isInvalid || object.isDeleted || object.context !== context { return false }
        if object.isInserted { return true }
        return (try? context.coordinator.values(for: object.objectID)) != nil
    }

    /// The indexes of the live objects of an entity.
    func live(_ entity: String) -> [Int] {
        (objects[entity] ?? []).indices.filter { isAlive(objects[entity]![$0]) }
    }

    func object(_ entity: String, _ index: Int) throws -> ManagedObject {
        try #require(objects[entity]?[index])
    }

    func apply(_ step: EquivalenceStep) throws {
        switch step {
        case .insertEmployee(let new):
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string(new.first), forKey: "firstName")
            try employee.setValue(.string(new.last), forKey: "lastName")
            try employee.setValue(new.salary, forKey: "salary")
            try employee.setValue(new.rating, forKey: "rating")
            try employee.setValue(new.bonus, forKey: "bonus")
            try employee.setValue(new.start, forKey: "startDate")
            try employee.setValue(.boolean(new.active), forKey: "active")
            if let department = new.department { try employee.setObject(try object("Department", department), forKey: "department") }
            if let manager = new.manager { try employee.setObject(try object("Employee", manager), forKey: "manager") }
            for project in new.projects { try employee.mutableSetValue(forKey: "projects").add(try object("Project", project)) }
            objects["Employee"]!.append(employee)
        case .insertDepartment(let name, let budget):
            let department = try context.insertObject(forEntityName: "Department")
            try department.setValue(.string(name), forKey: "name")
            try department.setValue(budget, forKey: "budget")
            objects["Department"]!.append(department)
        case .insertProject(let name, let deadline):
            let project = try context.insertObject(forEntityName: "Project")
            try project.setValue(.string(name), forKey: "name")
            try project.setValue(deadline, forKey: "deadline")
            objects["Project"]!.append(project)
        case .set(let entity, let index, let key, let value):
            try object(entity, index).setValue(value, forKey: key)
        case .relate(let employee, let key, let to):
            let destination = try to.map { try object(key == "department" ? "Department" : "Employee", $0) }
            try object("Employee", employee).setObject(destination, forKey: key)
        case .join(let employee, let project, let adding):
            let set = try object("Employee", employee).mutableSetValue(forKey: "projects")
            if adding { try set.add(try object("Project", project)) } else { try set.remove(try object("Project", project)) }
        case .delete(let entity, let index):
            context.delete(try object(entity, index))
        case .save:
            try context.save()
        }
    }

    /// Labels that name the same object in every world: `Employee3`.
    func labels() -> [ManagedObjectID: String] {
        var result: [ManagedObjectID: String] = [:]
        for (entity, list) in objects {
            for (index, object) in list.enumerated() { result[object.objectID] = "\(entity)\(index)" }
        }
        return result
    }

    /// Substitution values for the `$E3`, `$D0`, `$P1` variables of a predicate.
    func variables() -> [String: PropertyValue] {
        var result: [String: PropertyValue] = [:]
        for (entity, list) in objects {
            for (index, object) in list.enumerated() { result["\(entity.prefix(1))\(index)"] = .object(object.objectID) }
        }
        return result
    }
}
