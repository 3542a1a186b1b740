import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Puts an object in the changed-since-flush and changed-since-save sets.
    func noteChanged(_ object: ManagedObject) {
        if !object.state.inFlushSet {
            object.state.inFlushSet = true
            flushSet[ObjectIdentifier(object)] = object
            // A main-queue turn that changed something is an event (one load and a branch
            // for other contexts, once per object per flush).
            if endsMainTurns, eventDepth == 0, !turnEndScheduled { scheduleTurnEnd() }
        }
        noteDirty(object)
    }

    /// Puts an object in the changed-since-save set (held strongly until save).
    func noteDirty(_ object: ManagedObject) {
        dirtySet.insert(object)
    }

    /// Takes an object left with nothing to save out of the changed-since-save set (it stays
    /// registered, weakly) and forgets its committed values.
    func leaveDirtySet(_ object: ManagedObject) {
        if !object.state.isInserted { object.committedOld = nil }
        dirtySet.remove(object)
    }

    /// Records the old value of a slot before it changes: the first old value per flush
    /// and the committed values at the first change after a save.
    @inline(__always)
    func willChange(_ object: ManagedObject, slot: Int) {
        object.noteCommittedValue(slot: slot)
        if !object.state.insertedSinceFlush { object.recordFlushOld(slot: slot) }
        noteChanged(object)
    }

    /// Sets a slot without inverse maintenance, recording the change.
    func setPrimitive(_ object: ManagedObject, slot: Int, _ value: PropertyValue) {
        if object.storage[slot] == value { return }
        willChange(object, slot: slot)
        object.storage[slot] = value
    }

    /// Loads a fault's values from the store: with the rest of its batch when a fetch
    /// with ``FetchRequest/fetchBatchSize`` left it in one (``FaultBatch``), else alone.
    /// - Throws: `.objectNotFound` when the record is gone.
    func fireFault(_ object: ManagedObject) throws {
        guard object.state.isFault else { return }
        if object.state.inFaultBatch {
            try fireFaultBatch(of: object)
            if !object.state.isFault { return }
        }
        guard let (values, generation) = try sourceRow(for: object.objectID) else {
            throw StrataError(.objectNotFound, "The record \(object.objectID) does not exist in its store.",
                              context: .init { $0.object = object.objectID.description })
        }
        fill(object, with: values, generation: generation)
    }

    /// Calls `awakeFromFetch()` with change tracking off for the object, as Core Data does,
    /// so values it derives (a cached transient) are not changes to save or undo.
    func awakeFromFetchUntracked(_ object: ManagedObject) {
        let wasInFlushSet = object.state.inFlushSet
        let wasDirty = object.state.inDirtySet
        // Read without allocating records for an object that has none (every fetched one).
        let oldFlush = object.changeRecords?.flushOld
        let oldSnapshot = object.committedSnapshot
        object.awakeFromFetch()
        let key = ObjectIdentifier(object)
        if !wasInFlushSet, object.state.inFlushSet {
            object.state.inFlushSet = false
            flushSet[key] = nil
        }
        if !wasDirty { dirtySet.remove(object) }
        if let oldFlush { object.flushOld = oldFlush } else { object.clearFlushOld() }
        object.committedSnapshot = oldSnapshot
    }

    static func withTransientDefaults(_ values: [PropertyValue], of entity: EntityDescription) -> [PropertyValue] {
        var result = values
        if result.count < entity.slotCount {
            result.append(contentsOf: repeatElement(.null, count: entity.slotCount - result.count))
        }
        if entity.initialValues.count == entity.slotCount {
            // Laid out by the model: the transient defaults are listed (no attribute copied);
            // a row already holding them stays the buffer it shares with the store's.
            for (slot, value) in entity.transientDefaults where result[slot] != value { result[slot] = value }
            return result
        }
        for attribute in entity.attributes where attribute.isTransient {
            result[attribute.slot] = attribute.defaultValue
        }
        return result
    }

    /// Fires the fault, turning a vanished record into a clear error.
    func materialize(_ object: ManagedObject) throws {
        if object.state.isInvalid {
            throw StrataError(.invalidObject, "\(object.objectID) is no longer valid in its context.",
                              context: .init { $0.object = object.objectID.description })
        }
        if object.state.isFault { try fireFault(object) }
    }

    // MARK: Relationships with inverse maintenance

    /// Sets a to-one relationship, keeping the inverse consistent at once.
    func setToOne(_ object: ManagedObject, _ relationship: RelationshipDescription, to newID: ManagedObjectID?) throws {
        let old = object.storage[relationship.slot]
        let oldID: ManagedObjectID? = if case .object(let id) = old { id } else { nil }
        if oldID == newID { return }
        setPrimitive(object, slot: relationship.slot, newID.map(PropertyValue.object) ?? .null)
        guard let inverseSlot = relationship.inverseSlot else { return }
        if let oldID { try unlinkInverse(of: object, from: oldID, inverseSlot: inverseSlot) }
        if let newID { try linkInverse(of: object, to: newID, inverseSlot: inverseSlot) }
    }

    /// Adds one destination to a to-many, keeping the inverse consistent.
    func addToMany(_ object: ManagedObject, _ relationship: RelationshipDescription, _ member: ManagedObjectID) throws {
        // `holds` rather than binding the members here: a binding alive during the edit
        // made each added member copy the whole set (quadratic imports).
        guard case .objects = object.storage[relationship.slot], !object.storage[relationship.slot].holds(member) else { return }
        willChange(object, slot: relationship.slot)
        object.mutateMembers(slot: relationship.slot) { $0.append(member) }
        if let inverseSlot = relationship.inverseSlot {
            try linkInverse(of: object, to: member, inverseSlot: inverseSlot)
        }
    }

    /// Removes one destination from a to-many, keeping the inverse consistent.
    func removeFromToMany(_ object: ManagedObject, _ relationship: RelationshipDescription, _ member: ManagedObjectID) throws {
        guard case .objects = object.storage[relationship.slot], object.storage[relationship.slot].holds(member) else { return }
        willChange(object, slot: relationship.slot)
        object.mutateMembers(slot: relationship.slot) { $0.remove(member) }
        if let inverseSlot = relationship.inverseSlot {
            try unlinkInverse(of: object, from: member, inverseSlot: inverseSlot)
        }
    }

    /// Replaces a to-many's members, as the sum of single additions and removals.
    func setToMany(_ object: ManagedObject, _ relationship: RelationshipDescription, _ newMembers: OrderedSet<ManagedObjectID>) throws {
        guard case .objects(let current) = object.storage[relationship.slot] else { return }
        for member in current where !newMembers.contains(member) {
            try removeFromToMany(object, relationship, member)
        }
        for member in newMembers where !current.contains(member) {
            try addToMany(object, relationship, member)
        }
        if relationship.isOrdered, case .objects(let now) = object.storage[relationship.slot], now != newMembers {
            setPrimitive(object, slot: relationship.slot, .objects(newMembers))
        }
    }

    /// Makes `destination.inverse` include `source`, stealing it from a previous owner
    /// when the inverse is to-one.
    private func linkInverse(of source: ManagedObject, to destinationID: ManagedObjectID, inverseSlot: Int) throws {
        let destination = object(with: destinationID)
        try materialize(destination)
        guard case .relationship(let index) = destination.entity.slotKinds[inverseSlot] else { return }
        let inverse = destination.entity.relationships[index]
        if inverse.isToMany {
            guard case .objects = destination.storage[inverseSlot], !destination.storage[inverseSlot].holds(source.objectID) else { return }
            willChange(destination, slot: inverseSlot)
            destination.mutateMembers(slot: inverseSlot) { $0.append(source.objectID) }
        } else {
            if case .object(let previousOwnerID) = destination.storage[inverseSlot], previousOwnerID != source.objectID {
                // One-to-one: the previous owner loses the destination.
                let previousOwner = object(with: previousOwnerID)
                try materialize(previousOwner)
                if let backSlot = inverse.inverseSlot {
                    try detach(destinationID, from: previousOwner, slot: backSlot)
                }
            }
            setPrimitive(destination, slot: inverseSlot, .object(source.objectID))
        }
    }

    /// Makes `destination.inverse` no longer include `source`.
    private func unlinkInverse(of source: ManagedObject, from destinationID: ManagedObjectID, inverseSlot: Int) throws {
        let destination = object(with: destinationID)
        try materialize(destination)
        try detach(source.objectID, from: destination, slot: inverseSlot)
    }

    /// Removes `member` from `owner`'s relationship slot without touching inverses.
    func detach(_ member: ManagedObjectID, from owner: ManagedObject, slot: Int) throws {
        guard owner.storage[slot].holds(member) else { return }
        if case .object = owner.storage[slot] {
            setPrimitive(owner, slot: slot, .null)
        } else {
            willChange(owner, slot: slot)
            owner.mutateMembers(slot: slot) { $0.remove(member) }
        }
    }
}
