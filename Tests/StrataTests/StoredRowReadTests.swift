import Foundation
import Testing
@testable import Strata

/// `ManagedObjectContext.forEachStoredRow` (what `strata fetch` and `strata export` write
/// from) reads a compacted record's columns where the cursor holds them — integers,
/// numbers, booleans, dates and ASCII text without a `PropertyValue` row —, and every other
/// record from its values: either way each slot reads as the value the store gives
/// (docs/BENCHMARKS.md, W13).
@Suite struct StoredRowReadTests {
    private static let names = ["plain", "Grace, \"Amazing\"", "line\nbreak", "Ünïcödé 😀", "", "a\"\u{301}b", "ctl\u{01}"]

    /// One entity with an attribute of every stored type, and `count` records whose
    /// values vary in kind, sign, size and absence.
    private func stack(count: Int) throws -> DocumentStack {
        let model = try ManagedObjectModel(entities: [EntityDescription("Row", attributes: [
            AttributeDescription("name", .string), AttributeDescription("small", .integer16),
            AttributeDescription("big", .integer64), AttributeDescription("ratio", .double),
            AttributeDescription("single", .float), AttributeDescription("amount", .decimal),
            AttributeDescription("flag", .boolean), AttributeDescription("at", .date),
            AttributeDescription("blob", .binaryData), AttributeDescription("badge", .uuid),
            AttributeDescription("link", .uri),
        ])])
        let stack = try DocumentStack(model: model, configuration: manualCompaction())
        let bigs: [Int64] = [.max, .min, 0, -1, 1_000_000_000_000_000]
        let ratios = [0.1, 1e300, -2.5, 1e15, 123_456_789_012_345.0, -0.0, Double.leastNonzeroMagnitude]
        let dates = [-1, 0.25, 86_399, -63_113_904_000, 252_423_993_599, 757_382_400]
        for index in 0..<count {
            let row = try stack.context.insertObject(forEntityName: "Row")
            // Every seventh value of each attribute is left out (null).
            func set(_ key: String, _ value: PropertyValue, skip: Int) throws {
                if (index + skip) % 7 != 0 { try row.setValue(value, forKey: key) }
            }
            try set("name", .string(Self.names[index % Self.names.count] + (index % 3 == 0 ? "" : String(index))), skip: 1)
            try set("small", .integer(Int64(index % 200) - 100), skip: 2)
            try set("big", .integer(bigs[index % bigs.count]), skip: 3)
            try set("ratio", .double(ratios[index % ratios.count]), skip: 4)
            try set("single", .double(Double(Float(index) / 8)), skip: 5)
            try set("amount", .decimal(Decimal(string: "\(index).50")!), skip: 6)
            try set("flag", .boolean(index % 2 == 0), skip: 0)
            try set("at", .date(Date(timeIntervalSinceReferenceDate: dates[index % dates.count] + Double(index))), skip: 1)
            try set("blob", .data(Data([UInt8(index % 256), 0, 255])), skip: 2)
            try set("badge", .uuid(UUID()), skip: 3)
            try set("link", .uri(URL(string: "https://example.com/\(index)?a=b,c")!), skip: 4)
        }
        try stack.context.save()
        return stack
    }

    /// Every row the stream hands on: its ID, each slot's column as read, and the kinds read.
    private func streamed(_ stack: DocumentStack) throws -> [(id: ManagedObjectID, values: [PropertyValue], inPlace: Int)] {
        var rows: [(id: ManagedObjectID, values: [PropertyValue], inPlace: Int)] = []
        try stack.context.forEachStoredRow(matching: FetchRequest<ManagedObject>(entityName: "Row")) { row in
            var values: [PropertyValue] = []
            var inPlace = 0
            for slot in 0..<row.id.entity.slotCount {
                let column = try row.column(slot)
                if case .value = column {} else if case .null = column {} else { inPlace += 1 }
                values.append(column.propertyValue)
            }
            rows.append((row.id, values, inPlace))
        }
        return rows
    }

    @Test func compactedColumnsReadInPlaceAsTheStoresValues() throws {
        let stack = try stack(count: 300)
        try stack.store.compact()
        let rows = try streamed(stack)
        var expectedIDs: [ManagedObjectID] = []
        try stack.context.forEachStoredRecord(matching: FetchRequest<ManagedObject>(entityName: "Row")) { id, _ in expectedIDs.append(id) }
        #expect(rows.map(\.id) == expectedIDs)
        #expect(rows.count == 300)
        for row in rows {
            #expect(row.values == (try stack.store.values(for: row.id)), "\(row.id)")
        }
        // Integers, numbers, booleans, dates and ASCII names came from the cursor.
        #expect(rows.allSatisfy { $0.inPlace >= 4 }, "\(rows.map(\.inPlace))")
        // A slot past the entity's reads as no value.
        try stack.context.forEachStoredRow(matching: FetchRequest<ManagedObject>(entityName: "Row")) { row in
            if case .null = try row.column(row.id.entity.slotCount + 3) {} else { Issue.record("a slot past the entity") }
        }
    }

    @Test func uncompactedSavesAreReadFromTheValues() throws {
        let stack = try stack(count: 40)
        try stack.store.compact()
        let changed = try stack.context.fetch(FetchRequest<ManagedObject>(entityName: "Row"))[5]
        try changed.setValue(.string("changed, \"after\""), forKey: "name")
        try stack.context.save()
        let rows = try streamed(stack)
        #expect(rows.count == 40)
        // The overlay is not empty: every record comes from its values, the change in it.
        #expect(rows.allSatisfy { $0.inPlace == 0 })
        for row in rows {
            #expect(row.values == (try stack.store.values(for: row.id)), "\(row.id)")
        }
        let nameSlot = try #require(changed.objectID.entity.slotNames.firstIndex(of: "name"))
        #expect(rows.first { $0.id == changed.objectID }?.values[nameSlot] == .string("changed, \"after\""))
    }

    @Test func aStoredValueThatDoesNotFitIsTheReadsError() throws {
        let stack = try stack(count: 10)
        try stack.store.compact()
        // Text in an integer column, as a damaged file or another tool would leave it.
        let connection = try SQLiteConnection(path: stack.url.path, flags: [.readWrite])
        try connection.execute("UPDATE \"Row\" SET \"big\" = 'many' WHERE \"_pk\" = 3")
        connection.close()
        var thrown: StrataError?
        do { _ = try streamed(stack) } catch let error as StrataError { thrown = error }
        #expect(thrown?.code == .corruptDocument, "\(String(describing: thrown))")
        #expect(thrown?.context.columnName == "big", "\(String(describing: thrown))")
    }
}
