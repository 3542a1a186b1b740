import Foundation

/// Full persistent rows keyed by record ID: the document overlay's and a save's patch's
/// table, with a dictionary's operations.
///
/// Why not `[ManagedObjectID: [PropertyValue]]`: a bulk save's inserts are one entity's
/// consecutive keys, and a dictionary of a million of them is a 2,097,152-bucket table of
/// 32-byte entries (64 MiB, a sixth of W1's peak; docs/ARCHITECTURE.md, "Reads: snapshot ⊕
/// overlay").
/// Here the permanent keys of each entity live in a dense array indexed by key (8 bytes a
/// row), as the context's ``ObjectRegistry`` keeps its objects; keys too sparse for an array,
/// temporary IDs and IDs of a second store use a dictionary beside it.
///
/// Iteration visits the dense rows entity by entity in ascending key order, then the others
/// in no order.
struct RecordRows: Sequence {
    typealias Element = (key: ManagedObjectID, value: [PropertyValue])

    /// One entity's rows by key: `slots[i]` holds the row of key `base + i`.
    private struct Run {
        /// The permanent scope of the run's entity and store.
        let scope: ObjectIDScope
        var base: Int64
        var slots: ContiguousArray<[PropertyValue]?> = []
        var count = 0

        /// The ID of the row in `slot`.
        func id(at slot: Int) -> ManagedObjectID {
            ManagedObjectID(scope: scope, primaryKey: base + Int64(slot))
        }

        /// The run's entity.
        var entity: EntityDescription { scope.entity }
    }

    /// By entity index; nil where the entity has no dense rows yet.
    private var runs: [Run?] = []
    private var sparse: [ManagedObjectID: [PropertyValue]] = [:]
    private var denseCount = 0

    init() {}

    var count: Int { denseCount + sparse.count }
    var isEmpty: Bool { count == 0 }

    /// A dense array stays at most this many slots per row it holds, plus a constant: a few
    /// scattered keys of a large document go to the dictionary instead of a huge array.
    private static let slack: Int64 = 1_024

    /// The run and slot of an ID that is (or may go) in a dense run; nil for the dictionary.
    @inline(__always)
    private func position(_ id: ManagedObjectID) -> (run: Int, slot: Int)? {
        let index = id.entity.index
        guard index >= 0, index < runs.count, let run = runs[index], run.scope === id.scope else { return nil }
        let slot = id.primaryKey &- run.base
        return slot >= 0 && slot < Int64(run.slots.count) ? (index, Int(slot)) : nil
    }

    subscript(id: ManagedObjectID) -> [PropertyValue]? {
        get {
            if let (run, slot) = position(id), let row = runs[run]!.slots[slot] { return row }
            return sparse.isEmpty ? nil : sparse[id]
        }
        set {
            if let newValue { updateValue(newValue, forKey: id) } else { removeValue(forKey: id) }
        }
    }

    /// Sets a row; returns the one it replaced.
    @discardableResult
    mutating func updateValue(_ row: [PropertyValue], forKey id: ManagedObjectID) -> [PropertyValue]? {
        // A key in the dictionary stays there, even once a run grew to cover it.
        if !sparse.isEmpty, sparse[id] != nil { return sparse.updateValue(row, forKey: id) }
        if let (run, slot) = position(id) ?? makeRoom(for: id) {
            let old = runs[run]!.slots[slot]
            runs[run]!.slots[slot] = row
            if old == nil {
                runs[run]!.count += 1
                denseCount += 1
            }
            return old
        }
        return sparse.updateValue(row, forKey: id)
    }

    /// Removes a row; returns it.
    @discardableResult
    mutating func removeValue(forKey id: ManagedObjectID) -> [PropertyValue]? {
        if let (run, slot) = position(id), let old = runs[run]!.slots[slot] {
            runs[run]!.slots[slot] = nil
            runs[run]!.count -= 1
            denseCount -= 1
            return old
        }
        return sparse.isEmpty ? nil : sparse.removeValue(forKey: id)
    }

