import Foundation

/// Values by object ID, with a dictionary's operations, in dense per-entity arrays: the one
/// table under the context's registry (``ObjectRegistry``), the in-memory store's and a
/// conflict check's rows (``RowTable``), and the document overlay's and a save's rows
/// (``RecordRows``).
///
/// Why not `[ManagedObjectID: Value]`: these tables are looked up once per operation of
/// every save, undo, redo and replay, and a bulk save's records are one entity's
/// consecutive keys. Indexing an array is several times cheaper than hashing an ID, and a
/// dictionary of a million IDs is a 2,097,152-bucket table of 24–32-byte entries (64 MiB,
/// a sixth of W1's peak; docs/ARCHITECTURE.md, "Reads: snapshot ⊕ overlay"), where a
/// dense slot is the value alone (8 bytes for a row or an object reference).
///
/// Each *run* holds the IDs of one scope (entity, store, temporary or permanent) from a
/// base key on: `slots[i]` is the value of key `base + i`. A run grows to take a key while
/// it stays dense enough (``maximumSpan(count:)``); keys too scattered for an array, keys
/// below 1, and a third scope of one entity go to a dictionary beside the runs. An ID is in
/// at most one of the two.
///
/// Iteration visits the runs entity by entity (by the entity's index in its model), each in
/// ascending key order, then the dictionary in no order.
struct ObjectIDTable<Value>: Sequence {
    typealias Element = (key: ManagedObjectID, value: Value)

    /// One scope's values by key.
    fileprivate struct Run {
        let scope: ObjectIDScope
        var base: Int64
        var slots: ContiguousArray<Value?>
        var count: Int

        /// The ID of the value in `slot`.
        func id(at slot: Int) -> ManagedObjectID { ManagedObjectID(scope: scope, primaryKey: base + Int64(slot)) }
    }

    /// By entity index: at most ``runsPerEntity`` runs, one per scope (say the temporary
    /// and the permanent IDs of a context's objects).
    fileprivate var runs: [[Run]] = []
    fileprivate var sparse: [ManagedObjectID: Value] = [:]
    private(set) var denseCount = 0

    init() {}

    var count: Int { denseCount + sparse.count }
    var isEmpty: Bool { count == 0 }

    /// A scope gets a run of its own when its entity has fewer runs than this.
    private static var runsPerEntity: Int { 2 }

    /// A run spans at most this many keys for `count` values: four keys a value (a
    /// hierarchy of up to four entities sharing one key sequence stays dense), plus room
    /// for a small table's first keys. A few far-apart keys of a big document go to the
    /// dictionary instead of a huge array.
    private static func maximumSpan(count: Int) -> Int64 { Int64(count + 1) * 4 + 4_096 }

    /// Where an ID's value is or would be in a run: entity index, run, slot; nil when the ID
    /// has no run or its key is outside it.
    @inline(__always)
    private func position(_ id: ManagedObjectID) -> (entity: Int, run: Int, slot: Int)? {
        let entity = id.entity.index
        guard entity >= 0, entity < runs.count else { return nil }
        let scope = id.scope
        for run in runs[entity].indices where runs[entity][run].scope === scope {
            let slot = id.primaryKey &- runs[entity][run].base
            return slot >= 0 && slot < Int64(runs[entity][run].slots.count) ? (entity, run, Int(slot)) : nil
        }
        return nil
    }

    subscript(id: ManagedObjectID) -> Value? {
        get {
            if let (entity, run, slot) = position(id), let value = runs[entity][run].slots[slot] { return value }
            return sparse.isEmpty ? nil : sparse[id]
        }
        set {
            if let newValue { updateValue(newValue, forKey: id) } else { removeValue(forKey: id) }
        }
    }

