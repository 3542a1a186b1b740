import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// docs/ARCHITECTURE.md, "Objects' values: owned or a row of a fetched batch": a fetch of
/// objects streamed from a document keeps their values column by column in shared batches;
/// each object reads there until it changes a value, and every path that reads or writes
/// values behaves as with values of its own.
@Suite struct FetchedRowValuesTests {
    /// Readings (every kind of attribute, a transient with a default, a to-one and no
    /// to-many: what a streamed fetch reads) of sensors.
    static let model: ManagedObjectModel = {
        let reading = EntityDescription("Reading", attributes: [
            AttributeDescription("label", .string),
            AttributeDescription("count", .integer64),
            AttributeDescription("level", .double),
            AttributeDescription("takenAt", .date),
            AttributeDescription("valid", .boolean),
            AttributeDescription("amount", .decimal),
            AttributeDescription("tag", .uuid),
            AttributeDescription("blob", .binaryData),
            AttributeDescription("note", .string, isTransient: true, defaultValue: .string("unsaved")),
        ], relationships: [
            RelationshipDescription("sensor", to: "Sensor", inverse: "readings"),
        ])
        let sensor = EntityDescription("Sensor", attributes: [
            AttributeDescription("name", .string),
        ], relationships: [
            RelationshipDescription("readings", to: "Reading", toMany: true, inverse: "sensor"),
        ])
        do {
            return try ManagedObjectModel(entities: [reading, sensor], versionIdentifier: "fetched-rows-1")
        } catch {
            preconditionFailure("the test model is invalid: \(error)")
        }
    }()

