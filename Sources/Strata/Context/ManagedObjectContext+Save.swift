import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Saves the changes since the last save: flushes, validates every changed object
    /// (one error listing every problem), finds conflicts with changes saved since the
    /// context read its objects and resolves them by ``mergePolicy``, gives new objects
    /// permanent IDs, hands the log's unsaved groups to the stores in one atomic step each,
    /// and posts DidSave.
    ///
    /// A failed save writes nothing. It leaves the context as it was — new objects keep
    /// temporary IDs — except that a merge policy's resolution of conflicts stays merged in
    /// (as after ``mergeChanges(fromContextDidSave:)-(SaveChanges)``).
    ///
    /// - Throws: the first error a non-throwing typed accessor met since the last save
    ///   (``typedAccessErrors``), saving nothing; `.validation` listing each object, key and reason; `.mergeConflict` under
    ///   ``MergePolicy/error`` with ``StrataStorage/StrataError/mergeConflicts``; `.constraintConflict`
    ///   under ``MergePolicy/error`` with ``StrataStorage/StrataError/constraintConflicts``; store errors.
    /// - Complexity: O(changes since the last save), not O(document).
    public func save() throws {
        enter()
        try throwTypedAccessErrors()
        // Derived values go into the flush of the changes they follow (so one undo group
        // holds both), after delete rules (a nullified to-many counts one fewer).
        // A child's save hands its changes to the parent, whose save to the store computes them.
        let derives = parent == nil && !model.derivationPlan.isEmpty
        let derivedNow = Date()  // one now() for the save, however often its values are computed
        if derives {
            applyDeleteRules()
            try computeDerivedValues(now: derivedNow)
        }
        processPendingChanges()
        let changed = Array(dirtySet.values)
        for object in changed where object.hasChanges { object.willSave() }
        let flushed = log.unsaved.count
        processPendingChanges()
        if derives, log.unsaved.count != flushed {
            // willSave changed something the values may read.
            try computeDerivedValues(now: derivedNow)
            processPendingChanges()
        }
        guard !log.unsaved.isEmpty || dirtySet.values.contains(where: \.hasChanges) else {
            finishSave(assigned: StoreSaveResult(), changes: SaveChanges(), generation: nil)
            advancePinnedGeneration()
            return
        }
        try validateForSave()
        if parent != nil {
            try saveIntoParent()
            return
        }
        try crossStoreCheck()

        // Conflicts are found, resolved and the log written under one hold of the save
        // lock and of every store's write lock, which caught up with other writers as it
        // began (`PersistentStoreCoordinator.withSaveLock`): no other save — of another
        // context or another process — comes between them, so the save never races and
        // every save makes progress. Resolving flushes changes, whose ObjectsDidChange
        // waits until the lock is released (an observer may save).
        deferredChangeNotices = []
        var keys = SaveKeyAssignment()
        let outcome = Result {
            try coordinator.withSaveLock { try saveHoldingTheWrite(derives: derives, derivedNow: derivedNow, keys: &keys) }
        }
        // The write rolled back, and its key reservation with it: the new objects are
        // temporary again (docs/ARCHITECTURE.md, "When new objects get their keys").
        if case .failure = outcome { takeBackPermanentIDs(keys) }
        let notices = deferredChangeNotices ?? []
        deferredChangeNotices = nil
        for notice in notices { postObjectsDidChange(notice) }
        let (changes, generation, assigned) = try outcome.get()
        // Children hear of the new IDs only now that they are durable.
        announcePermanentIDs(keys.forChildren)
        // A pinned context sees its own save (as Core Data's): the newest generation holds
        // it. Moved before the objects are settled, which may read.
        advancePinnedGeneration()
        let settled = finishSave(assigned: assigned, changes: changes, generation: generation, collectingInsertions: true)
        coordinator.announce(settled, from: self)
        announceToChildren(settled, from: nil)
    }

    /// Under the save lock: finds conflicts, resolves them by ``mergePolicy`` (or throws),
    /// enforces uniqueness, gives new records their keys (`keys`: what the caller takes
    /// back if the write fails) and writes.
    private func saveHoldingTheWrite(derives: Bool, derivedNow: Date, keys: inout SaveKeyAssignment)
        throws -> (changes: SaveChanges, generation: UInt64, assigned: StoreSaveResult)
    {
        var (conflicts, generation) = try findConflicts()
        if derives {
            conflicts = try settleDerivedValues(conflicts, generation: generation, now: derivedNow)
        }
        if !conflicts.isEmpty {
            guard mergePolicy != .error else { throw mergeConflictError(conflicts) }
            try resolve(conflicts, generation: generation)
            try validateForSave()
        }
        if coordinator.model.hasUniquenessConstraints {
            try enforceUniqueness()
            try validateForSave()
        }
        // Read while new records still have temporary IDs, which it leaves out.
        let updatedWithoutObject = recordsChangedWithoutChangedObject()
        // Last before the write, so that nothing after it but the write can fail.
        keys = try assignPermanentIDsInWrite()
        var assigned = StoreSaveResult()
        try writeUnsavedGroups(into: &assigned)
        // The inserted IDs are collected once the whole save has committed and the log and
        // the changed-object set let go of theirs (`finishSave`): a bulk save's logged
        // inserts and the set of its inserted IDs were the two largest things alive at W1's
        // peak (docs/ARCHITECTURE.md, "Save"). The log stays until then: the save lock's
        // transaction commits after this returns, and a failed save renames it back.
        let changes = savedUpdatesAndDeletions(updatedWithoutObject: updatedWithoutObject)
        return (changes, coordinator.noteChanged(changes.updated.union(changes.deleted)), assigned)
    }

    /// Hands the log's unsaved groups to their stores, one request each, inside the write
    /// the save holds (a store that can write there without taking its lock again does:
    /// ``HeldWriteSaving``); the groups are released when it returns.
    private func writeUnsavedGroups(into assigned: inout StoreSaveResult) throws {
        let timestamp = Date()
        var groups = log.unsavedGroups()
        // Each group's persistent metadata goes with its changes (docs/TEXT.md, "Selections
        // that survive reopening"; docs/FORMAT.md §22).
        if let metadata = undoManager?.persistentMetadataByGroup(), !metadata.isEmpty {
            for index in groups.indices { groups[index].metadata = metadata[groups[index].id] }
        }
        for (store, storeGroups) in try routeByStore(groups) {
            // A group saved into an earlier store keeps the id that store gave it.
            let request = StoreSaveRequest(groups: storeGroups.map { assigned.renamingGroups(in: $0) }, timestamp: timestamp,
                                           author: transactionAuthor, contextName: name)
            if let held = store as? any HeldWriteSaving {
                assigned.merge(try held.saveInHeldWrite(request))
            } else {
                assigned.merge(try store.save(request))
            }
        }
    }

    /// Records the save changed without a changed object here: a to-many of a fault the
    /// inverse of a new relationship reached, a change made and undone across flushes.
    /// The store changed them all, and other contexts must hear so — else one that
    /// deletes such a department never learns a new employee points at it. Read before new
    /// records get their keys: their temporary IDs are left out (they are inserts).
    private func recordsChangedWithoutChangedObject() -> Set<ManagedObjectID> {
        var result = Set<ManagedObjectID>()
        for batch in log.unsaved {
            for operation in batch.operations {
                switch operation {
                case .update(let id, _), .relate(let id, _, _, _), .splice(let id, _, _):
                    if !id.isTemporaryID { result.insert(id) }
                case .insert, .delete:
                    continue
                }
            }
        }
        return result
    }

    /// What this save updated and deleted, by permanent ID (its inserts: ``savedInsertions(of:)``).
    private func savedUpdatesAndDeletions(updatedWithoutObject: Set<ManagedObjectID>) -> SaveChanges {
        var changes = SaveChanges()
        for object in dirtySet.values {
            let id = object.objectID
            if object.state.isDeleted {
                if object.state.existsInStore { changes.deleted.insert(id) }
            } else if !object.state.isInserted, object.isUpdated {
                changes.updated.insert(id)
            }
        }
        for id in updatedWithoutObject where !changes.deleted.contains(id) { changes.updated.insert(id) }
        return changes
    }

    /// What this save inserted, by permanent ID: of the objects it saved, those inserted.
    private static func savedInsertions(of saved: [ManagedObject]) -> Set<ManagedObjectID> {
        let isSavedInsert = { (object: ManagedObject) in object.state.isInserted && !object.state.isDeleted }
        var inserted = Set<ManagedObjectID>()
        // Sized first: growing a set of a million IDs keeps the old table beside the new.
        inserted.reserveCapacity(saved.reduce(0) { $0 + (isSavedInsert($1) ? 1 : 0) })
        for object in saved where isSavedInsert(object) { inserted.insert(object.objectID) }
        return inserted
    }

    /// Settles the saved objects and posts DidSave; returns the changes posted (with the
    /// inserted IDs when `collectingInsertions`: a save to the store collects them here,
    /// once the log and the changed-object set have let go of theirs).
    @discardableResult
    func finishSave(assigned: StoreSaveResult, changes: SaveChanges, generation: UInt64?, collectingInsertions: Bool = false) -> SaveChanges {
        var changes = changes
        // The unsaved log goes first (its IDs are permanent already): its inserts share the
        // new objects' value buffers, which any change to a row while it held them copied
        // (a million rows at once at the end of a bulk save).
        log.clearUnsaved()
        if !assigned.groupIDs.isEmpty { undoManager?.remapGroupIDs(assigned.groupIDs) }
        let saved = Array(dirtySet.values)
        // Emptied first (which clears each object's flags): unregistering each deleted
        // object from it one by one would drop entries as it goes.
        dirtySet.removeAll()
        if collectingInsertions { changes.inserted = Self.savedInsertions(of: saved) }
        for object in saved {
            object.committedSnapshot = nil
            if let generation { object.loadGeneration = generation }
            if object.state.isDeleted {
                unregister(object)
            } else {
                object.state.isInserted = false
                object.state.existsInStore = true
                if !assigned.savedRows.isEmpty { shareStoredRow(of: object, assigned.savedRows) }
                if !texts.isEmpty, !object.entity.textSlots.isEmpty { adoptStoredTexts(of: object) }
            }
        }
        #if STRATA_INVARIANTS
        // Before `didSave`, which may change objects again (and leave them to flush).
        checkGraphInvariants(of: saved)
        #endif
        for object in saved where !object.state.isInvalid || object.state.isDeleted { object.didSave() }
        if !changes.isEmpty { postDidSave(changes) }
        return changes
    }

    /// Takes the row the store keeps for a saved object as the object's values when they
    /// are equal, so that the two share one buffer until either changes (a bulk save no
    /// longer leaves two copies of every row: the object's and the document overlay's).
    /// Rows holding to-many members are left alone: the next member added would copy the
    /// whole shared set instead of changing the object's own in place.
    private func shareStoredRow(of object: ManagedObject, _ rows: RecordRows) {
        guard let row = rows[object.objectID], row.count == object.storage.count,
              !row.contains(where: { if case .objects(let members) = $0 { !members.isEmpty } else { false } }),
              row == object.storage else { return }
        object.storage = ObjectValues(row)
    }

    private func obtainPermanentIDs(for ids: OrderedSet<ManagedObjectID>) throws -> [ManagedObjectID: ManagedObjectID] {
        var byRoot: [ObjectIdentifier: [ManagedObjectID]] = [:]
        for id in ids { byRoot[ObjectIdentifier(id.entity.rootEntity), default: []].append(id) }
        var assigned: [ManagedObjectID: ManagedObjectID] = [:]
        assigned.reserveCapacity(ids.count)
        for (_, group) in byRoot.sorted(by: { $0.value[0].entity.name < $1.value[0].entity.name }) {
            let store = try coordinator.store(for: group[0].entity)
            let keys = try store.allocatePrimaryKeys(for: group[0].entity, count: group.count)
            for (id, key) in zip(group, keys) {
                assigned[id] = store.objectID(for: id.entity, primaryKey: key)
            }
        }
        return assigned
    }

    /// Obtains permanent IDs for objects now, before a save (Core Data's
    /// `obtainPermanentIDs(for:)`). In a child context the records are renamed in every
    /// ancestor as well, and every other context of the chain takes the new IDs at its next
    /// operation.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        let ids = OrderedSet(objects.map(\.objectID).filter(\.isTemporaryID))
        guard !ids.isEmpty else { return }
        let assigned = try obtainPermanentIDs(for: ids)
        adoptPermanentIDs(assigned)
        // A child's objects may already be in its ancestors under their temporary IDs.
        var root = self
        while let up = root.parent {
            up.onQueue { up.renameRecords(assigned) }
            root = up
        }
        root.announcePermanentIDs(assigned)
    }

    /// Refuses a save that would leave an object related to an object of another store
    /// (judged on the final values, not on intermediate states in the log).
    private func crossStoreCheck() throws {
        guard coordinator.persistentStores.count > 1 else { return }
        for object in dirtySet.values where !object.state.isDeleted && !object.state.isFault {
            let home = try coordinator.store(for: object.entity)
            for relationship in object.entity.relationships where !relationship.isTransient {
                for target in object.storage[relationship.slot].objectIDs {
                    guard try coordinator.store(for: target.entity) !== home else { continue }
                    throw StrataError(
                        .crossStoreRelationship,
                        "\(object.entity.name) \(object.objectID) is related to \(target.entity.name) \(target) in another store; relationships must not cross stores.",
                        context: .init { $0.key = relationship.name; $0.object = object.objectID.description })
                }
            }
        }
    }

    /// Splits the groups by the store each operation's record belongs to. A permanent ID
    /// names its store; a temporary one (none: the save gave every record its key) goes to
    /// its entity's store, which refuses it.
    /// - Throws: `.noStore` when no store serves the entity of a new object.
    private func routeByStore(_ groups: [SegmentGroup]) throws -> [(any PersistentStore, [SegmentGroup])] {
        let stores = coordinator.persistentStores
        if stores.count == 1, stores[0].configurationName == nil { return [(stores[0], groups)] }
        var storeByEntity: [ObjectIdentifier: Int] = [:]
        func position(of id: ManagedObjectID) throws -> Int? {
            guard id.isTemporaryID else { return stores.firstIndex { $0.tag == id.storeTag } }
            if let known = storeByEntity[ObjectIdentifier(id.entity)] { return known }
            let store = try coordinator.store(for: id.entity)
            let found = stores.firstIndex { $0 === store }
            storeByEntity[ObjectIdentifier(id.entity)] = found
            return found
        }
        var routed = Array(repeating: [SegmentGroup](), count: stores.count)
        for group in groups {
            var parts = Array(repeating: [ChangeOperation](), count: stores.count)
            for operation in group.operations {
                guard let index = try position(of: operation.objectID) else { continue }
                parts[index].append(operation)
            }
            for (index, operations) in parts.enumerated() where !operations.isEmpty {
                var copy = group
                copy.operations = operations
                routed[index].append(copy)
            }
        }
        return zip(stores, routed).filter { !$0.1.isEmpty }
    }

    // MARK: Rollback, reset, refresh

    /// Discards every change since the last save, including changes made with undo
    /// registration disabled, and clears the undo stacks.
    ///
    /// - Complexity: O(operations since the last save).
    public func rollback() {
        checkQueue()
        let manager = undoManager
        manager?.disableUndoRegistration()
        processPendingChanges()
        try? manager?.enableUndoRegistration()
        let unsaved = log.unsaved
        undoManager = nil
        // Texts are not walked back splice by splice: each is forgotten below and its object
        // takes its committed values (a text changed since the save is in the dirty set with
        // them; one that is not shows them already), where undoing every unsaved splice cost
        // as much as typing and undoing them had (docs/TEXT.md, "In a context").
        try? applyInverse(of: unsaved, skippingTexts: true)
        // The texts' next edits start from the store's characters: the ones typed here
        // since the save were never written.
        texts.removeAll()
        flushSet.removeAll()
        let dirty = Array(dirtySet.values)
        dirtySet.removeAll()  // first, as in finishSave
        for object in dirty {
            object.state.inFlushSet = false
            object.clearFlushOld()
            object.state.insertedSinceFlush = false
            object.state.deletedSinceFlush = false
            if object.state.isInserted {
                unregister(object)
            } else {
                if let committed = object.committedSnapshot { object.storage = ObjectValues(committed) }
                object.committedSnapshot = nil
                object.state.isDeleted = false
            }
        }
        log.clearUnsaved()
        undoManager = manager
        manager?.removeAllActions()
    }

    /// Forgets every registered object (they become invalid) and clears the undo stacks.
    public func reset() {
        checkQueue()
        advancePinnedGeneration()
        for entry in registry.values { entry.object.map(invalidate) }
        registry.removeAll()
        flushSet.removeAll()
        dirtySet.removeAll()
        retainAll.removeAll()
        fetchedPropertyCache.removeAll()
        prefetchedObjects.removeAll()
        faultBatches.removeAll()
        texts.removeAll()
        log.clearUnsaved()
        undoManager?.removeAllActions()
    }

    private func invalidate(_ object: ManagedObject) {
        object.state = ObjectState()
        object.state.isInvalid = true
        object.context = nil
    }
}
