import Foundation
import Testing
@testable import Strata

/// The one table by object ID under the registry, the row tables and the overlay: dense
/// runs of consecutive keys beside a dictionary, behaving as one dictionary whichever part
/// holds a value.
@Suite struct ObjectIDTableTests {
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
        #expect(rows.withValue(ids[20]) { $0[0] = .string("in place") } != nil)
        expected[ids[20]] = row("in place")
        #expect(rows.withValue(id(item, 9_999_999)) { _ in } == nil)
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
        rows[id(item, 10_000)] = row("far")          // beyond the run's reach: the dictionary
        #expect(rows.denseCount == 1)
        for key in 2...9_999 { rows[id(item, Int64(key))] = row("k\(key)") }   // the run grows over 10,000
        #expect(rows.denseCount == 9_999)
        rows[id(item, 10_000)] = row("far, changed")
        #expect(rows.count == 10_000)
        #expect(rows[id(item, 10_000)] == row("far, changed"))
        #expect(rows.filter { $0.key == id(item, 10_000) }.count == 1)
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

    /// A context's objects: temporary IDs until their save, permanent after it. Both kinds
    /// get a run, an emptied run is freed, and a third scope of one entity still works (in
    /// the dictionary).
    @Test func temporaryAndPermanentIDsOfOneEntityAreBothDense() {
        var table = ObjectIDTable<Int>()
        let temporary = (0..<100).map { _ in ManagedObjectID.temporary(for: item) }
        for (number, id) in temporary.enumerated() { table[id] = number }
        for key in 1...100 { table[id(item, Int64(key))] = key }
        #expect(table.denseCount == 200)
        table[id(item, 5, store: 9)] = -5          // a second store's ID: its entity has two runs already
        #expect(table.denseCount == 200 && table.count == 201)
        #expect(table[id(item, 5, store: 9)] == -5 && table[id(item, 5)] == 5)
        for id in temporary { table[id] = nil }     // saved: the temporary run empties and goes
        #expect(table.count == 101 && table.denseCount == 100)
        table[id(item, 6, store: 9)] = -6          // now there is room for the second store's run
        #expect(table.denseCount == 101)
        #expect(Set(table.keys(of: item, includingSubentities: false)).count == 102)
        #expect(table.keys(of: tag, includingSubentities: false).isEmpty)
    }

    /// Far-apart keys go to the dictionary instead of allocating an array to reach them.
    @Test func scatteredKeysStayOutOfTheRuns() {
        var table = ObjectIDTable<Int>()
        for step in 0..<50 { table[id(item, 1 + Int64(step) * 1_000_000)] = step }
        #expect(table.count == 50)
        #expect(table.denseCount == 1)
        for step in 0..<50 { #expect(table[id(item, 1 + Int64(step) * 1_000_000)] == step) }
    }

    /// Keys met in descending order (objects fetched sorted by key, descending) stay dense,
    /// and the run grows below by doubling rather than once per key.
    @Test func descendingKeysStayDense() {
        var table = ObjectIDTable<Int>()
        for key in stride(from: 50_000, through: 1, by: -1) { table[id(item, Int64(key))] = key }
        #expect(table.denseCount == 50_000)
        #expect(table.count == 50_000)
        #expect(table[id(item, 1)] == 1 && table[id(item, 50_000)] == 50_000 && table[id(item, 50_001)] == nil)
        #expect(table.map(\.key.primaryKey) == Array(1...50_000))
        #expect(table.map(\.value) == Array(1...50_000))
    }
}
