import Foundation

/// The context's uniquing table: one entry per registered record.
///
/// Permanent IDs are looked up in dense arrays indexed by primary key (one per store and
/// root entity), about ten times faster than hashing the ID; temporary IDs, and keys too
/// sparse for an array, use a dictionary.
struct ObjectRegistry {
    private struct Table {
        var slots: ContiguousArray<WeakObject?> = []
        var count = 0
    }

    private var dense: [UInt64: Table] = [:]
    private var sparse: [ManagedObjectID: WeakObject] = [:]
    private var denseCount = 0

    private static func tableKey(_ id: ManagedObjectID) -> UInt64 {
        UInt64(id.storeTag) << 32 | UInt64(UInt32(truncatingIfNeeded: id.entity.rootEntityIndex))
    }

    /// Whether a key fits the dense table: not temporary, positive, and not far beyond the
    /// keys already there (so one huge key cannot allocate a huge array).
    private func denseIndex(_ id: ManagedObjectID, table: Table?) -> Int? {
        guard !id.isTemporaryID, id.primaryKey > 0, id.primaryKey < Int64(Int32.max) else { return nil }
        let index = Int(id.primaryKey)
        let capacity = table?.slots.count ?? 0
        return index < max(capacity * 2, 4096) ? index : nil
    }

    var count: Int { denseCount + sparse.count }

    subscript(id: ManagedObjectID) -> WeakObject? {
        get {
            if !id.isTemporaryID, let table = dense[Self.tableKey(id)], Int(clamping: id.primaryKey) < table.slots.count,
               id.primaryKey > 0, let entry = table.slots[Int(id.primaryKey)]
            {
                return entry.object?.objectID == id ? entry : nil
            }
            return sparse[id]
        }
        set {
            let key = Self.tableKey(id)
            if let index = denseIndex(id, table: dense[key]) {
                var table = dense.removeValue(forKey: key) ?? Table()
                if index >= table.slots.count {
                    table.slots.append(contentsOf: repeatElement(nil, count: max(index + 1, table.slots.count * 2) - table.slots.count))
                }
                let had = table.slots[index] != nil
                table.slots[index] = newValue
                let has = newValue != nil
                if had != has {
                    table.count += has ? 1 : -1
                    denseCount += has ? 1 : -1
                }
                dense[key] = table
                sparse[id] = nil
            } else {
                sparse[id] = newValue
            }
        }
    }

    /// Every entry.
    var values: [WeakObject] {
        var result = Array(sparse.values)
        for table in dense.values { result.append(contentsOf: table.slots.lazy.compactMap { $0 }) }
        return result
    }

    mutating func removeAll() {
        dense.removeAll()
        sparse.removeAll()
        denseCount = 0
    }
}
