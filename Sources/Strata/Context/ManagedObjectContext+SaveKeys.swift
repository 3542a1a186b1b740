import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Gives every record the unsaved log names by temporary ID a permanent one, inside the
    /// save's held write, right before the log is written: keys reserved per root entity
    /// with ``PersistentStore/allocatePrimaryKeys(for:count:)`` (the only source of keys;
    /// inside the held write a document reserves them in a savepoint of the write, so no
    /// extra transaction), then each object, the log, the rows and the undo stacks renamed
    /// in place. Stores never assign keys: they refuse a temporary ID.
    ///
    /// Every temporary ID of the log is covered, also of records inserted and deleted
    /// again before the save (the log keeps both operations, and undo may bring them back).
    ///
    /// Why in place: renaming inside the store's write copied every row of the request
    /// while the objects and the log still held theirs, and built a temporary → permanent
    /// dictionary (at 1,000,000 objects ~300 MiB of a bulk save's peak; docs/ARCHITECTURE.md,
    /// "When new objects get their keys"). Here an insert's row is taken out of the log
    /// while its object renames it, then put back: object, log, request and the store's
    /// overlay keep sharing one buffer.
    ///
    /// The reservation is durable only once the write commits: a failed save hands the
    /// returned assignment to ``takeBackPermanentIDs(_:)``, and children hear of the IDs
    /// only after the commit (``announcePermanentIDs(_:)``).
    func assignPermanentIDsInWrite() throws -> SaveKeyAssignment {
        // First pass: the range of temporary numbers, and about how many records.
        var lowest = Int64.max
        var highest = Int64.min
        var inserts = 0
        for batch in log.unsaved {
            for operation in batch.operations {
                if case .insert = operation { inserts += 1 }
                operation.forEachID { id in
                    guard id.isTemporaryID else { return }
                    lowest = min(lowest, id.primaryKey)
                    highest = max(highest, id.primaryKey)
                }
            }
        }
        guard lowest <= highest else { return SaveKeyAssignment() }
        // Second pass: each record once, counted per root entity.
        var table = TemporaryKeyTable(lowest: lowest, highest: highest, records: inserts)
        var countByRoot: [ObjectIdentifier: (entity: EntityDescription, count: Int)] = [:]
        forEachUnsavedID { id in
            guard id.isTemporaryID, table.markSeen(id.primaryKey) else { return }
            countByRoot[ObjectIdentifier(id.entity.rootEntity), default: (id.entity, 0)].count += 1
        }
        // Every root's keys before anything is renamed: a failure there renames nothing.
        var assignment = SaveKeyAssignment()
        var next: [ObjectIdentifier: Int64] = [:]
        for (root, sample) in countByRoot.sorted(by: { $0.value.entity.rootEntity.name < $1.value.entity.rootEntity.name }) {
            let store = try coordinator.store(for: sample.entity)
            // A store holding a write lock reserves without taking it again, as it saves.
            let keys = if let held = store as? any HeldWriteSaving {
                try held.allocatePrimaryKeysInHeldWrite(for: sample.entity, count: sample.count)
            } else {
                try store.allocatePrimaryKeys(for: sample.entity, count: sample.count)
            }
            assignment.reserved[root] = (store.tag, keys)
            next[root] = keys.lowerBound
        }
        // Third pass: keys in the order the records first appear, and the registered
        // objects renamed.
        let toldChildren = children.withLock { !$0.isEmpty }
        var scopes = ObjectIDScopeCache()
        forEachUnsavedID { old in
            guard old.isTemporaryID else { return }
            let root = ObjectIdentifier(old.entity.rootEntity)
            var given: Int64 = 0
            guard table.assignIfPending(old.primaryKey, {
                given = next[root]!
                next[root] = given + 1
                return given
            }) else { return }
            let new = scopes.id(old.entity, storeTag: assignment.reserved[root]!.tag, primaryKey: given)
            if toldChildren { assignment.forChildren[old] = new }
            moveRegistration(from: old, to: new)
        }
        let tags = assignment.reserved.mapValues(\.tag)
        let renamed = table
        renameInPlace(touching: \.isTemporaryID) { id in
            // Temporary numbers are process-wide, so a number the table holds names this
            // save's record of that number, whose entity the ID names.
            guard id.isTemporaryID, let key = renamed.key(for: id.primaryKey),
                  let tag = tags[ObjectIdentifier(id.entity.rootEntity)] else { return id }
            return scopes.id(id.entity, storeTag: tag, primaryKey: key)
        }
        return assignment
    }

    /// Gives the records a failed save renamed temporary IDs again (fresh ones): the keys
    /// were reserved inside the write that rolled back, so they are not durable and another
    /// writer may be handed them (Core Data's objects, too, keep temporary IDs until a
    /// successful save). Rare, so a dictionary is fine here.
    func takeBackPermanentIDs(_ assignment: SaveKeyAssignment) {
        guard !assignment.isEmpty else { return }
        var fresh: [ManagedObjectID: ManagedObjectID] = [:]
        forEachUnsavedID { old in
            guard fresh[old] == nil, assignment.gave(old) else { return }
            let new = ManagedObjectID.temporary(for: old.entity)
            fresh[old] = new
            moveRegistration(from: old, to: new)
        }
        let taken = fresh
        renameInPlace(touching: assignment.gave, reintroducingTemporaryIDs: true) { taken[$0] ?? $0 }
    }

    /// Calls `body` with every ID the unsaved log names.
    private func forEachUnsavedID(_ body: (ManagedObjectID) -> Void) {
        for batch in log.unsaved {
            for operation in batch.operations { operation.forEachID(body) }
        }
    }

    /// Moves a registered object to its new ID (a permanent one, or a temporary one again).
    private func moveRegistration(from old: ManagedObjectID, to new: ManagedObjectID) {
        guard let object = registry[old]?.object else { return }
        registry[old] = nil
        object.objectID = new
        registry[new] = WeakObject(object)
    }

    /// Replaces temporary IDs everywhere the context keeps them (registry, objects' values,
    /// the unsaved log, texts and undo stacks) by those another context or
    /// ``obtainPermanentIDs(for:)`` reserved: the renaming a save does in place, by dictionary.
    func adoptPermanentIDs(_ assigned: [ManagedObjectID: ManagedObjectID]) {
        guard !assigned.isEmpty else { return }
        for (old, new) in assigned { moveRegistration(from: old, to: new) }
        renameInPlace(touching: { assigned[$0] != nil }) { assigned[$0] ?? $0 }
    }

    /// Renames IDs in the unsaved log, the changed objects' values, the texts and the undo
    /// stacks, without copying a row that an object and its logged insert share. `touches`
    /// says cheaply whether `remap` may change an ID.
    private func renameInPlace(touching touches: (ManagedObjectID) -> Bool, reintroducingTemporaryIDs: Bool = false,
                               _ remap: (ManagedObjectID) -> ManagedObjectID) {
        func remapValue(_ value: PropertyValue) -> PropertyValue {
            switch value {
            case .object(let id): return .object(remap(id))
            case .objects(let ids): return .objects(OrderedSet(ids.map(remap)))
            default: return value
            }
        }
        // In place, relationship slots only: only they hold IDs. A row already renamed
        // holds no ID to touch and is left alone.
        func renameRow(of object: ManagedObject) {
            for relationship in object.entity.relationships where relationship.slot < object.storage.count {
                let value = object.storage[relationship.slot]
                if value.objectIDs.contains(where: touches) { object.storage[relationship.slot] = remapValue(value) }
            }
        }
        log.rewriteUnsaved { operation in
            guard let object = objectSharingRow(with: operation, touches, remap) else {
                var touched = false
                operation.forEachID { if !touched, touches($0) { touched = true } }
                if touched { operation = operation.mapIDs(remap) }
                return
            }
            // The log lets go of the row, the object renames it (in place: its only owner
            // now, unless an undo stack holds it too), and the log takes it back.
            let id = object.objectID
            operation = .insert(id, values: [])
            renameRow(of: object)
            operation = .insert(id, values: object.storage.array)
        }
        for object in dirtySet.values {
            renameRow(of: object)
            if object.committedOld != nil { object.committedOld = object.committedOld?.mapValues(remapValue) }
            if !object.flushOld.isEmpty { object.flushOld = object.flushOld.mapValues(remapValue) }
        }
        renameTexts(touching: touches, remap)
        undoManager?.remapIDs(remap, reintroducingTemporaryIDs: reintroducingTemporaryIDs)
    }

    /// The object a logged insert of a renamed record shares its values buffer with, if
    /// any (a separate function, so that no binding of the row outlives the check).
    private func objectSharingRow(with operation: ChangeOperation, _ touches: (ManagedObjectID) -> Bool,
                                  _ remap: (ManagedObjectID) -> ManagedObjectID) -> ManagedObject? {
        guard case .insert(let id, let values) = operation, touches(id) else { return nil }
        let new = remap(id)
        guard new != id, let object = registry[new]?.object else { return nil }
        let shared = values.withUnsafeBufferPointer { row in
            object.storage.withUnsafeBufferPointer { row.baseAddress == $0.baseAddress && row.count == $0.count }
        }
        return shared && !values.isEmpty ? object : nil
    }
}
