import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Gives a big save's new objects their permanent IDs before its write: keys reserved
    /// durably per root entity (``PersistentStore/allocatePrimaryKeys(for:count:)``, as
    /// ``obtainPermanentIDs(for:)`` does), then each object, its logged insert and every
    /// logged reference renamed one operation at a time.
    ///
    /// Why before the write: a store that renames inside its write rewrites every row of the
    /// request while the objects and the log still hold theirs (a copy of every row), and
    /// builds a temporary → permanent dictionary (at 1,000,000 objects ~300 MiB of W1's
    /// peak; docs/ARCHITECTURE.md, "When new objects get their keys"). Here an insert's row
    /// is taken out of the log while its object renames it in place, then put back: object,
    /// log, request and the store's overlay keep sharing one buffer, and the store finds no
    /// temporary ID to assign. Below ``earlyPermanentIDMinimum`` new objects nothing happens
    /// here: small saves keep the in-write assignment and need no extra transaction.
    ///
    /// Objects keep temporary IDs until their save, as in Core Data; a save that fails
    /// after this step leaves them with their permanent IDs (as `obtainPermanentIDs` does),
    /// and the reserved keys are never handed out again (docs/ARCHITECTURE.md, "When new
    /// objects get their keys").
    func assignPermanentIDsBeforeWrite() throws {
        var sampleByRoot: [ObjectIdentifier: (entity: EntityDescription, count: Int)] = [:]
        var newObjects = 0
        var lowest = Int64.max
        var highest = Int64.min
        var scopes = ObjectIDScopeCache()
        for object in dirtySet.values where Self.takesEarlyKey(object) {
            sampleByRoot[ObjectIdentifier(object.entity.rootEntity), default: (object.entity, 0)].count += 1
            newObjects += 1
            lowest = min(lowest, object.objectID.primaryKey)
            highest = max(highest, object.objectID.primaryKey)
        }
        guard newObjects > 0, newObjects >= earlyPermanentIDMinimum else { return }
        // Temporary numbers are process-wide and handed out in order, so one context's new
        // objects cover a dense range: an array indexed by number takes a quarter of a
        // dictionary's bytes. A range other contexts' inserts made sparse takes the
        // dictionary path of `obtainPermanentIDs`.
        let span = highest - lowest + 1
        guard span <= Int64(newObjects) * 4 + 1_024 else {
            try obtainPermanentIDs(for: dirtySet.values.filter(Self.takesEarlyKey))
            return
        }
        // Every root's keys first (a small durable transaction each): a failure there
        // renames nothing.
        var next: [ObjectIdentifier: (key: Int64, tag: UInt32)] = [:]
        for (rootID, sample) in sampleByRoot.sorted(by: { $0.value.entity.name < $1.value.entity.name }) {
            let store = try coordinator.store(for: sample.entity)
            let keys = try store.allocatePrimaryKeys(for: sample.entity, count: sample.count)
            next[rootID] = (keys.lowerBound, store.tag)
        }
        // Children know these records by their temporary IDs: only they need the dictionary.
        let toldChildren = children.withLock { !$0.isEmpty }
        var assigned: [ManagedObjectID: ManagedObjectID] = [:]
        let tags = next.mapValues(\.tag)
        // The new key by temporary number (`Int64.min`: not renamed). Only the key: the new ID's entity
        // is the temporary ID's, and its store tag its root's; an array of optional IDs took
        // 24 bytes a number, the largest thing at a million-object save's peak.
        var keys = ContiguousArray<Int64>(repeating: .min, count: Int(span))
        for object in dirtySet.values where Self.takesEarlyKey(object) {
            let old = object.objectID
            let rootID = ObjectIdentifier(old.entity.rootEntity)
            guard let entry = next[rootID] else { continue }
            next[rootID] = (entry.key + 1, entry.tag)
            let new = scopes.id(old.entity, storeTag: entry.tag, primaryKey: entry.key)
            keys[Int(old.primaryKey - lowest)] = entry.key
            if toldChildren { assigned[old] = new }
            registry[old] = nil
            object.objectID = new
            registry[new] = WeakObject(object)
        }
        let renamed = keys
        renameInPlace { id in
            // Temporary numbers are process-wide, so a number in range names this context's
            // object of that number, whose entity the ID names.
            guard id.isTemporaryID, id.primaryKey >= lowest, id.primaryKey <= highest else { return id }
            let key = renamed[Int(id.primaryKey - lowest)]
            guard key != .min, let tag = tags[ObjectIdentifier(id.entity.rootEntity)] else { return id }
            return scopes.id(id.entity, storeTag: tag, primaryKey: key)
        }
        announcePermanentIDs(assigned)
    }

    /// Whether a save gives this object a key before its write: new, not deleted, still
    /// temporary.
    private static func takesEarlyKey(_ object: ManagedObject) -> Bool {
        object.objectID.isTemporaryID && object.state.isInserted && !object.state.isDeleted
    }

    /// Renames IDs in the unsaved log, the changed objects' values and the undo stacks,
    /// without copying a row that an object and its logged insert share.
    private func renameInPlace(_ remap: (ManagedObjectID) -> ManagedObjectID) {
        func remapValue(_ value: PropertyValue) -> PropertyValue {
            switch value {
            case .object(let id): return .object(remap(id))
            case .objects(let ids): return .objects(OrderedSet(ids.map(remap)))
            default: return value
            }
        }
        // In place, relationship slots only: only they hold IDs. A row already renamed
        // holds no temporary ID and is left alone.
        func renameRow(of object: ManagedObject) {
            for relationship in object.entity.relationships where relationship.slot < object.storage.count {
                let value = object.storage[relationship.slot]
                if value.objectIDs.contains(where: \.isTemporaryID) { object.storage[relationship.slot] = remapValue(value) }
            }
        }
        log.rewriteUnsaved { operation in
            guard let object = objectSharingRow(with: operation, remap) else {
                if operation.holdsTemporaryID { operation = operation.mapIDs(remap) }
                return
            }
            // The log lets go of the row, the object renames it (in place: its only owner
            // now, unless an undo stack holds it too), and the log takes it back.
            let id = object.objectID
            operation = .insert(id, values: [])
            renameRow(of: object)
            operation = .insert(id, values: object.storage)
        }
        for object in dirtySet.values {
            renameRow(of: object)
            if object.committedOld != nil { object.committedOld = object.committedOld?.mapValues(remapValue) }
            if !object.flushOld.isEmpty { object.flushOld = object.flushOld.mapValues(remapValue) }
        }
        undoManager?.remapIDs(remap)
    }

    /// The object a logged insert of a renamed record shares its values buffer with, if
    /// any (a separate function, so that no binding of the row outlives the check).
    private func objectSharingRow(with operation: ChangeOperation, _ remap: (ManagedObjectID) -> ManagedObjectID) -> ManagedObject? {
        guard case .insert(let id, let values) = operation, id.isTemporaryID else { return nil }
        let new = remap(id)
        guard !new.isTemporaryID, let object = registry[new]?.object else { return nil }
        let shared = values.withUnsafeBufferPointer { row in
            object.storage.withUnsafeBufferPointer { row.baseAddress == $0.baseAddress && row.count == $0.count }
        }
        return shared && !values.isEmpty ? object : nil
    }
}
