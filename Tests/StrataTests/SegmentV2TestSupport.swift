import Foundation
import OrderedCollections
@testable import Strata

/// The fixed model and segment the format v2 golden files were made from
/// (Fixtures/segments/v2-*). Neither may ever change.
enum SegmentV2Fixture {
    /// Department, Person and Manager (a sub-entity of Person). Person has every attribute
    /// type, a transient attribute, a to-one to Department (a hierarchy of one entity: keys
    /// only), a to-one to Person (a hierarchy of two: entity and key) and a to-many.
    static func makeModel() throws -> ManagedObjectModel {
        let department = EntityDescription("Department", attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("budget", .decimal, isOptional: true),
            AttributeDescription("code", .uuid, isOptional: true),
        ], relationships: [
            RelationshipDescription("members", to: "Person", toMany: true, inverse: "department"),
        ])
        let person = EntityDescription("Person", attributes: [
            AttributeDescription("age", .integer16, isOptional: true),
            AttributeDescription("level", .integer32, isOptional: true),
            AttributeDescription("salary", .integer64, isOptional: true),
            AttributeDescription("bonus", .decimal, isOptional: true),
            AttributeDescription("rating", .double, isOptional: true),
            AttributeDescription("height", .float, isOptional: true),
            AttributeDescription("name", .string, isOptional: true),
            AttributeDescription("active", .boolean, isOptional: true),
            AttributeDescription("hired", .date, isOptional: true),
            AttributeDescription("photo", .binaryData, isOptional: true),
            AttributeDescription("badge", .uuid, isOptional: true),
            AttributeDescription("homepage", .uri, isOptional: true),
            AttributeDescription("settings", .transformable, isOptional: true),
            AttributeDescription("draft", .string, isTransient: true),
        ], relationships: [
            RelationshipDescription("department", to: "Department", inverse: "members"),
            RelationshipDescription("mentor", to: "Person", inverse: "mentees"),
            RelationshipDescription("mentees", to: "Person", toMany: true, inverse: "mentor"),
        ])
        let manager = EntityDescription("Manager", parent: "Person", attributes: [
            AttributeDescription("reports", .integer64, isOptional: true),
        ])
        return try ManagedObjectModel(entities: [department, person, manager])
    }

    static let storeTag = SegmentFixture.storeTag

    static func id(_ model: ManagedObjectModel, _ entity: String, _ key: Int64) -> ManagedObjectID {
        ManagedObjectID(entity: model.entitiesByName[entity]!, storeTag: storeTag, primaryKey: key)
    }

    /// The values of a Person (or Manager) row, every slot null except those given by name.
    static func values(_ model: ManagedObjectModel, _ entity: String, _ named: [String: PropertyValue]) -> [PropertyValue] {
        let description = model.entitiesByName[entity]!
        var values = [PropertyValue](repeating: .null, count: description.slotCount)
        for (slot, name) in description.slotNames.enumerated() {
            if description.relationshipsByName[name]?.isToMany == true { values[slot] = .objects([]) }
            if let value = named[name] { values[slot] = value }
        }
        return values
    }

    /// A Person with every attribute set, varied by `n`.
    static func fullPerson(_ model: ManagedObjectModel, _ n: Int64, entity: String = "Person",
                           extra: [String: PropertyValue] = [:]) -> [PropertyValue] {
        var named: [String: PropertyValue] = [
            "age": .integer(30 + n), "level": .integer(-n), "salary": .integer(100_000 + 1_000 * n),
            "bonus": .decimal(Decimal(string: "12.5")! * Decimal(n)), "rating": .double(Double(n) / 4),
            "height": .double(Double(Float(1.5) + Float(n) / 8)), "name": .string("Person \(n) ü"),
            "active": .boolean(n % 2 == 0), "hired": .date(Date(timeIntervalSinceReferenceDate: 600_000_000.5 + Double(n))),
            "photo": .data(Data([UInt8(n), 0, 0xFF])), "badge": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E\(10 + n)")!),
            "homepage": .uri(URL(string: "https://example.com/p/\(n)")!), "settings": .data(Data("{\"n\":\(n)}".utf8)),
            "draft": .string("transient \(n)"), "department": .object(id(model, "Department", 1)),
        ]
        named.merge(extra) { $1 }
        return values(model, entity, named)
    }

    /// The hand-built segment of the v2-basic golden files: runs of inserts (consecutive and
    /// scattered keys, nulls by bitmap and whole columns, sub-entities, to-ones to a
    /// hierarchy) interleaved with single inserts, updates, relates and deletes.
    static func goldenSegment(_ model: ManagedObjectModel) -> Segment {
        let dept1 = id(model, "Department", 1), dept2 = id(model, "Department", 2)
        let person = { (key: Int64) in id(model, "Person", key) }
        let manager = { (key: Int64) in id(model, "Manager", key) }
        var sparse = fullPerson(model, 4)
        for name in ["age", "bonus", "name", "photo", "homepage", "department"] {
            sparse[model.entitiesByName["Person"]!.slotNames.firstIndex(of: name)!] = .null
        }
        return Segment(sequence: 5, timestamp: Date(timeIntervalSince1970: 1_750_000_000.456), groups: [
            SegmentGroup(id: 10, kind: .batch, revertsGroup: nil, actionName: "Import", operations: [
                .insert(dept1, values: values(model, "Department", [
                    "name": .string("Research"), "budget": .decimal(Decimal(string: "125000.50")!),
                    "code": .uuid(UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!)])),
                .insert(dept2, values: values(model, "Department", ["name": .string("Sales"), "budget": .null])),
                .insert(person(1), values: fullPerson(model, 1)),
                .insert(person(2), values: fullPerson(model, 2, extra: ["mentor": .object(person(1))])),
                .insert(person(3), values: fullPerson(model, 3, extra: ["mentor": .object(manager(8)),
                                                                        "mentees": .objects([person(1), person(2)])])),
                .insert(person(4), values: sparse),
                .update(person(1), changes: [SlotChange(slot: 2, old: .integer(101_000), new: .integer(101_500))]),
                .insert(person(7), values: fullPerson(model, 7)),
                .insert(person(5), values: values(model, "Person", ["name": .string("five")])),
                .insert(manager(8), values: fullPerson(model, 8, entity: "Manager", extra: ["reports": .integer(3)])),
                .insert(person(9), values: fullPerson(model, 9)),
                .insert(manager(10), values: fullPerson(model, 10, entity: "Manager", extra: ["reports": .integer(0)])),
                .insert(manager(11), values: values(model, "Manager", ["reports": .integer(-1)])),
                .relate(dept2, slot: 3, added: [person(5)], removed: []),
            ]),
            SegmentGroup(id: 11, kind: .user, revertsGroup: nil, actionName: "Edit", operations: [
                .delete(person(9), values: fullPerson(model, 9)),
                .insert(person(-3), values: values(model, "Person", [:])),
                .insert(person(.max), values: values(model, "Person", ["salary": .integer(.min), "rating": .double(-0.0)])),
                .insert(person(.min), values: values(model, "Person", ["salary": .integer(.max), "active": .boolean(false)])),
            ]),
        ])
    }

    /// What decoding the golden body gives: the transient slot emptied.
    static func goldenDecoded(_ model: ManagedObjectModel) -> Segment {
        var segment = goldenSegment(model)
        segment.groups = segment.groups.map { group in
            var group = group
            group.operations = group.operations.compactMap { SegmentFixture.persistentPart(of: $0) }
            return group
        }
        return segment
    }
}
