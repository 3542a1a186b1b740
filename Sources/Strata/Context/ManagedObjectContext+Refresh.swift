import Foundation

/// Refresh (docs/SEMANTICS.md §5): turning objects back into faults and reading their values
/// again, keeping or dropping pending changes.
extension ManagedObjectContext {
    /// Refreshes an object, as Core Data's `refresh(_:mergeChanges:)` (docs/SEMANTICS.md §5).
    /// Either way the object turns into a fault: `willTurnIntoFault()` and
    /// `didTurnIntoFault()` are called.
    ///
    /// - `mergeChanges: false`: its pending changes are discarded and it stays a fault;
    ///   the next access reads its values (the row cache, as ``stalenessInterval`` allows,
    ///   or the store) and calls `awakeFromFetch()`.
    /// - `mergeChanges: true` and no pending changes: the same.
    /// - `mergeChanges: true` with pending changes: its persistent values are read again at
    ///   once, `awakeFromFetch()` runs, and then its transient values and its pending
    ///   changes are put back on top, so a transient cached from persistent values (the
    ///   guide's `fullName`) can go stale; a flag cleared in `didTurnIntoFault()` tells an
    ///   accessor to compute it again. A text (``AttributeDescription/isText``) with pending
    ///   changes is not put back as it was: it takes in what others spliced into the store's
    ///   text, keeping this context's unsaved splices, so it shows both at once and its undo
    ///   still reverts only this context's edits (docs/TEXT.md, "Merging before a save").
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        guard object.context === self, !object.state.isInserted else { return }
        fetchedPropertyCache[ObjectIdentifier(object)] = nil
        guard !object.state.isFault else { return }
        if !mergeChanges || !object.hasChanges {
            object.willTurnIntoFault()
            logDiscardOfFlushedChanges(object)
            object.storage = []
            object.committedSnapshot = nil
            object.clearFlushOld()
            forgetTexts(of: object.objectID)
            object.state.isFault = true
            object.state.isDeleted = false
            object.state.inFlushSet = false
            flushSet[ObjectIdentifier(object)] = nil
            dirtySet.remove(object)
            object.didTurnIntoFault()
            return
        }
        guard let (stored, generation) = try? sourceRow(for: object.objectID)
        else { return }
        object.willTurnIntoFault()
        object.didTurnIntoFault()
        object.loadGeneration = generation
        #if STRATA_INVARIANTS
        mergedOverPendingChanges = true
        #endif
        let pending = object.changedValues()
        // A text without pending changes is read again with what others spliced into it.
        for slot in object.entity.textSlots where pending[object.entity.slotNames[slot]] == nil {
            forgetText(TextKey(id: object.objectID, slot: slot))
        }
        // A text with pending changes takes in what others spliced into it, keeping them
        // (docs/TEXT.md, "Merging before a save"); read while the slots hold them.
        let mergedTexts = object.entity.textSlots.isEmpty ? [:] : mergeStoredTexts(into: object, pending: pending)
        let transients = object.entity.attributes.filter(\.isTransient).map { ($0.slot, object.storage[$0.slot]) }
        object.storage = ObjectValues(Self.withTransientDefaults(stored, of: object.entity))
        let reloaded = object.storage.array
        let wasTracking = object.committedOld != nil
        if wasTracking { object.committedOld = FirstValues() }
        awakeFromFetchUntracked(object)
        for (slot, value) in transients { object.storage[slot] = value }
        for (key, value) in pending {
            if let slot = object.entity.slot(forKey: key), !RowTable.isTransient(slot, of: object.entity) {
                object.storage[slot] = mergedTexts[slot].map(PropertyValue.string) ?? value
            }
        }
        // The committed values are the reloaded ones; the pending changes sit on top.
        if wasTracking { object.committedSnapshot = reloaded }
    }

    /// Refreshes every registered object with `mergeChanges: true`, as Core Data's
    /// `refreshAllObjects()`: objects without pending changes turn into faults (and read
    /// their values again when next used); objects with pending changes keep them on top of
    /// the values read again. Inserted objects are left alone.
    ///
    /// ```swift
    /// context.refreshAllObjects()   // drop cached values, keep the user's edits
    /// ```
    public func refreshAllObjects() {
        checkQueue()
        for object in registeredObjects where !object.state.isInvalid {
            refresh(object, mergeChanges: true)
        }
    }

    /// Logs the way back from an object's flushed, unsaved updates (or delete) to its
    /// committed values, as a change undo does not see, so that a save does not write what a
    /// refresh discarded. Unflushed changes need nothing: they were never logged.
    private func logDiscardOfFlushedChanges(_ object: ManagedObject) {
        if object.state.isDeleted && !object.state.deletedSinceFlush {
            // The delete was logged: log the record back, as it was at the last save.
            guard object.state.existsInStore else { return }
            let values = object.committedSnapshot ?? object.storage.array
            log.append([.insert(object.objectID, values: values)],
                       group: ChangeGroupInfo(id: coordinator.allocateGroupID(), kind: .unregistered), isUndoable: false)
            return
        }
        guard let committed = object.committedSnapshot else { return }
        var flushed = object.storage
        for (slot, old) in object.flushOld { flushed[slot] = old }
        guard flushed != committed else { return }
        object.flushOld = FirstValues()
        for slot in committed.indices where flushed[slot] != committed[slot] { object.flushOld[slot] = flushed[slot] }
        object.storage = ObjectValues(committed)
        let operations = Self.coalescedUpdates(of: object)
        guard !operations.isEmpty else { return }
        log.append(operations, group: ChangeGroupInfo(id: coordinator.allocateGroupID(), kind: .unregistered), isUndoable: false)
    }
}
