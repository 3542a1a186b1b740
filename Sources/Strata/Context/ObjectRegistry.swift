import Foundation

/// The context's uniquing table: one entry per registered record.
///
/// IDs are looked up in dense arrays indexed by key, one per store and root entity,
/// reached by two array indexes (store tag, root entity index) without hashing: this
/// lookup runs once per operation of every undo and redo, and once per object inserted
/// and saved. Temporary IDs use store tag 0 (no store has it) and are indexed from the
/// first temporary number the table saw (the numbers are process-wide, so they start
/// anywhere). Keys too sparse for an array, and stores with very large tags, use a
/// dictionary.
struct ObjectRegistry {
    private struct Table {
        var slots: ContiguousArray<WeakObject?> = []
        var count = 0
        /// The key of `slots[0]`.
        var base = 0
    }

    /// Store tags below this get dense tables (tags are small: one per store identifier
    /// seen in the process).
    private static let denseStoreTags = 1 << 16

    /// `tables[storeTag][rootEntityIndex]`.
    private var tables: [[Table]] = []
    private var sparse: [ManagedObjectID: WeakObject] = [:]
    private var denseCount = 0
    #if STRATA_INVARIANTS
    private var sampler = InvariantSampler()
    #endif

    /// The dense position of an ID: store tag, root entity and key index, or nil when the ID
    /// is temporary or its key is not positive.
    @inline(__always)
    private static func position(_ id: ManagedObjectID) -> (store: Int, root: Int, key: Int)? {
        guard id.primaryKey > 0, id.primaryKey < Int64(Int.max / 2),
              Int(id.storeTag) < denseStoreTags, id.entity.rootEntityIndex >= 0 else { return nil }
        return (Int(id.storeTag), id.entity.rootEntityIndex, Int(id.primaryKey))
    }

    /// The table's index for a key, when the table exists and covers it.
    @inline(__always)
    private func index(store: Int, root: Int, key: Int) -> Int? {
        guard store < tables.count, root < tables[store].count else { return nil }
        let index = key &- tables[store][root].base
        return index >= 0 && index < tables[store][root].slots.count ? index : nil
    }

    var count: Int { denseCount + sparse.count }

    subscript(id: ManagedObjectID) -> WeakObject? {
        get {
            if let (store, root, key) = Self.position(id), let index = index(store: store, root: root, key: key) {
                guard let entry = tables[store][root].slots[index], let object = entry.object,
                      object.objectID.entity === id.entity, object.objectID.storeTag == id.storeTag,
                      object.objectID.primaryKey == id.primaryKey, object.objectID.isTemporaryID == id.isTemporaryID
                else { return sparse.isEmpty ? nil : sparse[id] }
                return entry
            }
            return sparse.isEmpty ? nil : sparse[id]
        }
        set {
            #if STRATA_INVARIANTS
            defer { _checkInvariants(after: id) }
            #endif
            guard let (store, root, key) = Self.position(id), fitsDense(store: store, root: root, key: key) else {
                sparse[id] = newValue
                return
            }
            guard newValue != nil || index(store: store, root: root, key: key) != nil else {
                // Nothing to remove here: allocate no slot for it (an emptied table would
                // otherwise get a slot while counting no entry).
                if !sparse.isEmpty { sparse[id] = nil }
                return
            }
            if store >= tables.count { tables.append(contentsOf: repeatElement([], count: store + 1 - tables.count)) }
            if root >= tables[store].count {
                tables[store].append(contentsOf: repeatElement(Table(), count: root + 1 - tables[store].count))
            }
            // Permanent keys count from 0; temporary numbers from the first one seen.
            if tables[store][root].slots.isEmpty { tables[store][root].base = store == 0 ? key : 0 }
            let index = key - tables[store][root].base
            let length = tables[store][root].slots.count
            if index >= length {
                let grown = max(index + 1, length * 2)
                // Reserved exactly first: appending alone may grow the buffer to twice its
                // old capacity, beyond the doubled length.
                tables[store][root].slots.reserveCapacity(grown)
                tables[store][root].slots.append(contentsOf: repeatElement(nil, count: grown - length))
            }
            let had = tables[store][root].slots[index] != nil
            tables[store][root].slots[index] = newValue
            let has = newValue != nil
            if had != has {
                tables[store][root].count += has ? 1 : -1
                denseCount += has ? 1 : -1
                // Emptied (every inserted object saved, say): free it, and let the next key
                // set a new base.
                if tables[store][root].count == 0 { tables[store][root].slots = [] }
            }
            if !sparse.isEmpty { sparse[id] = nil }
        }
    }

