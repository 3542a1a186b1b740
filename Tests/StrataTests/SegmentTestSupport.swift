import Foundation
import OrderedCollections
import Testing
@testable import Strata

/// The fixed model, segments and helpers shared by the segment tests. The model and the
/// golden segment must never change: the golden files were made from them.
enum SegmentFixture {
    static let storeTag = StoreRegistry.tag(for: "segment-tests-store")

    // Employee slots (attributes first, then relationships, in declaration order).
    static let age = 0, level = 1, salary = 2, bonus = 3, rating = 4, height = 5, name = 6
    static let active = 7, hired = 8, photo = 9, badge = 10, homepage = 11, settings = 12
    static let draft = 13, department = 14, recentDepartments = 15
    // Department slots.
    static let departmentName = 0, budget = 1, code = 2, employees = 3

    /// Department/Employee with every attribute type, one transient attribute and one
    /// transient relationship. A fresh model on every call (entities belong to one model).
    static func makeModel() throws -> ManagedObjectModel {
        let department = EntityDescription("Department", attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("budget", .decimal),
            AttributeDescription("code", .uuid),
        ], relationships: [
            RelationshipDescription("employees", to: "Employee", toMany: true, inverse: "department"),
        ])
        let employee = EntityDescription("Employee", attributes: [
            AttributeDescription("age", .integer16),
            AttributeDescription("level", .integer32),
            AttributeDescription("salary", .integer64),
            AttributeDescription("bonus", .decimal),
            AttributeDescription("rating", .double),
            AttributeDescription("height", .float),
            AttributeDescription("name", .string),
            AttributeDescription("active", .boolean),
            AttributeDescription("hired", .date),
            AttributeDescription("photo", .binaryData),
            AttributeDescription("badge", .uuid),
            AttributeDescription("homepage", .uri),
            AttributeDescription("settings", .transformable),
            AttributeDescription("draft", .string, isTransient: true),
        ], relationships: [
            RelationshipDescription("department", to: "Department", inverse: "employees"),
            RelationshipDescription("recentDepartments", to: "Department", toMany: true, isTransient: true),
        ])
        return try ManagedObjectModel(entities: [department, employee])
    }

    static func id(_ model: ManagedObjectModel, _ entity: String, _ key: Int64) -> ManagedObjectID {
        ManagedObjectID(entity: model.entitiesByName[entity]!, storeTag: storeTag, primaryKey: key)
    }

    static func decimal(_ text: String) -> Decimal { Decimal(string: text)! }

    /// Every Employee slot filled; the transient ones hold values the encoder must drop.
    static func employeeValues(_ model: ManagedObjectModel, key: Int64 = 1) -> [PropertyValue] {
        [
            .integer(41), .integer(-70_000), .integer(9_000_000_000), .decimal(decimal("-1234.5678")),
            .double(4.5), .double(Double(Float(1.75))), .string("Zoë Ångström 🚀"), .boolean(true),
            .date(Date(timeIntervalSince1970: 1_600_000_000.25)), .data(Data([0, 1, 2, 0xFE, 0xFF])),
            .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
            .uri(URL(string: "https://example.com/people/\(key)?q=a%20b")!), .data(Data("{\"k\":1}".utf8)),
            .string("unsaved draft"), .object(id(model, "Department", 1)),
            .objects([id(model, "Department", 1)]),
        ]
    }

    /// The hand-built segment the v1-basic golden files were made from.
    static func goldenSegment(_ model: ManagedObjectModel) -> Segment {
        let dept = id(model, "Department", 1)
        let alice = id(model, "Employee", 1)
        let bob = id(model, "Employee", 2)
        var bobValues = employeeValues(model, key: 2)
        bobValues[salary] = .null
        bobValues[active] = .boolean(false)
        bobValues[department] = .null
        return Segment(sequence: 3, timestamp: Date(timeIntervalSince1970: 1_700_000_000.123), groups: [
            SegmentGroup(id: 1, kind: .user, revertsGroup: nil, actionName: "Add Department", operations: [
                .insert(dept, values: [.string("Research"), .decimal(decimal("125000.50")),
                                       .uuid(UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!),
                                       .objects([alice])]),
                .insert(alice, values: employeeValues(model)),
                .insert(bob, values: bobValues),
            ]),
            SegmentGroup(id: 2, kind: .user, revertsGroup: nil, actionName: "Edit", operations: [
                .update(alice, changes: [
                    SlotChange(slot: salary, old: .integer(9_000_000_000), new: .integer(9_500_000_000)),
                    SlotChange(slot: draft, old: .string("a"), new: .string("b")),
                    SlotChange(slot: rating, old: .double(4.5), new: .double(4.75)),
                ]),
                .update(alice, changes: [SlotChange(slot: draft, old: .null, new: .string("only transient"))]),
                .relate(dept, slot: employees, added: [bob], removed: []),
                .relate(alice, slot: recentDepartments, added: [dept], removed: []),
                .update(bob, changes: [SlotChange(slot: department, old: .null, new: .object(dept))]),
            ]),
            SegmentGroup(id: 3, kind: .undo, revertsGroup: 2, actionName: "Undo Edit", operations: [
                .delete(bob, values: bobValues),
                .update(alice, changes: [SlotChange(slot: bonus, old: .decimal(decimal("-1234.5678")), new: .null)]),
            ]),
        ])
    }

    /// What decoding the golden body gives: transient slots emptied, transient-only
    /// operations gone.
    static func goldenDecoded(_ model: ManagedObjectModel) -> Segment {
        var segment = goldenSegment(model)
        segment.groups = segment.groups.map { group in
            var group = group
            group.operations = group.operations.compactMap { persistentPart(of: $0) }
            return group
        }
        return segment
    }

    /// An operation as it reads back: transient slots cleared or dropped.
    static func persistentPart(of operation: ChangeOperation) -> ChangeOperation? {
        let entity = operation.objectID.entity
        func isTransient(_ slot: Int) -> Bool {
            entity.attributesByName[entity.slotNames[slot]]?.isTransient
                ?? entity.relationshipsByName[entity.slotNames[slot]]?.isTransient ?? false
        }
        func placeholder(_ slot: Int) -> PropertyValue {
            entity.relationshipsByName[entity.slotNames[slot]]?.isToMany == true ? .objects([]) : .null
        }
        switch operation {
        case .insert(let id, let values):
            return .insert(id, values: values.enumerated().map { isTransient($0) ? placeholder($0) : $1 })
        case .delete(let id, let values):
            return .delete(id, values: values.enumerated().map { isTransient($0) ? placeholder($0) : $1 })
        case .update(let id, let changes):
            let kept = changes.filter { !isTransient($0.slot) }
            return kept.isEmpty ? nil : .update(id, changes: SlotChanges(kept))
        case .relate(_, let slot, _, _), .splice(_, let slot, _):
            return isTransient(slot) ? nil : operation
        }
    }

    /// The folder of the golden files in the source tree.
    static var goldenDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/segments", isDirectory: true)
    }

    static func readGolden(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: goldenDirectory.appendingPathComponent(name)))
    }

    /// Writes a golden body and its LZ4 frame, only when STRATA_WRITE_GOLDEN=1 is set
    /// (Fixtures/segments/README.md): the files must never change otherwise.
    static func writeGoldenFilesIfAsked(body bodyFile: String, frame frameFile: String, _ encode: () throws -> [UInt8]) throws {
        guard ProcessInfo.processInfo.environment["STRATA_WRITE_GOLDEN"] == "1" else { return }
        let body = try encode()
        try FileManager.default.createDirectory(at: goldenDirectory, withIntermediateDirectories: true)
        try Data(body).write(to: goldenDirectory.appendingPathComponent(bodyFile))
        try Data(LZ4Frame.compress(body)).write(to: goldenDirectory.appendingPathComponent(frameFile))
    }
}

