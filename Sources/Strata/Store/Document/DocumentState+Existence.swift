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
            let sql = "SELECT \"_pk\", \(table.entitySQL(alias: nil)) FROM \(SnapshotSchema.quote(table.name)) WHERE \"_pk\" IN (SELECT value FROM json_each(?1))"
            var start = unknown.startIndex
            while start < unknown.endIndex {
                let end = min(start + Self.existenceBatch, unknown.endIndex)
                let batch = unknown[start..<end]
                var wanted: [Int64: [ManagedObjectID]] = [:]
                wanted.reserveCapacity(batch.count)
                for id in batch { wanted[id.primaryKey, default: []].append(id) }
                let statement = try connection.prepare(sql)
                defer { statement.resetQuietly() }
                try statement.bind(.text(SnapshotRowReader.jsonArray(batch.lazy.map(\.primaryKey))), at: 1)
                while try statement.step() == .row {
                    let entityIndex = Int(statement.int64(at: 1))
                    // A row of another entity of the hierarchy is not this record.
                    for id in wanted[statement.int64(at: 0)] ?? [] where id.entity.index == entityIndex { existing.insert(id) }
                }
                start = end
            }
        }
        return existing
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
