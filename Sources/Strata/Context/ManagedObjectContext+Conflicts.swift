import Foundation
import OrderedCollections

/// A record a save would write that changed in the store since the context read it.
struct StoreConflict {
    let objectID: ManagedObjectID
    /// The registered object; nil for a record whose object was released after its changes
    /// were undone (its logged operations would still write it).
    let object: ManagedObject?
    /// What the context read (its committed values).
    let committed: [PropertyValue]
    /// The record in the store now; nil when it was deleted there.
    let persisted: [PropertyValue]?
}

extension ManagedObjectContext {
    // MARK: Finding conflicts (under the coordinator's save lock)

    /// Returns every object this save writes whose record changed in the store after the
    /// object's values were read, with the generation the comparison saw. Other writers'
    /// changes count: the stores' writes caught up with them as they began, and the
    /// coordinator noted them changed (`PersistentStoreCoordinator.withSaveLock`).
    ///
    /// Only records changed since an object's ``ManagedObject/loadGeneration`` are read
    /// back; among those, a record is in conflict when a persistent value differs from the
    /// context's committed one (a record changed and changed back is not).
    func findConflicts() throws -> (conflicts: [StoreConflict], generation: UInt64) {
        let generation = coordinator.generation
        var seen: Set<ManagedObjectID> = []
        var conflicts: [StoreConflict] = []
        func check(_ object: ManagedObject) throws {
            let id = object.objectID
            guard !object.state.isInserted, object.state.existsInStore, !object.state.isFault, !object.state.isInvalid,
                  !id.isTemporaryID, coordinator.hasChanged(id, since: object.loadGeneration),
                  seen.insert(id).inserted
            else { return }
            let committed = object.committedSnapshot ?? object.storage.array
            let persisted = try coordinator.values(for: id).map { Self.withTransientDefaults($0, of: object.entity) }
            if let persisted {
                guard !Self.samePersistentValues(committed, persisted, of: object.entity) else { return }
            } else if object.state.isDeleted {
                return   // deleted on both sides: nothing to decide
            }
            conflicts.append(StoreConflict(objectID: id, object: object, committed: committed, persisted: persisted))
        }
        for object in dirtySet.values { try check(object) }
        // Objects back at their committed values left the dirty set, but their logged
        // changes are still saved: they write the committed values back. Their objects may
        // even be gone (released once clean): then the log itself is compared with the store.
        var released: OrderedSet<ManagedObjectID> = []
        for batch in log.unsaved {
            for operation in batch.operations {
                if case .insert = operation { continue }   // a bulk import's save looks no further
                let id = operation.objectID
                if let object = registeredObject(for: id) {
                    if !object.state.inDirtySet { try check(object) }
                } else if !id.isTemporaryID {
                    released.append(id)
                }
            }
        }
        if !released.isEmpty {
            var inserted: Set<ManagedObjectID> = []
            for batch in log.unsaved {
                for case .insert(let id, _) in batch.operations where released.contains(id) { inserted.insert(id) }
            }
            let outcome = StoreOutcome(context: self)
            for id in released where !inserted.contains(id) && coordinator.hasChanged(id, since: 0) && seen.insert(id).inserted {
                guard let persisted = try coordinator.values(for: id).map({ Self.withTransientDefaults($0, of: id.entity) }),
                      let written = try outcome.row(id), !Self.samePersistentValues(written, persisted, of: id.entity)
                else { continue }
                // The object was clean when released: what its log writes is what it had read.
                conflicts.append(StoreConflict(objectID: id, object: nil, committed: written, persisted: persisted))
            }
        }
        return (conflicts, generation)
    }

    /// The error a save under ``MergePolicy/error`` throws.
    func mergeConflictError(_ conflicts: [StoreConflict]) -> StrataError {
        let reports = conflicts.map { conflict in
            let entity = conflict.objectID.entity
            let now = conflict.object.map { $0.state.isDeleted ? nil : Self.snapshot($0.storage.array, of: entity) }
                ?? Self.snapshot(conflict.committed, of: entity)
            return MergeConflict(
                objectID: conflict.objectID,
                objectSnapshot: now,
                committedSnapshot: Self.snapshot(conflict.committed, of: entity),
                persistedSnapshot: conflict.persisted.map { Self.snapshot($0, of: entity) })
        }
        let ids = conflicts.map(\.objectID).sorted()
        let count = ids.count == 1 ? "1 record" : "\(ids.count) records"
        var error = StrataError(
            .mergeConflict,
            "The save would overwrite changes made in the store since this context read \(count): \(reports.prefix(3).map(\.description).joined(separator: "; "))\(ids.count > 3 ? "; …" : ""). Nothing was written; merge the other save or set a merge policy.",
            context: .init { $0.objects = ids.map(\.description) })
        error.mergeConflicts = reports
        return error
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
            if !sameStoredValue(a[slot], b[slot], slot: slot, of: entity) { return false }
        }
        return true
    }

    /// Whether two values of one slot are the same once stored.
    /// Texts never conflict: their splices merge character by character (docs/TEXT.md).
    static func sameStoredValue(_ a: PropertyValue, _ b: PropertyValue, slot: Int, of entity: EntityDescription) -> Bool {
        if a == b || entity.isText(slot: slot) { return true }
        return entity.isUnorderedToMany(slot: slot) && Set(a.objectIDs) == Set(b.objectIDs)
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