/// Asserts that decoding `body` fails with `.corruptSegment` at `offset`, naming the
/// segment in context and message, with a reason containing `reason`.
func expectCorruptSegment(
    _ body: [UInt8], model: ManagedObjectModel, offset: Int, reason: String, segment: String = "9",
    sequenceHint: UInt64? = 9, sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        let decoded = try SegmentDecoder.decode(body, model: model, storeTag: SegmentFixture.storeTag,
                                                sequenceHint: sequenceHint)
        Issue.record("decoding succeeded unexpectedly: \(decoded)", sourceLocation: sourceLocation)
    } catch let error as StrataError {
        #expect(error.code == .corruptSegment, sourceLocation: sourceLocation)
        #expect(error.context.offset == offset, "\(error.message)", sourceLocation: sourceLocation)
        // An unknown sequence ("?" in the message) is no segment in the context.
        #expect(error.context.segment.map(String.init) ?? "?" == segment, sourceLocation: sourceLocation)
        #expect(error.context.layer == .segmentBody, sourceLocation: sourceLocation)
        #expect(error.message.contains("byte \(offset)"), "\(error.message)", sourceLocation: sourceLocation)
        #expect(error.message.contains("Segment \(segment)"), "\(error.message)", sourceLocation: sourceLocation)
        #expect(error.message.contains(reason), "\(error.message)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
    }
}
