import Foundation
import OrderedCollections

/// A record a save would write that changed in the store since the context read it.
struct StoreConflict {
    let object: ManagedObject
    /// What the context read (its committed values).
    let committed: [PropertyValue]
    /// The record in the store now; nil when it was deleted there.
    let persisted: [PropertyValue]?
}

extension ManagedObjectContext {
    // MARK: Finding conflicts (under the coordinator's save lock)

    /// Takes in other processes' saves, then returns every object this save writes whose
    /// record changed in the store after the object's values were read, with the
    /// generation the comparison saw.
    ///
    /// Only records changed since an object's ``ManagedObject/loadGeneration`` are read
    /// back; among those, a record is in conflict when a persistent value differs from the
    /// context's committed one (a record changed and changed back is not).
    func findConflicts() throws -> (conflicts: [StoreConflict], generation: UInt64) {
        var external: Set<ManagedObjectID> = []
        for store in coordinator.persistentStores { external.formUnion(try store.catchUpWithOtherProcesses()) }
        if !external.isEmpty { coordinator.noteChanged(external) }
        let generation = coordinator.generation
        var seen: Set<ManagedObjectID> = []
        var conflicts: [StoreConflict] = []
        func check(_ object: ManagedObject) throws {
            let id = object.objectID
            guard !object.state.isInserted, object.state.existsInStore, !object.state.isFault, !object.state.isInvalid,
                  !id.isTemporaryID, coordinator.hasChanged(id, since: object.loadGeneration),
                  seen.insert(id).inserted
            else { return }
            let committed = object.committedSnapshot ?? object.storage
            let persisted = try coordinator.values(for: id).map { Self.withTransientDefaults($0, of: object.entity) }
            if let persisted {
                guard !Self.samePersistentValues(committed, persisted, of: object.entity) else { return }
            } else if object.state.isDeleted {
                return   // deleted on both sides: nothing to decide
            }
            conflicts.append(StoreConflict(object: object, committed: committed, persisted: persisted))
        }
        for object in dirtySet.values { try check(object) }
        // Objects back at their committed values left the dirty set, but their logged
        // changes are still saved (they write the committed values back).
        for batch in log.unsaved {
            for operation in batch.operations {
                if case .insert = operation { continue }
                if let object = registeredObject(for: operation.objectID), !object.state.inDirtySet { try check(object) }
            }
        }
        return (conflicts, generation)
    }

    /// The error a save under ``MergePolicy/error`` throws.
    func mergeConflictError(_ conflicts: [StoreConflict]) -> StrataError {
        let reports = conflicts.map { conflict in
            let entity = conflict.object.entity
            return MergeConflict(
                objectID: conflict.object.objectID,
                objectSnapshot: conflict.object.state.isDeleted ? nil : Self.snapshot(conflict.object.storage, of: entity),
                committedSnapshot: Self.snapshot(conflict.committed, of: entity),
                persistedSnapshot: conflict.persisted.map { Self.snapshot($0, of: entity) })
        }
        let ids = conflicts.map(\.object.objectID).sorted()
        let count = ids.count == 1 ? "1 record" : "\(ids.count) records"
        var error = StrataError(
            .mergeConflict,
            "The save would overwrite changes made in the store since this context read \(count): \(reports.prefix(3).map(\.description).joined(separator: "; "))\(ids.count > 3 ? "; …" : ""). Nothing was written; merge the other save or set a merge policy.",
            context: ["objects": ids.map(\.description).joined(separator: " ")])
        error.mergeConflicts = reports
        return error
    }

    // MARK: Resolving conflicts (under the lock; its notices are posted after it)

    /// Brings each conflicting object to what ``mergePolicy`` decides, as a change the
    /// next store write carries: a non-undoable ``ChangeGroupKind/merge`` group.
    ///
    /// Each object first takes the store's values for the properties it did not change
    /// (its committed values become the store's); the policy's choices that differ from
    /// that are then set through the normal paths, so to-one inverses stay consistent.
    func resolve(_ conflicts: [StoreConflict], generation: UInt64) {
        let touched = slotsTouchedByUnsavedUpdates(of: Set(conflicts.map(\.object.objectID)))
        var deletedInStore: Set<ManagedObjectID> = []
        var notice = ObjectChanges()
        let manager = undoManager
        manager?.disableUndoRegistration()
        for conflict in conflicts {
            let object = conflict.object
            guard let persisted = conflict.persisted else {
                deletedInStore.insert(object.objectID)
                continue
            }
            object.loadGeneration = generation
            // The context's delete stands; the record's new values no longer matter.
            guard !object.state.isDeleted else { continue }
            let decided = settle(object, committed: conflict.committed, persisted: persisted,
                                 touched: touched[object.objectID] ?? [])
            for (slot, value, maintainsInverse) in decided {
                if maintainsInverse {
                    try? object.setValue(value, slot: slot)
                } else {
                    setPrimitive(object, slot: slot, value)
                }
            }
            notice.refreshed.insert(object.objectID)
        }
        pendingFlushKind = .merge
        processPendingChanges()
        pendingFlushKind = nil
        try? manager?.enableUndoRegistration()
        if !deletedInStore.isEmpty { mergeChanges(fromContextDidSave: SaveChanges(deleted: deletedInStore)) }
        if !notice.isEmpty { postObjectsDidChange(notice) }
    }