    /// Sets a value; returns the one it replaced.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey id: ManagedObjectID) -> Value? {
        // A key in the dictionary stays there, even once a run grew to cover it.
        if !sparse.isEmpty, sparse[id] != nil { return sparse.updateValue(value, forKey: id) }
        guard let (entity, run, slot) = position(id) ?? makeRoom(for: id) else { return sparse.updateValue(value, forKey: id) }
        let old = runs[entity][run].slots[slot]
        runs[entity][run].slots[slot] = value
        if old == nil {
            runs[entity][run].count += 1
            denseCount += 1
        }
        return old
    }

    /// Removes a value; returns it.
    @discardableResult
    mutating func removeValue(forKey id: ManagedObjectID) -> Value? {
        if let (entity, run, slot) = position(id), let old = runs[entity][run].slots[slot] {
            runs[entity][run].slots[slot] = nil
            runs[entity][run].count -= 1
            denseCount -= 1
            // An emptied run (every inserted object saved, say) is freed: the scope's next
            // key starts a new one where it is.
            if runs[entity][run].count == 0 { runs[entity].remove(at: run) }
            return old
        }
        return sparse.isEmpty ? nil : sparse.removeValue(forKey: id)
    }

    /// Changes a value in place (no copy of a buffer it holds); nil, and `body` not called,
    /// when there is none.
    mutating func withValue<Result>(_ id: ManagedObjectID, _ body: (inout Value) throws -> Result) rethrows -> Result? {
        if let (entity, run, slot) = position(id), runs[entity][run].slots[slot] != nil {
            return try body(&runs[entity][run].slots[slot]!)
        }
        guard !sparse.isEmpty, sparse.index(forKey: id) != nil else { return nil }
        return try body(&sparse[id]!)
    }

    /// Adds every value of `other` this table does not have (its own win).
    mutating func addMissing(from other: ObjectIDTable) {
        if isEmpty {
            self = other
            return
        }
        for (id, value) in other where self[id] == nil { updateValue(value, forKey: id) }
    }

    mutating func removeAll() { self = ObjectIDTable() }

    /// Changes every value in place.
    mutating func updateEach(_ body: (inout Value) -> Void) {
        for entity in runs.indices {
            for run in runs[entity].indices {
                for slot in runs[entity][run].slots.indices where runs[entity][run].slots[slot] != nil {
                    body(&runs[entity][run].slots[slot]!)
                }
            }
        }
        for id in Array(sparse.keys) { body(&sparse[id]!) }
    }

    /// The IDs, in iteration order.
    var keys: LazyMapSequence<ObjectIDTable, ManagedObjectID> { lazy.map(\.key) }

    /// The values, in iteration order.
    var values: LazyMapSequence<ObjectIDTable, Value> { lazy.map(\.value) }

    /// The IDs of `entity`'s records (and its subentities' when asked), in no order.
    func keys(of entity: EntityDescription, includingSubentities: Bool) -> [ManagedObjectID] {
        let entities = includingSubentities ? entity.selfAndDescendants : [entity]
        var result = sparse.keys.filter { id in entities.contains { $0 === id.entity } }
        for candidate in entities where candidate.index >= 0 && candidate.index < runs.count {
            for run in runs[candidate.index] where run.scope.entity === candidate {
                result.reserveCapacity(result.count + run.count)
                for slot in run.slots.indices where run.slots[slot] != nil { result.append(run.id(at: slot)) }
            }
        }
        return result
    }

    /// Grows (or starts) the ID's scope's run to cover it when it stays dense; nil sends
    /// the value to the dictionary.
    private mutating func makeRoom(for id: ManagedObjectID) -> (entity: Int, run: Int, slot: Int)? {
        let entity = id.entity.index
        let key = id.primaryKey
        guard entity >= 0, key > 0, key < Int64.max / 4 else { return nil }
        if entity >= runs.count { runs.append(contentsOf: repeatElement([], count: entity + 1 - runs.count)) }
        guard let index = runs[entity].firstIndex(where: { $0.scope === id.scope }) else {
            guard runs[entity].count < Self.runsPerEntity else { return nil }
            runs[entity].append(Run(scope: id.scope, base: key, slots: [nil], count: 0))
            return (entity, runs[entity].count - 1, 0)
        }
        var run = runs[entity][index]
        let low = Swift.min(run.base, key)
        let high = Swift.max(run.base + Int64(run.slots.count) - 1, key)
        guard high - low + 1 <= Self.maximumSpan(count: run.count) else { return nil }
        runs[entity][index].slots = []  // so that `run` is the only reference to its slots
        if key < run.base {
            // Keys met in descending order (a fetch sorted so) would shift the run once per
            // key: room below is made by doubling, as appending makes it above.
            var base = Swift.max(1, run.base - Swift.max(run.base - key, Int64(run.slots.count)))
            if high - base + 1 > Self.maximumSpan(count: run.count) { base = key }
            run.slots.insert(contentsOf: repeatElement(nil, count: Int(run.base - base)), at: 0)
            run.base = base
        } else {
            run.slots.append(contentsOf: repeatElement(nil, count: Int(key - run.base) + 1 - run.slots.count))
        }
        runs[entity][index] = run
        return (entity, index, Int(key - run.base))
    }

    /// Calls `body` with every value in ID order (``ManagedObjectID``'s `<`: entity name,
    /// permanent before temporary, key) — the order the snapshot's tables are written in —
    /// without sorting the dense values into an array (32 bytes a row: at a million rows, a
    /// compaction's largest allocation).
    func forEachInIDOrder(_ body: (ManagedObjectID, Value) throws -> Void) rethrows {
        let ordered = runs.joined().sorted {
            $0.scope.entity.name != $1.scope.entity.name ? $0.scope.entity.name < $1.scope.entity.name
                : !$0.scope.isTemporary && $1.scope.isTemporary
        }
        // Two runs of one entity and kind (two stores' IDs) would interleave: sort them all.
        let interleaves = zip(ordered, ordered.dropFirst()).contains {
            $0.scope.entity.name == $1.scope.entity.name && $0.scope.isTemporary == $1.scope.isTemporary
        }
        if interleaves {
            for (id, value) in sorted(by: { $0.key < $1.key }) { try body(id, value) }
            return
        }
        let others = sparse.sorted { $0.key < $1.key }
        var next = 0
        for run in ordered {
            for slot in run.slots.indices {
                guard let value = run.slots[slot] else { continue }
                let id = run.id(at: slot)
                while next < others.count, others[next].key < id {
                    try body(others[next].key, others[next].value)
                    next += 1
                }
                try body(id, value)
            }
        }
        for (id, value) in others[next...] { try body(id, value) }
    }

    func makeIterator() -> Iterator { Iterator(table: self) }

    /// Runs by entity, each in key order, then the dictionary.
    struct Iterator: IteratorProtocol {
        private let table: ObjectIDTable
        private var entity = 0
        private var run = 0
        private var slot = 0
        private var sparse: Dictionary<ManagedObjectID, Value>.Iterator

        fileprivate init(table: ObjectIDTable) {
            self.table = table
            sparse = table.sparse.makeIterator()
        }

        mutating func next() -> Element? {
            while entity < table.runs.count {
                while run < table.runs[entity].count {
                    let current = table.runs[entity][run]
                    while slot < current.slots.count {
                        defer { slot += 1 }
                        if let value = current.slots[slot] { return (current.id(at: slot), value) }
                    }
                    run += 1
                    slot = 0
                }
                entity += 1
                run = 0
            }
            return sparse.next().map { ($0.key, $0.value) }
        }
    }
}