    /// Reading `index`'s stored values by key: NULLs every third label and every fifth level.
    static func values(_ index: Int) -> [String: PropertyValue] {
        [
            "label": index % 3 == 0 ? .null : .string("reading \(index)"),
            "count": .integer(Int64(index) * 7 - 50),
            "level": index % 5 == 0 ? .null : .double(Double(index) / 4),
            "takenAt": .date(Date(timeIntervalSinceReferenceDate: 1_000_000 + Double(index))),
            "valid": .boolean(index % 2 == 0),
            "amount": index % 4 == 0 ? .decimal(Decimal(index) / 100) : .null,
            "tag": .uuid(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index))!),
            "blob": index % 7 == 0 ? .data(Data([UInt8(index & 0xff), 1, 2])) : .null,
        ]
    }

    /// A compacted document of `count` readings of two sensors (the odd ones have none).
    static func document(_ count: Int) throws -> DocumentStack {
        let stack = try DocumentStack(model: model)
        stack.context.undoManager = nil
        let sensors = try ["north", "south"].map { name in
            let sensor = try stack.context.insertObject(forEntityName: "Sensor")
            try sensor.setValue(.string(name), forKey: "name")
            return sensor
        }
        for index in 0..<count {
            let reading = try stack.context.insertObject(forEntityName: "Reading")
            for (key, value) in values(index) { try reading.setValue(value, forKey: key) }
            if index % 2 == 0 { try reading.setObject(sensors[index / 2 % 2], forKey: "sensor") }
        }
        try stack.context.save()
        try stack.store.compact()
        return stack
    }

    /// Every reading, its values loaded, in `count` order.
    static func fetchAll(_ context: ManagedObjectContext) throws -> [ManagedObject] {
        let request = FetchRequest(entityName: "Reading")
        request.sortDescriptors = [FetchSortDescriptor("count")]
        request.returnsObjectsAsFaults = false
        return try context.fetch(request)
    }

    @Test func aStreamedFetchReadsEveryValueFromSharedBatches() throws {
        let count = FetchedRowBatch.rowLimit + 100
        let stack = try Self.document(count)
        let context = stack.newContext()
        let readings = try Self.fetchAll(context)
        #expect(readings.count == count)
        let batches = readings.compactMap { $0.storage.batch }
        #expect(batches.count == count, "every clean fetched object reads from a batch")
        #expect(Set(batches.map(ObjectIdentifier.init)).count == 2, "\(count) rows: two batches")
        for (index, reading) in readings.enumerated() {
            #expect(!reading.isFault && !reading.isUpdated && !reading.hasChanges)
            for (key, value) in Self.values(index) { #expect(try reading.value(forKey: key) == value, "\(index) \(key)") }
            #expect(try reading.value(forKey: "note") == .string("unsaved"), "the transient's default")
            let sensor = try reading.related("sensor")
            #expect(try sensor?.string("name") == (index % 2 == 0 ? ["north", "south"][index / 2 % 2] : nil))
        }
        // The same values as a fault fired alone reads (a list of its own).
        let other = stack.newContext()
        for index in [0, 1, 4_095, 4_096, count - 1] {
            let fault = try other.existingObject(with: readings[index].objectID)
            #expect(fault.storage.batch == nil)
            #expect(fault.storage == readings[index].storage.array)
        }
    }

    @Test func aChangedObjectGetsValuesOfItsOwnAndUndoPutsThemBack() throws {
        let stack = try Self.document(50)
        let context = stack.newContext()
        let readings = try Self.fetchAll(context)
        let reading = readings[10]
        try reading.setValue(.string("changed"), forKey: "label")
        #expect(reading.storage.batch == nil, "a write copies the row out")
        #expect(readings[9].storage.batch != nil && readings[11].storage.batch != nil, "the others still share it")
        #expect(reading.isUpdated)
        #expect(reading.changedValues() == ["label": .string("changed")])
        #expect(try reading.committedValues(forKeys: ["label"]) == ["label": .string("reading 10")])
        for (key, value) in Self.values(10) where key != "label" { #expect(try reading.value(forKey: key) == value) }
        try #require(context.undoManager).undo()
        #expect(try reading.value(forKey: "label") == .string("reading 10"))
        #expect(!reading.isUpdated && !reading.hasChanges)
        try #require(context.undoManager).redo()
        #expect(try reading.value(forKey: "label") == .string("changed"))
        try context.save()
        let fresh = stack.newContext()
        #expect(try fresh.existingObject(with: reading.objectID).string("label") == "changed")
        #expect(try fresh.existingObject(with: readings[11].objectID).string("label") == "reading 11")
    }

    @Test func aRelationshipChangeOnAFetchedObjectKeepsBothSides() throws {
        let stack = try Self.document(20)
        let context = stack.newContext()
        let readings = try Self.fetchAll(context)
        let north = try #require(try readings[0].related("sensor"))
        try readings[1].setObject(north, forKey: "sensor")
        #expect(readings[1].storage.batch == nil)
        #expect(try north.relatedSet("readings").contains(readings[1]))
        try context.save()
        let fresh = stack.newContext()
        #expect(try fresh.existingObject(with: readings[1].objectID).related("sensor")?.objectID == north.objectID)
    }

    @Test func refreshingAndMergingReplaceAFetchedRow() throws {
        let stack = try Self.document(30)
        let context = stack.newContext()
        context.automaticallyMergesChangesFromParent = true
        let readings = try Self.fetchAll(context)
        // Another context saves a change; the fetched object merges it (on the context's
        // next entry).
        let writer = stack.newContext()
        try writer.existingObject(with: readings[4].objectID).setValue(.integer(-1), forKey: "count")
        try writer.save()
        #expect(try context.count(for: FetchRequest(entityName: "Reading")) == 30)
        #expect(try readings[4].int("count") == -1)
        #expect(!readings[4].isUpdated)
        for (key, value) in Self.values(4) where key != "count" { #expect(try readings[4].value(forKey: key) == value) }
        // A refresh turns a fetched object into a fault; touching it reads the store again.
        context.refresh(readings[5], mergeChanges: false)
        #expect(readings[5].isFault && readings[5].storage.isEmpty)
        #expect(try readings[5].string("label") == "reading 5")
        // A fetched object changed under a save it did not merge is a conflict on save.
        context.automaticallyMergesChangesFromParent = false
        let late = stack.newContext()
        try late.existingObject(with: readings[6].objectID).setValue(.integer(-2), forKey: "count")
        try late.save()
        try readings[6].setValue(.integer(-3), forKey: "count")
        #expect(throws: StrataError.self) { try context.save() }
    }

    @Test func aBatchGoesWithItsObjectsAndOneKeptObjectKeepsOnlyItsOwn() throws {
        let count = FetchedRowBatch.rowLimit * 2
        let stack = try Self.document(count)
        weak var first: FetchedRowBatch?
        weak var second: FetchedRowBatch?
        var kept: ManagedObject?
        do {
            let context = stack.newContext()
            let readings = try Self.fetchAll(context)
            first = readings[0].storage.batch
            second = readings[count - 1].storage.batch
            #expect(first != nil && second != nil && first !== second)
            kept = readings[1]
            // Changed or turned into faults, the second batch's objects let it go.
            for reading in readings[FetchedRowBatch.rowLimit...] { context.refresh(reading, mergeChanges: false) }
            #expect(second == nil, "no object reads from the second batch")
            #expect(first != nil)
        }
        #expect(first != nil, "one object kept keeps its batch")
        #expect(try kept?.string("label") == "reading 1")
        kept = nil
        #expect(first == nil, "the last object gone, the batch goes")
    }

    @Test func aSmallFetchsBatchHoldsRoomForItsRowsOnly() throws {
        let stack = try Self.document(10)
        let readings = try Self.fetchAll(stack.newContext())
        let batch = try #require(readings[0].storage.batch)
        #expect(batch.rowCount == 10)
        #expect(batch.capacity >= 10 && batch.capacity < 64, "room for \(batch.capacity) rows")
    }

    @Test func aColumnGivesBackExactlyWhatWasAppended() throws {
        let stack = try Self.document(4)
        let ids = try Self.fetchAll(stack.newContext()).map(\.objectID)
        let otherScope = ManagedObjectID(entity: stack.model.entitiesByName["Sensor"]!, storeTag: ids[0].storeTag, primaryKey: 1)
        let rows: [[PropertyValue]] = [
            [.null, .integer(1), .string("a"), .object(ids[0])],
            [.null, .integer(2), .integer(3), .object(ids[1])],
            [.boolean(true), .null, .string("c"), .object(otherScope)],
            [.boolean(false), .decimal(1.5), .null, .null],
        ]
        var builder = FetchedRowBatchBuilder(slotCount: 4, expected: rows.count)
        for row in rows { builder.append(row) }
        let batch = builder.finish()
        #expect(batch.rowCount == rows.count)
        for (index, row) in rows.enumerated() {
            #expect(batch.row(index) == row, "row \(index)")
            #expect(ObjectValues(batch: batch, row: index) == row)
        }
    }
}
