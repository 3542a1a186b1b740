import Foundation
import Testing
@testable import Strata

// Shared helpers and small models for the object/context/undo/save test suites.
//
// Models that have subclasses registered are kept in global constants on purpose: the
// class registry is keyed by the model's identity, so a model must outlive every context
// that uses it.

/// A lock-protected value that notification observers (which must be `@Sendable`) can
/// write and tests can read.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: Value
    init(_ value: Value) { _value = value }
    var value: Value {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&_value) } }
}

/// Records the notifications of some names posted by one object, in order.
final class NotificationRecorder: @unchecked Sendable {
    private let box = LockedBox<[(name: Notification.Name, userInfo: [String: Set<ManagedObjectID>])]>([])
    private var tokens: [any NSObjectProtocol] = []

    init(_ names: [Notification.Name], object: AnyObject) {
        for name in names {
            let box = self.box
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { note in
                var info: [String: Set<ManagedObjectID>] = [:]
                for (key, value) in note.userInfo ?? [:] {
                    if let key = key as? String, let ids = value as? Set<ManagedObjectID> { info[key] = ids }
                }
                box.mutate { $0.append((note.name, info)) }
            })
        }
    }

    deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }

    var names: [Notification.Name] { box.value.map(\.name) }
    var userInfos: [[String: Set<ManagedObjectID>]] { box.value.map(\.userInfo) }
    func clear() { box.value = [] }
}

/// The error `body` throws, as a ``StrataError`` (nil when it throws nothing or another type).
func strataError(_ body: () throws -> Void) -> StrataError? {
    do {
        try body()
        return nil
    } catch let error as StrataError {
        return error
    } catch {
        return nil
    }
}

extension Stack {
    /// An employee saved to the store, returned with its permanent ID.
    @discardableResult
    func savedEmployee(_ first: String = "Ada", _ last: String = "Lovelace", salary: Int64? = nil) throws -> ManagedObject {
        let employee = try self.employee(first, last, salary: salary)
        try context.save()
        return employee
    }
}

extension ManagedObjectContext {
    /// The object with this ID, loaded from the store.
    func loaded(_ id: ManagedObjectID) throws -> ManagedObject { try existingObject(with: id) }
}

extension ManagedObject {
    func slot(_ key: String) -> Int { entity.slot(forKey: key) ?? -1 }
}

// MARK: Small models

/// `Driver.car` ↔ `Car.driver`: a one-to-one.
let oneToOneModel: ManagedObjectModel = {
    let driver = EntityDescription("Driver", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("car", to: "Car", inverse: "driver"),
    ])
    let car = EntityDescription("Car", attributes: [AttributeDescription("plate", .string)], relationships: [
        RelationshipDescription("driver", to: "Driver", inverse: "car"),
    ])
    return try! ManagedObjectModel(entities: [driver, car])
}()

/// `Company -cascade-> Department -cascade-> Employee`, nullify on the way back.
let cascadeModel: ManagedObjectModel = {
    let company = EntityDescription("Company", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("departments", to: "Department", toMany: true, inverse: "company", deleteRule: .cascade),
    ])
    let department = EntityDescription("Department", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("company", to: "Company", inverse: "departments"),
        RelationshipDescription("employees", to: "Employee", toMany: true, inverse: "department", deleteRule: .cascade),
    ])
    let employee = EntityDescription("Employee", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("department", to: "Department", inverse: "employees"),
    ])
    return try! ManagedObjectModel(entities: [company, department, employee])
}()

/// `Owner.pets` (deny) ↔ `Pet.owner`, and `Keeper.animals` (noAction) ↔ `Animal.keeper`.
let denyAndNoActionModel: ManagedObjectModel = {
    let owner = EntityDescription("Owner", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("pets", to: "Pet", toMany: true, inverse: "owner", deleteRule: .deny),
    ])
    let pet = EntityDescription("Pet", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("owner", to: "Owner", inverse: "pets"),
    ])
    let keeper = EntityDescription("Keeper", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("animals", to: "Animal", toMany: true, inverse: "keeper", deleteRule: .noAction),
    ])
    let animal = EntityDescription("Animal", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("keeper", to: "Keeper", inverse: "animals"),
    ])
    return try! ManagedObjectModel(entities: [owner, pet, keeper, animal])
}()

/// Inserts an object of `entity` with a `name` attribute.
@discardableResult
func insertNamed(_ entity: String, _ name: String, in context: ManagedObjectContext) throws -> ManagedObject {
    let object = try context.insertObject(forEntityName: entity)
    try object.setValue(.string(name), forKey: "name")
    return object
}