    /// Puts into the object, without logging, what the store will hold once the unsaved
    /// log is applied to the persisted values: its own value for every slot the log's
    /// updates write, the store's for the others, and unordered to-many members merged
    /// (the log holds them as additions and removals). Returns the slots where the policy
    /// decides otherwise, and whether setting them maintains inverses (to-ones do).
    private func settle(_ object: ManagedObject, committed: [PropertyValue], persisted: [PropertyValue],
                        touched: Set<Int>) -> [(slot: Int, value: PropertyValue, maintainsInverse: Bool)] {
        let entity = object.entity
        let current = object.storage
        var settled = current
        var decided: [(slot: Int, value: PropertyValue, maintainsInverse: Bool)] = []
        for slot in 0..<min(entity.slotCount, current.count) where !RowTable.isTransient(slot, of: entity) {
            var isAttribute = true
            if case .relationship(let index) = entity.slotKinds[slot] {
                isAttribute = false
                let relationship = entity.relationships[index]
                if relationship.isToMany {
                    // Merged by membership under every policy; no inverse maintenance: each
                    // member's own record says where it belongs.
                    let merged = Self.mergedMembers(committed: committed[slot], object: current[slot],
                                                    store: persisted[slot], ordered: relationship.isOrdered)
                    if relationship.isOrdered {
                        settled[slot] = touched.contains(slot) ? current[slot] : persisted[slot]
                        if merged != settled[slot] { decided.append((slot, merged, false)) }
                    } else {
                        settled[slot] = merged
                    }
                    continue
                }
            }
            settled[slot] = touched.contains(slot) ? current[slot] : persisted[slot]
            let objectChanged = current[slot] != committed[slot]
            let storeChanged = persisted[slot] != committed[slot]
            let value: PropertyValue = switch mergePolicy {
            case .error, .mergeByPropertyObjectTrump: objectChanged ? current[slot] : persisted[slot]
            case .mergeByPropertyStoreTrump: storeChanged ? persisted[slot] : current[slot]
            case .overwrite: isAttribute || objectChanged ? current[slot] : persisted[slot]
            case .rollback: persisted[slot]
            }
            if value != settled[slot] { decided.append((slot, value, !isAttribute)) }
        }
        object.storage = settled
        var read = persisted
        for slot in 0..<min(read.count, settled.count) where RowTable.isTransient(slot, of: entity) { read[slot] = settled[slot] }
        object.committedSnapshot = read
        if object.isUpdated { noteDirty(object) }
        return decided
    }

    /// The slots each record's unsaved update operations write (every slot for a record
    /// the log inserts).
    private func slotsTouchedByUnsavedUpdates(of ids: Set<ManagedObjectID>) -> [ManagedObjectID: Set<Int>] {
        var touched: [ManagedObjectID: Set<Int>] = [:]
        for batch in log.unsaved {
            for operation in batch.operations where ids.contains(operation.objectID) {
                switch operation {
                case .update(let id, let changes):
                    for change in changes { touched[id, default: []].insert(change.slot) }
                case .insert(let id, let values):
                    touched[id, default: []].formUnion(values.indices)
                case .delete, .relate:
                    break
                }
            }
        }
        return touched
    }

    // MARK: Values

    /// The store's members with the context's additions and removals applied.
    static func mergedMembers(committed: PropertyValue, object: PropertyValue, store: PropertyValue,
                              ordered: Bool) -> PropertyValue {
        let before = OrderedSet(committed.objectIDs)
        let now = OrderedSet(object.objectIDs)
        var members = OrderedSet(store.objectIDs)
        for id in before where !now.contains(id) { members.remove(id) }
        for id in now where !before.contains(id) { members.append(id) }
        if !ordered { members.sort() }
        return .objects(members)
    }

    /// Whether two rows hold the same persistent values (unordered to-many members compared
    /// as sets: the store keeps them sorted, a context in the order they were added).
    static func samePersistentValues(_ a: [PropertyValue], _ b: [PropertyValue], of entity: EntityDescription) -> Bool {
        for slot in 0..<min(entity.slotCount, a.count, b.count) where !RowTable.isTransient(slot, of: entity) {
            if a[slot] == b[slot] { continue }
            if case .relationship(let index) = entity.slotKinds[slot], entity.relationships[index].isToMany,
               !entity.relationships[index].isOrdered, Set(a[slot].objectIDs) == Set(b[slot].objectIDs) {
                continue
            }
            return false
        }
        return true
    }

    /// Persistent values by property name.
    static func snapshot(_ values: [PropertyValue], of entity: EntityDescription) -> [String: PropertyValue] {
        var result: [String: PropertyValue] = [:]
        for slot in 0..<min(entity.slotCount, values.count) where !RowTable.isTransient(slot, of: entity) {
            result[entity.slotNames[slot]] = values[slot]
        }
        return result
    }
}
