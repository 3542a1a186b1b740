import Foundation
import Testing
@testable import Strata

/// A document in a fresh temporary directory with a coordinator and a context; removes the
/// directory when released.
final class BatchDocumentStack {
    let directory: URL
    let url: URL
    let model: ManagedObjectModel
    private(set) var store: DocumentStore
    private(set) var coordinator: PersistentStoreCoordinator
    private(set) var context: ManagedObjectContext

    init(model: ManagedObjectModel = sharedExampleModel, configuration: DocumentStore.Configuration = DocumentStore.Configuration()) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("doc.strata")
        self.model = model
        store = try DocumentStore(creatingAt: url, model: model, configuration: configuration)
        coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        context = ManagedObjectContext(coordinator: coordinator)
    }

    deinit {
        try? store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A second context on the same coordinator.
    func newContext() -> ManagedObjectContext { ManagedObjectContext(coordinator: coordinator) }

    /// Closes the document and opens it again, with a new coordinator and context.
    func reopen(configuration: DocumentStore.Configuration = DocumentStore.Configuration()) throws {
        try store.close()
        store = try DocumentStore(openingAt: url, model: model, configuration: configuration)
        coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        context = ManagedObjectContext(coordinator: coordinator)
    }
}

/// Document settings that never compact on their own, so the overlay stays in use.
var neverCompacting: DocumentStore.Configuration {
    var configuration = DocumentStore.Configuration()
    configuration.compactionSegmentThreshold = 0
    configuration.compactionByteThreshold = 0
    configuration.compactsOnClose = false
    return configuration
}

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
