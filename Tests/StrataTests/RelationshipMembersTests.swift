import OrderedCollections
import Testing
@testable import Strata

/// The linear member edits (issue 12, item 5) against the per-member code they replaced:
/// removing many members in one pass, and the overlay patch skipping the sort of members
/// appended in order, must give exactly the members, in exactly the order, as before.
@Suite("Relationship member edits")
struct RelationshipMembersTests {
    let department = sharedExampleModel.entitiesByName["Department"]!
    let employee = sharedExampleModel.entitiesByName["Employee"]!
    var employeesSlot: Int { department.relationshipsByName["employees"]!.slot }

    private func employees(_ keys: [Int64]) -> [ManagedObjectID] {
        keys.map { ManagedObjectID(entity: employee, storeTag: 1, primaryKey: $0) }
    }

    /// What a relate did before: each removal, then each addition, then a full sort for an
    /// unordered to-many (the overlay patch's old code).
    private func reference(_ members: OrderedSet<ManagedObjectID>, added: [ManagedObjectID], removed: [ManagedObjectID],
                           sorted: Bool) -> OrderedSet<ManagedObjectID> {
        var result = members
        for member in removed { result.remove(member) }
        for member in added { result.append(member) }
        if sorted { result.sort() }
        return result
    }

    @Test("relate(adding:removing:) keeps the order one-by-one removals and appends give", arguments: [1, 8, 9, 500])
    func batchRemovalMatchesOneByOne(removals: Int) {
        var generator = SeededGenerator(seed: UInt64(removals))
        let members = OrderedSet(employees((1...2_000).map { _ in Int64.random(in: 1...5_000, using: &generator) }))
        let removed = employees((0..<removals).map { _ in Int64.random(in: 1...5_000, using: &generator) })
        let added = employees((0..<50).map { _ in Int64.random(in: 1...6_000, using: &generator) })
        var edited = members
        edited.relate(adding: added, removing: removed)
        #expect(edited == reference(members, added: added, removed: removed, sorted: false))
    }

    @Test("an overlay patch's relates, updates and inserts leave the department's employees as the old code did")
    func patchMatchesSortingAfterEveryRelate() throws {
        var generator = SeededGenerator(seed: 12)
        let id = ManagedObjectID(entity: department, storeTag: 1, primaryKey: 1)
        var base = RowTable.persistent(Array(repeating: .null, count: department.slotCount), of: department)
        base[employeesSlot] = .objects(OrderedSet(employees([9, 3, 7])))  // a stored row need not be sorted
        var expected = OrderedSet(employees([9, 3, 7]))
        var patch = OverlayPatch()
        var nextKey: Int64 = 10
        for step in 0..<400 {
            let operation: ChangeOperation
            switch Int.random(in: 0..<10, using: &generator) {
            case 0:
                // A whole new list, out of order: the patch must not trust it is sorted.
                let list = OrderedSet(employees((0..<5).map { _ in Int64.random(in: 1...nextKey, using: &generator) }))
                operation = .update(id, changes: SlotChanges([SlotChange(slot: employeesSlot, old: .null, new: .objects(list))]))
                expected = list
            case 1 where step > 0:
                // Deleted and inserted again (an insert of a record that exists is refused).
                try patch.apply(.delete(id, values: base)) { $0 == id ? base : nil }
                var values = base
                let list = OrderedSet(employees([nextKey + 3, 2, nextKey + 1]))
                values[employeesSlot] = .objects(list)
                operation = .insert(id, values: values)
                expected = list
            case 2, 3:
                // Out of order, or members already there.
                let added = employees((0..<3).map { _ in Int64.random(in: 1...(nextKey + 5), using: &generator) })
                let removed = Array(expected.shuffled(using: &generator).prefix(2))
                operation = .relate(id, slot: employeesSlot, added: added, removed: removed)
                expected = reference(expected, added: added, removed: removed, sorted: true)
            default:
                // New employees, in increasing keys: the fast path.
                let added = employees((0..<Int.random(in: 1...3, using: &generator)).map { nextKey + Int64($0) })
                nextKey += Int64(added.count)
                let removed = expected.isEmpty || Bool.random(using: &generator) ? [] : [expected.randomElement(using: &generator)!]
                operation = .relate(id, slot: employeesSlot, added: added, removed: removed)
                expected = reference(expected, added: added, removed: removed, sorted: true)
            }
            try patch.apply(operation) { $0 == id ? base : nil }
            #expect(patch.rows[id]?[employeesSlot] == .objects(expected), "step \(step): \(operation)")
        }
    }

    @Test("a patch that takes rows from its caller gives back those it does not keep")
    func takenRowsComeBack() throws {
        let id = ManagedObjectID(entity: department, storeTag: 1, primaryKey: 1)
        var rows: [ManagedObjectID: [PropertyValue]] = [:]
        var values = RowTable.persistent(Array(repeating: .null, count: department.slotCount), of: department)
        values[employeesSlot] = .objects(OrderedSet(employees([1, 2])))
        rows[id] = values
        var patch = OverlayPatch()
        let nameSlot = department.attributesByName["name"]!.slot
        // A relate of an attribute slot is malformed: the patch throws, and the row is back.
        #expect(throws: StrataError.self) {
            try patch.apply(.relate(id, slot: nameSlot, added: employees([3]), removed: []),
                            base: { rows.removeValue(forKey: $0) }, giveBack: { rows[$0] = $1 })
        }
        #expect(rows[id] == values)
        try patch.apply(.relate(id, slot: employeesSlot, added: employees([3]), removed: employees([1])),
                        base: { rows.removeValue(forKey: $0) }, giveBack: { rows[$0] = $1 })
        #expect(rows[id] == nil)
        #expect(patch.rows[id]?[employeesSlot] == .objects(OrderedSet(employees([2, 3]))))
    }
}
