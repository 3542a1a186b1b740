import Foundation

/// The net effect of the uncompacted segments: full persistent rows of every record they
/// inserted or changed, and the records they deleted. Reads consult it before the
/// snapshot; compaction writes it into the snapshot and empties it.
struct DocumentOverlay {
    private(set) var rows: [ManagedObjectID: [PropertyValue]] = [:]
    private(set) var deleted: Set<ManagedObjectID> = []

    var isEmpty: Bool { rows.isEmpty && deleted.isEmpty }

    enum Lookup {
        case row([PropertyValue])
        case deleted
        case unknown
    }

    func lookup(_ id: ManagedObjectID) -> Lookup {
        if let row = rows[id] { return .row(row) }
        return deleted.contains(id) ? .deleted : .unknown
    }

    mutating func merge(_ patch: OverlayPatch) {
        for (id, row) in patch.rows {
            if let row {
                rows[id] = row
                deleted.remove(id)
            } else {
                rows[id] = nil
                deleted.insert(id)
            }
        }
    }

    mutating func removeAll() {
        rows.removeAll()
        deleted.removeAll()
    }
}

/// Changes computed on top of the overlay before they are committed: applied to the
/// overlay only once the transaction that records them succeeded.
struct OverlayPatch {
    /// New rows by ID; nil marks a delete.
    private(set) var rows: [ManagedObjectID: [PropertyValue]?] = [:]
    /// Records inserted by the patch, per root entity index: the largest key.
    private(set) var largestInsertedKey: [Int: Int64] = [:]
    private(set) var touched: Set<ManagedObjectID> = []

    /// Applies one operation. `base` gives the current row of a record not yet in the patch.
    /// - Throws: `.corruptDocument` when an operation changes a record that does not exist.
    mutating func apply(_ operation: Operation, base: (ManagedObjectID) throws -> [PropertyValue]?) throws {
        let id = operation.objectID
        touched.insert(id)
        switch operation {
        case .insert(_, let values):
            rows[id] = .some(RowTable.persistent(values, of: id.entity))
            let root = id.entity.rootEntity.index
            largestInsertedKey[root] = max(largestInsertedKey[root] ?? 0, id.primaryKey)
        case .delete:
            rows[id] = .some(nil)
        case .update(_, let changes):
            var row = try current(id, base)
            for change in changes where change.slot < row.count && !RowTable.isTransient(change.slot, of: id.entity) {
                row[change.slot] = change.new
            }
            rows[id] = .some(row)
        case .relate(_, let slot, let added, let removed):
            var row = try current(id, base)
            guard slot < row.count, !RowTable.isTransient(slot, of: id.entity) else { return }
            guard case .objects(var members) = row[slot] else { throw Self.missing(id) }
            for member in removed { members.remove(member) }
            for member in added { members.append(member) }
            if !Self.isOrdered(slot, of: id.entity) { members.sort() }
            row[slot] = .objects(members)
            rows[id] = .some(row)
        }
    }

    private func current(_ id: ManagedObjectID, _ base: (ManagedObjectID) throws -> [PropertyValue]?) throws -> [PropertyValue] {
        if let entry = rows[id] {
            guard let row = entry else { throw Self.missing(id) }
            return row
        }
        guard let row = try base(id) else { throw Self.missing(id) }
        return row
    }

    static func isOrdered(_ slot: Int, of entity: EntityDescription) -> Bool {
        guard case .relationship(let index) = entity.slotKinds[slot] else { return false }
        return entity.relationships[index].isOrdered
    }

    private static func missing(_ id: ManagedObjectID) -> StrataError {
        StrataError(.corruptDocument, "The log changes \(id), which does not exist in the document.",
                    context: ["object": id.description])
    }
}