    /// Changes a row in place (no copy of its buffer); nil, and `body` not called, when
    /// there is none.
    mutating func withRow<Result>(_ id: ManagedObjectID, _ body: (inout [PropertyValue]) throws -> Result) rethrows -> Result? {
        if let (run, slot) = position(id), runs[run]!.slots[slot] != nil { return try body(&runs[run]!.slots[slot]!) }
        guard sparse.index(forKey: id) != nil else { return nil }
        return try body(&sparse[id]!)
    }

    /// Adds every row of `other` this table does not have (its own win).
    mutating func addMissing(from other: RecordRows) {
        if isEmpty {
            self = other
            return
        }
        for (id, row) in other where self[id] == nil { updateValue(row, forKey: id) }
    }

    mutating func removeAll() { self = RecordRows() }

    /// The IDs, in iteration order.
    var keys: LazyMapSequence<RecordRows, ManagedObjectID> { lazy.map(\.key) }

    /// Grows (or starts) the entity's dense run to cover `id` when it stays dense; nil sends
    /// the row to the dictionary.
    private mutating func makeRoom(for id: ManagedObjectID) -> (run: Int, slot: Int)? {
        let index = id.entity.index
        guard !id.isTemporaryID, index >= 0, id.primaryKey > 0, id.primaryKey < Int64.max / 4 else { return nil }
        if index >= runs.count { runs.append(contentsOf: repeatElement(nil, count: index + 1 - runs.count)) }
        guard var run = runs[index] else {
            runs[index] = Run(scope: id.scope, base: id.primaryKey, slots: [nil])
            return (index, 0)
        }
        guard run.scope === id.scope else { return nil }
        let low = Swift.min(run.base, id.primaryKey)
        let high = Swift.max(run.base + Int64(run.slots.count) - 1, id.primaryKey)
        let span = high - low + 1
        let allowed = Int64(run.count + 1) * 2 + Self.slack
        guard span <= allowed else { return nil }
        runs[index] = nil  // so that `run` is the only reference to its slots
        if id.primaryKey < run.base {
            run.slots.insert(contentsOf: repeatElement(nil, count: Int(run.base - id.primaryKey)), at: 0)
            run.base = id.primaryKey
        } else {
            run.slots.append(contentsOf: repeatElement(nil, count: Int(id.primaryKey - run.base) + 1 - run.slots.count))
        }
        runs[index] = run
        return (index, Int(id.primaryKey - run.base))
    }

    /// Calls `body` with every row in ID order (entity name, then key) — the order the
    /// snapshot's tables are written in — without sorting the dense rows into an array
    /// (32 bytes a row: at a million rows, a compaction's largest allocation).
    func forEachInIDOrder(_ body: (ManagedObjectID, [PropertyValue]) throws -> Void) rethrows {
        let others = sparse.sorted { $0.key < $1.key }
        var next = 0
        let order = runs.indices.filter { runs[$0] != nil }.sorted { runs[$0]!.entity.name < runs[$1]!.entity.name }
        for index in order {
            let run = runs[index]!
            for slot in run.slots.indices {
                guard let row = run.slots[slot] else { continue }
                let id = run.id(at: slot)
                while next < others.count, others[next].key < id {
                    try body(others[next].key, others[next].value)
                    next += 1
                }
                try body(id, row)
            }
        }
        for (id, row) in others[next...] { try body(id, row) }
    }

    func makeIterator() -> Iterator { Iterator(rows: self) }

    /// Dense runs by entity, each in key order, then the dictionary.
    struct Iterator: IteratorProtocol {
        private let rows: RecordRows
        private var run = 0
        private var slot = 0
        private var sparse: Dictionary<ManagedObjectID, [PropertyValue]>.Iterator

        fileprivate init(rows: RecordRows) {
            self.rows = rows
            sparse = rows.sparse.makeIterator()
        }

        mutating func next() -> Element? {
            while run < rows.runs.count {
                if let current = rows.runs[run] {
                    while slot < current.slots.count {
                        defer { slot += 1 }
                        if let row = current.slots[slot] { return (current.id(at: slot), row) }
                    }
                }
                run += 1
                slot = 0
            }
            return sparse.next().map { ($0.key, $0.value) }
        }
    }
}
