import Foundation
import Testing
@testable import Strata

/// The overlay's row table: dense runs of consecutive keys beside a dictionary, behaving as
/// one dictionary whichever part holds a row.
@Suite struct RecordRowsTests {
    let model: ManagedObjectModel
    let item: EntityDescription
    let tag: EntityDescription

    init() throws {
        model = try ManagedObjectModel(entities: [
            EntityDescription("Item", attributes: [AttributeDescription("name", .string)]),
            EntityDescription("Tag", attributes: [AttributeDescription("name", .string)]),
        ])
        item = try model.entity(named: "Item")
        tag = try model.entity(named: "Tag")
    }

    func id(_ entity: EntityDescription, _ key: Int64, store: UInt32 = 1) -> ManagedObjectID {
        ManagedObjectID(entity: entity, storeTag: store, primaryKey: key)
    }

    func row(_ text: String) -> [PropertyValue] { [.string(text)] }

    /// Rows set, replaced, changed in place and removed, dense and sparse alike, against a
    /// dictionary given the same operations.
    @Test func behavesAsADictionaryForDenseSparseAndTemporaryKeys() {
        var rows = RecordRows()
        var expected: [ManagedObjectID: [PropertyValue]] = [:]
        var ids: [ManagedObjectID] = (1...3_000).map { id(item, Int64($0)) }   // dense
        ids += [id(item, 50_000_000), id(item, 7, store: 2), id(tag, 3), ManagedObjectID.temporary(for: item)]
        ids.append(id(item, 3_001))   // extends the run
        for (number, id) in ids.enumerated() {
            #expect(rows.updateValue(row("v\(number)"), forKey: id) == nil)
            expected[id] = row("v\(number)")
        }
        #expect(rows.updateValue(row("again"), forKey: ids[10]) == row("v10"))
        expected[ids[10]] = row("again")
        #expect(rows.withRow(ids[20]) { $0[0] = .string("in place") } != nil)
        expected[ids[20]] = row("in place")
        #expect(rows.withRow(id(item, 9_999_999)) { _ in } == nil)
        for removed in [ids[0], ids[3_000], ids[3_003]] {
            #expect(rows.removeValue(forKey: removed) == expected[removed])
            expected[removed] = nil
        }
        #expect(rows.count == expected.count)
        #expect(Dictionary(uniqueKeysWithValues: rows.map { ($0.key, $0.value) }) == expected)
        for (id, value) in expected { #expect(rows[id] == value) }
        #expect(rows[ids[0]] == nil)
    }

    /// A key that went to the dictionary (too far from the run then) stays found there once
    /// the run grows to cover it, and is neither lost nor doubled.
    @Test func aKeyInTheDictionaryIsNotDoubledWhenTheRunGrowsOverIt() {
        var rows = RecordRows()
        rows[id(item, 1)] = row("first")
        rows[id(item, 2_000)] = row("far")          // beyond the run's slack: the dictionary
        for key in 2...1_999 { rows[id(item, Int64(key))] = row("k\(key)") }   // the run grows over 2,000
        rows[id(item, 2_000)] = row("far, changed")
        #expect(rows.count == 2_000)
        #expect(rows[id(item, 2_000)] == row("far, changed"))
        #expect(rows.filter { $0.key == id(item, 2_000) }.count == 1)
    }

    /// `forEachInIDOrder` visits every row once in `ManagedObjectID`'s order (entity name,
    /// then key), the dictionary's rows merged in, as the snapshot is written.
    @Test func idOrderMergesTheDictionaryIntoTheRuns() {
        var rows = RecordRows()
        let keys: [Int64] = [5, 1, 3, 90_000, 2, 4, 40_000]
        for key in keys {
            rows[id(tag, key)] = row("t\(key)")
            rows[id(item, key)] = row("i\(key)")
        }
        var visited: [ManagedObjectID] = []
        rows.forEachInIDOrder { id, value in
            visited.append(id)
            #expect(value == rows[id])
        }
        #expect(visited == rows.map(\.key).sorted())
        #expect(visited.count == keys.count * 2)
        #expect(visited.first?.entity === item)
    }
}
