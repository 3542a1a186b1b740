import Foundation
import Testing
@testable import Strata

/// A fresh in-memory stack over the example model.
struct Stack {
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let store: InMemoryStore
    let context: ManagedObjectContext

    init(model: ManagedObjectModel = sharedExampleModel) {
        self.model = model
        coordinator = PersistentStoreCoordinator(model: model)
        store = InMemoryStore(model: model)
        try! coordinator.addStore(store)
        context = ManagedObjectContext(coordinator: coordinator)
    }

    var undo: ContextUndoManager { context.undoManager! }

    /// A second context on the same coordinator.
    func newContext() -> ManagedObjectContext { ManagedObjectContext(coordinator: coordinator) }

    @discardableResult
    func employee(_ first: String = "Ada", _ last: String = "Lovelace", salary: Int64? = nil) throws -> ManagedObject {
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue(.string(first), forKey: "firstName")
        try employee.setValue(.string(last), forKey: "lastName")
        if let salary { try employee.setValue(.integer(salary), forKey: "salary") }
        return employee
    }

    @discardableResult
    func department(_ name: String = "Research") throws -> ManagedObject {
        let department = try context.insertObject(forEntityName: "Department")
        try department.setValue(.string(name), forKey: "name")
        return department
    }

    @discardableResult
    func project(_ name: String = "Engine") throws -> ManagedObject {
        let project = try context.insertObject(forEntityName: "Project")
        try project.setValue(.string(name), forKey: "name")
        return project
    }
}

func ids(_ objects: [ManagedObject]) -> Set<ManagedObjectID> { Set(objects.map(\.objectID)) }

extension ManagedObject {
    func related(_ key: String) throws -> ManagedObject? { try object(forKey: key) }
    func relatedSet(_ key: String) throws -> Set<ManagedObject> { Set(try objects(forKey: key)) }
}

/// The extra seed a seeded random test runs besides its regression seeds: fixed, so CI is
/// repeatable, unless `STRATA_SEED` names one or `STRATA_RANDOM_SEEDS=1` asks for a fresh
/// one each run (to explore).
func explorationSeed() -> UInt64 {
    let environment = ProcessInfo.processInfo.environment
    if let seed = environment["STRATA_SEED"].flatMap({ UInt64($0) }) { return seed }
    if environment["STRATA_RANDOM_SEEDS"] == "1" { return UInt64.random(in: 1...UInt64.max) }
    return 20_261_121
}
