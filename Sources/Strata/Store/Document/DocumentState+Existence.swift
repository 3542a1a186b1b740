import Foundation

/// Whether records exist as a write inside the held write sees them, without reading their
/// values: what `valuesInWrite(id) != nil` says of each.
///
/// A save checks every delete with it (a record another writer deleted first is not deleted
/// again, and the log never deletes a record that is not there). Reading each deleted row
/// only to drop it made an undo of an import read every row twice — once for the values
/// its deletes record, once for this check — and, while its write folded, brought back
/// the indexes the fold dropped and kept every deleted row in memory; asking the snapshot
/// one record at a time cost more than SQLite's delete of it (docs/ARCHITECTURE.md, "Undo").
extension DocumentState {
    /// The records of `ids` that exist, the snapshot asked once per table and batch.
    /// - Complexity: O(ids), one statement per 10,000 records the write does not hold.
    func existingInWrite(_ ids: [ManagedObjectID]) throws -> Set<ManagedObjectID> {
        var existing: Set<ManagedObjectID> = []
        var unknownByRoot: [Int: [ManagedObjectID]] = [:]
        for id in ids {
            switch knownInWrite(id) {
            case true?: existing.insert(id)
            case false?: break
            case nil: unknownByRoot[id.entity.rootEntity.index, default: []].append(id)
            }
        }
        for (rootIndex, unknown) in unknownByRoot.sorted(by: { $0.key < $1.key }) {
            let table = schema.table(for: model.entities[rootIndex])
            let columns = "SELECT \"_pk\", \(table.entitySQL(alias: nil)) FROM \(SnapshotSchema.quote(table.name))"
            let listed = try connection.prepare(columns + " WHERE \"_pk\" IN (SELECT value FROM json_each(?1))")
            let ranged = try connection.prepare(columns + " WHERE \"_pk\" BETWEEN ?1 AND ?2")
            var start = unknown.startIndex
            while start < unknown.endIndex {
                let end = min(start + Self.existenceBatch, unknown.endIndex)
                try Self.ask(unknown[start..<end], listed: listed, ranged: ranged, into: &existing)
                start = end
            }
        }
        return existing
    }

    /// Asks the snapshot for one batch of keys of one table. Keys that fill most of the
    /// span between the smallest and the largest (an import's, an undo of it) are read as
    /// that span, in key order, and found by their offset in it: a list of 10,000 keys had
    /// SQLite parse it, build a temporary index of it and seek each key, and the batch
    /// took a dictionary of its keys, which together cost a seventh of an undo of an
    /// import of 1,000,000 rows (docs/ARCHITECTURE.md, "Undo").
    private static func ask(_ batch: ArraySlice<ManagedObjectID>, listed: SQLiteStatement, ranged: SQLiteStatement,
                            into existing: inout Set<ManagedObjectID>) throws {
        var lowest = Int64.max
        var highest = Int64.min
        for id in batch {
            lowest = min(lowest, id.primaryKey)
            highest = max(highest, id.primaryKey)
        }
        let span = highest.subtractingReportingOverflow(lowest)
        if !span.overflow, span.partialValue < Int64(batch.count) * 2 {
            // The entity index of each key's row (-1: no row), by offset from the lowest.
            var found = [Int](repeating: -1, count: Int(span.partialValue) + 1)
            var any = false
            defer { ranged.resetQuietly() }
            try ranged.bind(.integer(lowest), at: 1)
            try ranged.bind(.integer(highest), at: 2)
            while try ranged.step() == .row {
                found[Int(ranged.int64(at: 0) - lowest)] = Int(ranged.int64(at: 1))
                any = true
            }
            guard any else { return }
            // A row of another entity of the hierarchy is not this record.
            existing.reserveCapacity(existing.count + batch.count)
            for id in batch where found[Int(id.primaryKey - lowest)] == id.entity.index { existing.insert(id) }
            return
        }
        var wanted: [Int64: [ManagedObjectID]] = [:]
        wanted.reserveCapacity(batch.count)
        for id in batch { wanted[id.primaryKey, default: []].append(id) }
        defer { listed.resetQuietly() }
        try listed.bind(.text(SnapshotRowReader.jsonArray(batch.lazy.map(\.primaryKey))), at: 1)
        while try listed.step() == .row {
            let entityIndex = Int(listed.int64(at: 1))
            for id in wanted[listed.int64(at: 0)] ?? [] where id.entity.index == entityIndex { existing.insert(id) }
        }
    }

    /// The keys one statement of ``existingInWrite(_:)`` asks for.
    private static var existenceBatch: Int { 10_000 }

    /// What the held write and the overlay say of the record (nil: ask the snapshot).
    private func knownInWrite(_ id: ManagedObjectID) -> Bool? {
        if let fold = heldWrite?.fold {
            // The overlay is empty while a fold runs: the snapshot holds the rest.
            return fold.rows[id] != nil ? true : nil
        }
        if let patches = heldWrite?.patches {
            for patch in patches.reversed() {
                if patch.rows[id] != nil { return true }
                if patch.deleted.contains(id) { return false }
            }
        }
        switch overlay.lookup(id) {
        case .row: return true
        case .deleted: return false
        case .unknown: return nil
        }
    }
}
