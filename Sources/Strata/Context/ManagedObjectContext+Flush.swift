import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Flushes the changes made since the last flush: applies delete rules, coalesces the
    /// changes into one ``ChangeBatch`` appended to the log, registers it with the undo
    /// manager, and posts ObjectsDidChange.
    ///
    /// Runs automatically before save, undo, redo and fetches that include pending changes.
    ///
    /// - Complexity: O(objects changed since the last flush × their changed keys).
    public func processPendingChanges() {
        checkQueue()
        guard !flushSet.isEmpty else { return }
        applyDeleteRules()
        let (operations, released) = flushOperations()
        guard !operations.isEmpty else { return }
        record(operations)
        // The objects that left the changed set are kept until the observers have run: a
        // change reverted within the flush names an object nothing else may hold now.
        withExtendedLifetime(released) {
            postObjectsDidChange(Self.objectChanges(of: operations))
        }
    }

    /// The flush's operations, in the order the objects first changed, and the objects
    /// that left the changed set (no longer held by the context); resets each object's
    /// flush bookkeeping and empties the flush list.
    ///
    /// The list is gone when this returns, before ObjectsDidChange's sets are built: a
    /// million-object insert held its 8 MiB beside them.
    private func flushOperations() -> (operations: [ChangeOperation], released: [ManagedObject]) {
        var operations: [ChangeOperation] = []
        operations.reserveCapacity(flushSet.count)
        var updates = SlotChangesWriter(expected: flushSet.count)
        for object in flushSet.values {
            object.state.inFlushSet = false
            defer {
                object.clearFlushOld(keepingCapacity: true)
                object.state.insertedSinceFlush = false
                object.state.deletedSinceFlush = false
            }
            let id = object.objectID
            if object.state.insertedSinceFlush && object.state.isDeleted {
                // Inserted then deleted within the flush: nothing happened. Never logged,
                // the object is gone for good.
                continue
            }
            if object.state.insertedSinceFlush {
                // The insert holds the texts' values: they start from there, on every replica.
                if !texts.isEmpty { keepTextsForInsert(of: object) }
                operations.append(.insert(id, values: object.storage.array))
                object.state.wasLogged = true
                continue
            }
            if object.state.deletedSinceFlush && object.state.isDeleted {
                var before = object.storage.array
                for (slot, old) in object.flushOld { before[slot] = old }
                operations.append(.delete(id, values: before))
                continue
            }
            Self.appendCoalescedUpdates(of: object, to: &operations, updates: &updates)
        }
        let flushed = flushSet.values
        // Not keeping the capacity: `flushed` shares the buffer, so keeping it allocated a
        // second one as large (8 MiB after a million inserts, held until the next flush).
        flushSet.removeAll()
        // Objects inserted and deleted before any flush are gone for good. Objects left with
        // nothing to save (an insert then a delete both logged, a change set back or reverted
        // by an undo) leave the changed set, so they are no longer held strongly; they stay
        // registered (weakly), so a redo revives the same instance while the app holds it.
        var released: [ManagedObject] = []
        for object in flushed {
            if object.state.isInserted && object.state.isDeleted && !object.state.wasLogged {
                unregister(object)
                released.append(object)
            } else if (object.state.isInserted && object.state.isDeleted) || !object.hasChanges {
                leaveDirtySet(object)
                released.append(object)
            }
        }
        return (operations, released)
    }

    /// ObjectsDidChange's sets for a flush's operations: an insert's object is inserted, a
    /// delete's deleted, an update's or relate's updated. Each set is sized for its own
    /// objects: a bulk insert's flush reserving a million updates beside a million
    /// inserts held 48 MiB for nothing.
    private static func objectChanges(of operations: [ChangeOperation]) -> ObjectChanges {
        var inserting = 0
        var deleting = 0
        for operation in operations {
            switch operation {
            case .insert: inserting += 1
            case .delete: deleting += 1
            case .update, .relate, .splice: continue
            }
        }
        var changes = ObjectChanges()
        changes.inserted.reserveCapacity(inserting)
        changes.deleted.reserveCapacity(deleting)
        changes.updated.reserveCapacity(operations.count - inserting - deleting)
        for operation in operations {
            switch operation {
            case .insert(let id, _): changes.inserted.insert(id)
            case .delete(let id, _): changes.deleted.insert(id)
            case .update(let id, _), .relate(let id, _, _, _), .splice(let id, _, _): changes.updated.insert(id)
            }
        }
        return changes
    }

    /// The update and relate operations for one object's changed slots.
    static func coalescedUpdates(of object: ManagedObject) -> [ChangeOperation] {
        var operations: [ChangeOperation] = []
        var updates = SlotChangesWriter()
        appendCoalescedUpdates(of: object, to: &operations, updates: &updates)
        return operations
    }

    /// Appends the object's update (one for all attribute, to-one and ordered slots) and
    /// relate operations; returns whether it appended any. The update's changes are
    /// written with `updates`.
    @discardableResult
    static func appendCoalescedUpdates(of object: ManagedObject, to operations: inout [ChangeOperation],
                                       updates: inout SlotChangesWriter) -> Bool {
        let entity = object.entity
        if let (slot, old) = object.flushOld.onlyEntry, !entity.isUnorderedToMany(slot: slot), entity.textSlots.isEmpty {
            // One changed slot, not a set: the common case, without the general bookkeeping.
            let new = object.storage[slot]
            if old == new { return false }
            operations.append(.update(object.objectID, changes: updates.write(SlotChange(slot: slot, old: old, new: new))))
            return true
        }
        var slotChanges: [SlotChange] = []
        var relates: [ChangeOperation] = []
        var splices: [ChangeOperation] = []
        for (slot, old) in object.flushOld {
            if entity.isText(slot: slot) {
                // A text's change is its splices, made or derived (docs/TEXT.md).
                if let edit = object.context?.takeTextEdit(of: object, slot: slot, old: old) {
                    splices.append(.splice(object.objectID, slot: slot, edit: edit))
                }
                continue
            }
            let new = object.storage[slot]
            if old == new { continue }  // set back to its old value: no change
            if entity.isUnorderedToMany(slot: slot), case .objects(let before) = old, case .objects(let after) = new {
                let added = after.filter { !before.contains($0) }
                let removed = before.filter { !after.contains($0) }
                if !added.isEmpty || !removed.isEmpty {
                    relates.append(.relate(object.objectID, slot: slot, added: Array(added), removed: Array(removed)))
                }
            } else {
                slotChanges.append(SlotChange(slot: slot, old: old, new: new))
            }
        }
        if !slotChanges.isEmpty { operations.append(.update(object.objectID, changes: updates.write(slotChanges))) }
        if !relates.isEmpty { operations.append(contentsOf: relates) }
        if !splices.isEmpty { operations.append(contentsOf: splices) }
        return !slotChanges.isEmpty || !relates.isEmpty || !splices.isEmpty
    }

    /// Appends a batch to the log and hands it to the undo manager.
    func record(_ operations: [ChangeOperation]) {
        let kind = pendingFlushKind ?? .user
        if let undoManager, undoManager.isUndoRegistrationEnabled, undoManager.acceptsRegistration {
            let group = undoManager.groupForRegistration(kind: kind)
            let batch = log.append(operations, group: group, isUndoable: true)
            undoManager.register(batch)
        } else {
            let group = ChangeGroupInfo(id: coordinator.allocateGroupID(), kind: pendingFlushKind ?? .unregistered)
            log.append(operations, group: group, isUndoable: false)
        }
    }

    /// Runs delete rules for objects deleted since the last flush, until no rule deletes
    /// anything more.
    func applyDeleteRules() {
        var queue = flushSet.values.filter { $0.state.isDeleted && !$0.state.deleteRulesApplied }
        while let object = queue.popLast() {
            object.state.deleteRulesApplied = true
            if object.state.deletedByApply { continue }
            for relationship in object.entity.relationships {
                let destinations = object.storage[relationship.slot].objectIDs
                guard !destinations.isEmpty else { continue }
                switch relationship.deleteRule {
                case .nullify:
                    guard let inverseSlot = relationship.inverseSlot else { continue }
                    for id in destinations {
                        let destination = self.object(with: id)
                        guard (try? materialize(destination)) != nil, !destination.state.isDeleted else { continue }
                        try? detach(object.objectID, from: destination, slot: inverseSlot)
                    }
                case .cascade:
                    for id in destinations {
                        let destination = self.object(with: id)
                        guard (try? materialize(destination)) != nil, !destination.state.isDeleted else { continue }
                        delete(destination)
                        queue.append(destination)
                    }
                case .deny, .noAction:
                    continue
                }
            }
        }
    }
}