    /// Whether a key fits its dense table: not far beyond the keys already there, so that one
    /// huge key cannot allocate a huge array.
    private func fitsDense(store: Int, root: Int, key: Int) -> Bool {
        guard store < tables.count, root < tables[store].count, !tables[store][root].slots.isEmpty else {
            return store == 0 || key < 4096
        }
        let index = key - tables[store][root].base
        return index >= 0 && index < max(tables[store][root].slots.count * 2, 4096)
    }

    /// Every entry.
    var values: [WeakObject] {
        var result = Array(sparse.values)
        for tablesOfStore in tables {
            for table in tablesOfStore where table.count > 0 { result.append(contentsOf: table.slots.lazy.compactMap { $0 }) }
        }
        return result
    }

    mutating func removeAll() {
        tables.removeAll()
        sparse.removeAll()
        denseCount = 0
    }
}

#if STRATA_INVARIANTS
extension ObjectRegistry {
    /// Every broken invariant of the whole table: each dense table's count is its number of
    /// entries and an empty one holds no slots, the dense count is their sum, each live
    /// object sits where its ID says (dense slot or dictionary key), and no ID is in both.
    /// O(slots + dictionary entries).
    func _invariantViolations() -> [String] {
        var problems: [String] = []
        var total = 0
        for (store, tablesOfStore) in tables.enumerated() {
            for (root, table) in tablesOfStore.enumerated() {
                problems += Self.violations(of: table, store: store, root: root)
                total += table.count
                for (index, entry) in table.slots.enumerated() {
                    guard let object = entry?.object else { continue }
                    let position = Self.position(object.objectID)
                    if position?.store != store || position?.root != root || position?.key != table.base + index {
                        problems.append("\(object.objectID) sits in dense table \(store)/\(root) at key \(table.base + index)")
                    }
                    if !sparse.isEmpty, sparse[object.objectID] != nil { problems.append("\(object.objectID) is both dense and in the dictionary") }
                }
            }
        }
        if total != denseCount { problems.append("the dense count is \(denseCount), the tables hold \(total)") }
        for (id, entry) in sparse {
            if let object = entry.object, object.objectID != id { problems.append("\(object.objectID) is in the dictionary as \(id)") }
        }
        return problems
    }

    /// The invariants a change of `id`'s entry could break: those of its dense table.
    /// O(1).
    private func violations(after id: ManagedObjectID) -> [String] {
        guard let (store, root, key) = Self.position(id), store < tables.count, root < tables[store].count else { return [] }
        var problems = Self.violations(of: tables[store][root], store: store, root: root)
        if denseCount < 0 { problems.append("the dense count is \(denseCount)") }
        if index(store: store, root: root, key: key) != nil, self[id] != nil, sparse[id] != nil {
            problems.append("\(id) is both dense and in the dictionary")
        }
        return problems
    }

    private static func violations(of table: Table, store: Int, root: Int) -> [String] {
        var problems: [String] = []
        if table.count < 0 || table.count > table.slots.count || (table.count == 0) != table.slots.isEmpty {
            problems.append("dense table \(store)/\(root) counts \(table.count) entries in \(table.slots.count) slots")
        }
        return problems
    }

    /// Stops the process when a change of `id`'s entry broke an invariant; now and then
    /// (amortized O(1)) checks the whole table.
    private mutating func _checkInvariants(after id: ManagedObjectID) {
        checkInvariants(of: "ObjectRegistry", violations(after: id))
        if sampler.isFullCheckDue(after: 1, size: count) { checkInvariants(of: "ObjectRegistry", _invariantViolations()) }
    }

    /// Miscounts the dense entries, for the test that shows the check catches it.
    mutating func _corruptForTesting() { denseCount += 1 }
}
#endif
