import Foundation
import OrderedCollections

/// Records by object ID with their persistent values: the in-memory store's rows and the
/// shape of a document's overlay. Applying an operation is the one way rows change.
struct RowTable: Sendable {
    private(set) var rows: [ManagedObjectID: [PropertyValue]] = [:]
    /// Records deleted by the operations applied (so an overlay can hide store rows).
    private(set) var deleted: Set<ManagedObjectID> = []

    var count: Int { rows.count }

    func values(for id: ManagedObjectID) -> [PropertyValue]? { rows[id] }

    func objectIDs(for entity: EntityDescription, includingSubentities: Bool) -> [ManagedObjectID] {
        rows.keys.filter { includingSubentities ? $0.entity.isKind(of: entity) : $0.entity === entity }.sorted()
    }

    /// Applies one operation, dropping transient slots.
    /// - Throws: `.corruptDocument` when an update names a record that does not exist.
    mutating func apply(_ operation: Operation, model: ManagedObjectModel) throws {
        switch operation {
        case .insert(let id, let values):
            rows[id] = Self.persistent(values, of: id.entity)
            deleted.remove(id)
        case .delete(let id, _):
            rows[id] = nil
            deleted.insert(id)
        case .update(let id, let changes):
            // Taken out and put back so the row is changed in place, not copied.
            guard var values = rows.removeValue(forKey: id) else { throw Self.missing(id) }
            for change in changes where change.slot < values.count && !Self.isTransient(change.slot, of: id.entity) {
                values[change.slot] = change.new
            }
            rows[id] = values
        case .relate(let id, let slot, let added, let removed):
            guard var values = rows.removeValue(forKey: id) else { throw Self.missing(id) }
            guard slot < values.count, case .objects(var members) = values[slot] else {
                rows[id] = values
                throw Self.missing(id)
            }
            values[slot] = .null
            for member in removed { members.remove(member) }
            for member in added { members.append(member) }
            values[slot] = .objects(members)
            rows[id] = values
        }
    }

    /// Applies operations all or nothing: on an error every record touched is put back.
    ///
    /// - Complexity: O(operations), whatever the size of the table.
    mutating func applyAtomically(_ operations: [Operation], model: ManagedObjectModel) throws {
        var saved: [ManagedObjectID: (row: [PropertyValue]?, wasDeleted: Bool)] = [:]
        do {
            for operation in operations {
                let id = operation.objectID
                if saved[id] == nil { saved[id] = (rows[id], deleted.contains(id)) }
                try apply(operation, model: model)
            }
        } catch {
            for (id, previous) in saved {
                rows[id] = previous.row
                if previous.wasDeleted { deleted.insert(id) } else { deleted.remove(id) }
            }
            throw error
        }
    }

    private static func missing(_ id: ManagedObjectID) -> StrataError {
        StrataError(.corruptDocument, "An operation changes \(id), which does not exist.", context: ["object": id.description])
    }

    static func isTransient(_ slot: Int, of entity: EntityDescription) -> Bool {
        switch entity.slotKinds[slot] {
        case .attribute(let index): return entity.attributes[index].isTransient
        case .relationship(let index): return entity.relationships[index].isTransient
        }
    }

    /// The values with transient slots reset (attributes to null, to-manys to empty).
    static func persistent(_ values: [PropertyValue], of entity: EntityDescription) -> [PropertyValue] {
        var result = values
        for slot in result.indices where isTransient(slot, of: entity) {
            if case .relationship(let index) = entity.slotKinds[slot], entity.relationships[index].isToMany {
                result[slot] = .objects([])
            } else {
                result[slot] = .null
            }
        }
        return result
    }
}