extension ObjectIDTable: Sendable where Value: Sendable {}
extension ObjectIDTable.Run: Sendable where Value: Sendable {}

#if STRATA_INVARIANTS
extension ObjectIDTable {
    /// Every broken invariant of the table: each run counts its values, is not empty and is
    /// its entity's only run of its scope, holds IDs of its entity, and no ID is both in a
    /// run and in the dictionary; the dense count is the runs' sum. O(slots).
    func _invariantViolations() -> [String] {
        var problems: [String] = []
        var total = 0
        for (entity, entityRuns) in runs.enumerated() {
            for (index, run) in entityRuns.enumerated() {
                let held = run.slots.lazy.filter { $0 != nil }.count
                if held != run.count || run.count == 0 {
                    problems.append("run \(run.scope.entity.name) counts \(run.count) values, holds \(held)")
                }
                if run.scope.entity.index != entity { problems.append("run \(run.scope.entity.name) is under entity index \(entity)") }
                if entityRuns[..<index].contains(where: { $0.scope === run.scope }) {
                    problems.append("two runs for one scope of \(run.scope.entity.name)")
                }
                total += run.count
                if !sparse.isEmpty {
                    for slot in run.slots.indices where run.slots[slot] != nil && sparse[run.id(at: slot)] != nil {
                        problems.append("\(run.id(at: slot)) is both in a run and in the dictionary")
                    }
                }
            }
        }
        if total != denseCount { problems.append("the dense count is \(denseCount), the runs hold \(total)") }
        return problems
    }

    /// The invariants a change of `id`'s value could break: those of its run. O(1).
    func _violations(touching id: ManagedObjectID) -> [String] {
        var problems: [String] = []
        if denseCount < 0 { problems.append("the dense count is \(denseCount)") }
        if let (entity, run, slot) = position(id) {
            let current = runs[entity][run]
            if current.count <= 0 || current.count > current.slots.count {
                problems.append("run \(current.scope.entity.name) counts \(current.count) values in \(current.slots.count) slots")
            }
            if current.slots[slot] != nil, !sparse.isEmpty, sparse[id] != nil { problems.append("\(id) is both in a run and in the dictionary") }
        }
        return problems
    }

    /// Miscounts the dense values, for the tests that show the checks catch it.
    mutating func _corruptForTesting() { denseCount += 1 }
}
#endif
