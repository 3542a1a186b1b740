import Foundation

extension ManagedObjectContext {
    /// Undoes or redoes one batch of attribute and to-one updates in one pass: each value
    /// goes back, the inverse operation is built directly, and the result is logged and
    /// posted as the flush of the general path would.
    ///
    /// The general path (``applyInverse(of:)`` then ``processPendingChanges()``) records every
    /// change as pending and coalesces it again; for a batch of updates that is already
    /// coalesced and matches the current values, the result is known beforehand: the
    /// inverse of each operation, newest first. This is most undo and redo in an editor.
    ///
    /// - Parameter knownInverse: the operations this replay logs, when the caller knows them
    ///   (the group reverts a batch replayed this way); they are used instead of building
    ///   the inverse again.
    /// - Returns: false, having changed nothing, when the batches are not one batch of updates
    ///   on loaded, distinct objects whose current values are the batch's new values (the
    ///   caller then takes the general path).
    func replayInverseOfUpdates(_ batches: [ChangeBatch], knownInverse: [ChangeOperation]? = nil) -> Bool {
        guard replaysUpdatesDirectly, batches.count == 1, flushSet.isEmpty else { return false }
        let operations = batches[0].operations
        guard let objects = updateTargets(of: operations) else { return false }
        directUpdateReplays += 1

        let reusesInverse = knownInverse?.count == operations.count
        var inverse: [ChangeOperation] = reusesInverse ? knownInverse ?? [] : []
        if !reusesInverse { inverse.reserveCapacity(operations.count) }
        var changes = ObjectChanges()
        changes.updated.reserveCapacity(operations.count)
        for index in operations.indices.reversed() {
            guard case .update(_, let slotChanges) = operations[index] else { continue }
            let object = objects[index]
            for index in slotChanges.indices {
                let slot = slotChanges.slot(at: index)
                object.noteCommittedValue(slot: slot)
                object.storage[slot] = slotChanges.old(at: index)
            }
            let id = object.objectID
            if !reusesInverse { inverse.append(.update(id, changes: slotChanges.inverse)) }
            changes.updated.insert(id)
            // The flush's rule: changed objects stay in the changed set, reverted ones leave it.
            if object.hasChanges { noteDirty(object) } else { leaveDirtySet(object) }
        }
        #if STRATA_INVARIANTS
        if reusesInverse {
            let built = operations.reversed().map(\.inverse)
            precondition(built == inverse, "a known inverse differs from the batch's inverse")
        }
        #endif
        guard !inverse.isEmpty else { return true }
        record(inverse)
        postObjectsDidChange(changes)
        return true
    }

    /// The objects of a batch of updates, one per operation, or nil when the fast path does
    /// not apply: an operation other than an update, an object not registered, a fault, a
    /// deleted object, an object named twice, a change to an unordered to-many, changes out
    /// of slot order, or a current value other than the change's new value.
    private func updateTargets(of operations: [ChangeOperation]) -> [ManagedObject]? {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(operations.count)
        // `inFlushSet` marks objects seen (the flush set is empty here, so the flag is free).
        defer { for object in objects { object.state.inFlushSet = false } }
        for operation in operations {
            guard case .update(let id, let changes) = operation, !changes.isEmpty,
                  let object = registeredObject(for: id),
                  !object.state.isFault, !object.state.isDeleted, !object.state.inFlushSet
            else { return nil }
            // Field by field: `for change in changes` copies each change (two values) per step.
            var previousSlot = -1
            for index in changes.indices {
                let slot = changes.slot(at: index)
                guard slot > previousSlot, slot < object.storage.count, !object.entity.isUnorderedToMany(slot: slot),
                      changes.isChange(at: index), changes.new(at: index, equals: object.storage[slot])
                else { return nil }
                previousSlot = slot
            }
            object.state.inFlushSet = true
            objects.append(object)
        }
        return objects
    }
}
