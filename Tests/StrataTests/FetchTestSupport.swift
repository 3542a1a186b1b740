import Foundation
import Testing
@testable import Strata

/// A store that forwards to an in-memory store and counts the calls that load records, so
/// tests can prove which faults fire.
final class CountingStore: PersistentStore {
    let base: InMemoryStore
    private let counters = Locked((values: 0, fetches: 0, counts: 0))

    init(model: ManagedObjectModel) { base = InMemoryStore(model: model) }

    var identifier: String { base.identifier }
    var configurationName: String? { base.configurationName }
    var model: ManagedObjectModel { base.model }

    /// How many records were loaded with `values(for:)`.
    var valuesCalls: Int { counters.withLock { $0.values } }
    /// How many `fetchObjectIDs` calls were made.
    var fetchCalls: Int { counters.withLock { $0.fetches } }
    /// How many `countObjects` calls were made.
    var countCalls: Int { counters.withLock { $0.counts } }
    func resetCounts() { counters.withLock { $0 = (0, 0, 0) } }

    func values(for objectID: ManagedObjectID) throws -> [PropertyValue]? {
        counters.withLock { $0.values += 1 }
        return try base.values(for: objectID)
    }
    func objectIDs(for entity: EntityDescription, includingSubentities: Bool) throws -> [ManagedObjectID] {
        try base.objectIDs(for: entity, includingSubentities: includingSubentities)
    }
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> ClosedRange<Int64> {
        try base.allocatePrimaryKeys(for: entity, count: count)
    }
    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult { try base.save(request) }
    func largestGroupID() throws -> UInt64 { try base.largestGroupID() }
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        counters.withLock { $0.fetches += 1 }
        return try base.fetchObjectIDs(request)
    }
    func countObjects(_ request: StoreFetchRequest) throws -> Int {
        counters.withLock { $0.counts += 1 }
        return try base.countObjects(request)
    }
}

/// A saved graph to fetch from: two departments and five employees.
///
/// | employee        | salary  | department |
/// |-----------------|---------|------------|
/// | Ada Lovelace    | 120000  | R&D        |
/// | Alan Turing     |  90000  | R&D        |
/// | Grace Hopper    | 150000  | Sales      |
/// | Edsger dijkstra |  (nil)  | Sales      |
/// | Barbara Liskov  |  70000  | (none)     |
struct FetchFixture {
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let store: CountingStore
    let context: ManagedObjectContext

    init() throws {
        model = sharedExampleModel
        coordinator = PersistentStoreCoordinator(model: model)
        store = CountingStore(model: model)
        try coordinator.addStore(store)
        context = ManagedObjectContext(coordinator: coordinator)
        let research = try insertDepartment("R&D")
        let sales = try insertDepartment("Sales")
        try insertEmployee("Ada", "Lovelace", salary: 120_000, department: research)
        try insertEmployee("Alan", "Turing", salary: 90_000, department: research)
        try insertEmployee("Grace", "Hopper", salary: 150_000, department: sales)
        try insertEmployee("Edsger", "dijkstra", salary: nil, department: sales)
        try insertEmployee("Barbara", "Liskov", salary: 70_000, department: nil)
        try context.save()
    }

    /// A new context on the same store, with nothing registered.
    func freshContext() -> ManagedObjectContext { ManagedObjectContext(coordinator: coordinator) }

    @discardableResult
    func insertDepartment(_ name: String, in context: ManagedObjectContext? = nil) throws -> ManagedObject {
        let department = try (context ?? self.context).insertObject(forEntityName: "Department")
        try department.setValue(.string(name), forKey: "name")
        return department
    }

    @discardableResult
    func insertEmployee(
        _ first: String, _ last: String, salary: Int64?, department: ManagedObject?, in context: ManagedObjectContext? = nil
    ) throws -> ManagedObject {
        let employee = try (context ?? self.context).insertObject(forEntityName: "Employee")
        try employee.setValue(.string(first), forKey: "firstName")
        try employee.setValue(.string(last), forKey: "lastName")
        try employee.setValue(salary.map { .integer($0) } ?? .null, forKey: "salary")
        try employee.setObject(department, forKey: "department")
        return employee
    }

    /// The one registered-or-fetched employee with this last name.
    func employee(_ lastName: String, in context: ManagedObjectContext? = nil) throws -> ManagedObject {
        let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "lastName == %@", .value(.string(lastName))))
        let found = try (context ?? self.context).fetch(request)
        guard found.count == 1 else { throw StrataError(.objectNotFound, "no single employee \(lastName)") }
        return found[0]
    }

    func department(_ name: String, in context: ManagedObjectContext? = nil) throws -> ManagedObject {
        let request = FetchRequest(entityName: "Department", predicate: try FetchPredicate(format: "name == %@", .value(.string(name))))
        let found = try (context ?? self.context).fetch(request)
        guard found.count == 1 else { throw StrataError(.objectNotFound, "no single department \(name)") }
        return found[0]
    }
}

/// The last names of objects, in order.
func lastNames(_ objects: [ManagedObject]) throws -> [String] {
    try objects.map { try $0.string("lastName") ?? "?" }
}

/// An employees request with a predicate format and sort keys.
func employeesRequest(_ format: String? = nil, sortedBy sorts: [FetchSortDescriptor] = []) throws -> FetchRequest<ManagedObject> {
    FetchRequest(entityName: "Employee", predicate: try format.map { try FetchPredicate(format: $0) }, sortDescriptors: sorts)
}
