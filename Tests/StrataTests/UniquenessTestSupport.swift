import Foundation
import Testing
@testable import Strata

/// A model with every kind of uniqueness constraint: one attribute (`Person.email`, shared
/// by the sub-entities `Employee` and `Customer`), one declared on a sub-entity
/// (`Employee.badge`), two attributes (`Slot.shelf, position`), and a team per person so
/// that merges have relationships to move.
let uniquenessModel: ManagedObjectModel = {
    let person = EntityDescription("Person", attributes: [
        AttributeDescription("email", .string),
        AttributeDescription("name", .string),
        AttributeDescription("age", .integer64),
    ], relationships: [
        RelationshipDescription("team", to: "Team", inverse: "members"),
        RelationshipDescription("notes", to: "Note", toMany: true, inverse: "author"),
    ], uniquenessConstraints: [["email"]])
    let employee = EntityDescription("Employee", parent: "Person", attributes: [
        AttributeDescription("badge", .integer64),
    ], uniquenessConstraints: [["badge"]])
    let customer = EntityDescription("Customer", parent: "Person", attributes: [
        AttributeDescription("account", .string),
    ])
    let team = EntityDescription("Team", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("members", to: "Person", toMany: true, inverse: "team"),
    ], uniquenessConstraints: [["name"]])
    let note = EntityDescription("Note", attributes: [AttributeDescription("text", .string)], relationships: [
        RelationshipDescription("author", to: "Person", inverse: "notes"),
    ])
    let slot = EntityDescription("Slot", attributes: [
        AttributeDescription("shelf", .string),
        AttributeDescription("position", .integer64),
        AttributeDescription("label", .string),
    ], uniquenessConstraints: [["shelf", "position"]])
    return try! ManagedObjectModel(entities: [person, employee, customer, team, note, slot])
}()

/// One store of `kind` over the uniqueness model, with fresh contexts on its coordinator.
struct UniquenessFixture {
    let kind: BatchStoreKind
    let fixture: BatchFixture

    init(_ kind: BatchStoreKind) throws {
        self.kind = kind
        fixture = try BatchFixture(kind, model: uniquenessModel)
    }

    var store: any PersistentStore { fixture.store }

    /// A new context with `policy`.
    func context(_ policy: MergePolicy = .error) -> ManagedObjectContext {
        let context = fixture.fresh()
        context.mergePolicy = policy
        return context
    }

    /// Saves one object of `entity` with `values`, from a context of its own; returns its ID.
    @discardableResult
    func saved(_ entity: String, _ values: [String: PropertyValue]) throws -> ManagedObjectID {
        let context = context()
        let object = try insert(entity, values, in: context)
        try context.save()
        return object.objectID
    }

    /// Every stored record of `entity` (and its sub-entities) as its values by name.
    func records(_ entity: String) throws -> [ManagedObjectID: [String: PropertyValue]] {
        let description = try uniquenessModel.entity(named: entity)
        var result: [ManagedObjectID: [String: PropertyValue]] = [:]
        for id in try store.objectIDs(for: description, includingSubentities: true) {
            guard let values = try store.values(for: id) else { continue }
            var named: [String: PropertyValue] = [:]
            for (slot, name) in id.entity.slotNames.enumerated() where slot < values.count { named[name] = values[slot] }
            result[id] = named
        }
        return result
    }
}

/// Inserts an object of `entity` with `values`.
@discardableResult
func insert(_ entity: String, _ values: [String: PropertyValue], in context: ManagedObjectContext) throws -> ManagedObject {
    let object = try context.insertObject(forEntityName: entity)
    for (key, value) in values.sorted(by: { $0.key < $1.key }) { try object.setValue(value, forKey: key) }
    return object
}

/// The policies that resolve conflicts instead of refusing the save.
let resolvingPolicies: [MergePolicy] = [.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback]
