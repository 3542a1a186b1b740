import Foundation
import OrderedCollections

/// The parent's side of a child's save: conflicts with the parent's own changes, their
/// resolution by the child's merge policy, and the push itself, made through the parent's
/// setters (so inverses stay consistent) as one undo group. See docs/ARCHITECTURE.md,
/// "Child contexts".
extension ManagedObjectContext {
    /// Takes a child's changes in as this context's own pending changes.
    /// - Throws: `.mergeConflict` under ``MergePolicy/error`` when this context changed or
    ///   deleted an object the child changed or deleted since the child read it; nothing
    ///   changes then.
    func takeInChildPush(_ push: ChildPush) throws -> ChildPushOutcome {
        enter()
        processPendingChanges()
        let conflicts = try childConflicts(push)
        if !conflicts.isEmpty, push.policy == .error { throw childMergeConflictError(conflicts, push) }
        let conflicting = Dictionary(conflicts.map { ($0.objectID, $0.persisted) }, uniquingKeysWith: { first, _ in first })

        // One undo step here, named after the child's action (docs/ARCHITECTURE.md).
        let manager = undoManager.flatMap { $0.isUndoRegistrationEnabled ? $0 : nil }
        manager?.beginUndoGrouping()
        var touched: OrderedSet<ManagedObjectID> = []
        do {
            try apply(push, conflicting: conflicting, touched: &touched)
        } catch {
            // Not expected (every reference was checked), but the group must not stay open.
            processPendingChanges()
            try? manager?.endUndoGrouping()
            throw error
        }
        if let manager {
            if !push.actionName.isEmpty { manager.setActionName(push.actionName) }
            try manager.endUndoGrouping()
        }

        // What the child must take back: the loaded objects it touched (records this context
        // does not hold loaded are as the child read them), and the records gone here.
        var outcome = ChildPushOutcome()
        for id in touched {
            if let object = registeredObject(for: id), !object.state.isFault {
                outcome.values[id] = object.state.isDeleted ? .some(nil) : .some(object.storage.array)
            }
        }
        for (id, persisted) in conflicting where persisted == nil { outcome.values[id] = .some(nil) }
        return outcome
    }

    /// Writes the push into this context's objects and flushes.
    private func apply(_ push: ChildPush, conflicting: [ManagedObjectID: [PropertyValue]?],
                       touched: inout OrderedSet<ManagedObjectID>) throws {
        var applied = PushApplication(context: self, policy: push.policy)

        // New objects first, under the child's temporary IDs, so every reference resolves.
        var created: [(ManagedObject, ChildPush.Insert)] = []
        for insert in push.inserts {
            let object = model.objectClass(forEntity: insert.id.entity).init(entity: insert.id.entity, insertInto: nil)
            object.objectID = insert.id
            object.state.isInserted = true
            object.state.insertedSinceFlush = true
            register(object)
            noteChanged(object)
            created.append((object, insert))
            touched.append(insert.id)
        }
        for (object, insert) in created {
            try applied.write(object, committed: object.storage.array, current: insert.values, persisted: nil, conflict: false, touched: &touched)
        }
        for update in push.updates {
            touched.append(update.id)
            let persisted = conflicting[update.id]
            // A record the parent deletes stays deleted: a delete wins under every
            // resolving policy, as a store conflict's does.
            if let persisted, persisted == nil { continue }
            guard let object = applied.live(update.id) else { continue }
            try applied.write(object, committed: update.committed, current: update.current, persisted: object.storage.array,
                              conflict: persisted != nil, touched: &touched)
        }
        for delete in push.deletes {
            touched.append(delete.id)
            guard let object = applied.live(delete.id) else { continue }
            for relationship in object.entity.relationships { touched.append(contentsOf: object.storage[relationship.slot].objectIDs) }
            self.delete(object)
        }
        processPendingChanges()
        try applied.reorder()
    }

    /// The objects the child changed or deleted whose values here differ from what the
    /// child read (or that this context deletes), as store conflicts with this context's
    /// values as the "persisted" side.
    private func childConflicts(_ push: ChildPush) throws -> [StoreConflict] {
        var conflicts: [StoreConflict] = []
        for update in push.updates {
            let entity = update.id.entity
            guard let now = try currentValues(for: update.id) else {
                conflicts.append(StoreConflict(objectID: update.id, object: nil, committed: update.committed, persisted: nil))
                continue
            }
            if !Self.samePersistentValues(update.committed, Self.withTransientDefaults(now, of: entity), of: entity) {
                conflicts.append(StoreConflict(objectID: update.id, object: nil, committed: update.committed, persisted: now))
            }
        }
        for delete in push.deletes {
            let entity = delete.id.entity
            // Deleted on both sides: nothing to decide.
            guard let now = try currentValues(for: delete.id) else { continue }
            if !Self.samePersistentValues(delete.committed, Self.withTransientDefaults(now, of: entity), of: entity) {
                conflicts.append(StoreConflict(objectID: delete.id, object: nil, committed: delete.committed, persisted: now))
            }
        }
        return conflicts
    }

    /// The error a child's save under ``MergePolicy/error`` throws: the conflicts, with the
    /// parent's values as ``MergeConflict/persistedSnapshot``.
    private func childMergeConflictError(_ conflicts: [StoreConflict], _ push: ChildPush) -> StrataError {
        let current = Dictionary(push.updates.map { ($0.id, $0.current) }, uniquingKeysWith: { first, _ in first })
        let reports = conflicts.map { conflict in
            let entity = conflict.objectID.entity
            return MergeConflict(
                objectID: conflict.objectID,
                objectSnapshot: current[conflict.objectID].map { Self.snapshot($0, of: entity) },
                committedSnapshot: Self.snapshot(conflict.committed, of: entity),
                persistedSnapshot: conflict.persisted.map { Self.snapshot($0, of: entity) })
        }.sorted { $0.objectID < $1.objectID }
        let described = reports.prefix(3).map { report in
            report.persistedSnapshot == nil
                ? "\(report.objectID): deleted in the parent context"
                : "\(report.objectID): changed in the parent context (\(report.storeChangedKeys.joined(separator: ", ")))"
        }
        let count = reports.count == 1 ? "1 object" : "\(reports.count) objects"
        var error = StrataError(
            .mergeConflict,
            "The child context's save would overwrite changes its parent made since the child read \(count): \(described.joined(separator: "; "))\(reports.count > 3 ? "; …" : ""). Nothing was pushed; refresh the child's objects or set a merge policy.",
            context: .init { $0.kind = .parentChanged; $0.objects = reports.map(\.objectID.description) })
        error.mergeConflicts = reports
        return error
    }
}

/// Writes a child's values into the parent's objects, deciding each property by the merge
/// policy where the parent changed the object too (docs/ARCHITECTURE.md, "Child contexts").
private struct PushApplication {
    unowned let context: ManagedObjectContext
    let policy: MergePolicy
    /// Ordered to-manys the child changed: their order is set once memberships settled.
    var orders: [(ManagedObject, slot: Int, order: OrderedSet<ManagedObjectID>)] = []

    init(context: ManagedObjectContext, policy: MergePolicy) {
        self.context = context
        self.policy = policy
    }

    /// The parent's object for a record, loaded; nil when it deletes it or it is gone.
    func live(_ id: ManagedObjectID) -> ManagedObject? {
        let object = context.object(with: id)
        guard !object.state.isInvalid, (try? context.materialize(object)) != nil, !object.state.isDeleted else { return nil }
        return object
    }

    /// Writes one object's changed properties: `committed` is what the child read,
    /// `current` what it holds, `persisted` what the parent holds (for a conflict).
    mutating func write(_ object: ManagedObject, committed: [PropertyValue], current: [PropertyValue],
                        persisted: [PropertyValue]?, conflict: Bool,
                        touched: inout OrderedSet<ManagedObjectID>) throws {
        let entity = object.entity
        for slot in 0..<min(entity.slotCount, current.count, committed.count) {
            let mine = current[slot]
            let read = committed[slot]
            if ManagedObjectContext.sameStoredValue(mine, read, slot: slot, of: entity), !(conflict && policy == .overwrite) { continue }
            switch entity.slotKinds[slot] {
            case .attribute:
                guard let value = decide(read: read, mine: mine, theirs: persisted?[slot], conflict: conflict, isAttribute: true),
                      value != object.storage[slot] else { continue }
                context.setPrimitive(object, slot: slot, value)
            case .relationship(let index):
                let relationship = entity.relationships[index]
                touched.append(contentsOf: read.objectIDs)
                touched.append(contentsOf: mine.objectIDs)
                touched.append(contentsOf: object.storage[slot].objectIDs)
                if !relationship.isToMany {
                    guard let value = decide(read: read, mine: mine, theirs: persisted?[slot], conflict: conflict, isAttribute: false)
                    else { continue }
                    let target = value.objectIDs.first.flatMap { live($0) == nil ? nil : $0 }
                    try context.setToOne(object, relationship, to: target)
                    continue
                }
                if relationship.isOrdered { orders.append((object, slot, OrderedSet(mine.objectIDs))) }
                // A to-many whose inverse is a to-one follows its members' to-ones, which the
                // child changed too and are written (and decided) on their own.
                if inverseIsToOne(relationship) { continue }
                let before = Set(read.objectIDs)
                let after = Set(mine.objectIDs)
                for member in read.objectIDs where !after.contains(member) {
                    try context.removeFromToMany(object, relationship, member)
                }
                for member in mine.objectIDs where !before.contains(member) && live(member) != nil {
                    try context.addToMany(object, relationship, member)
                }
            }
        }
    }

    /// The value to write for an attribute or to-one, or nil to leave the parent's.
    /// (`Optional.none` spelled out: `PropertyValue` takes the `nil` literal as `.null`.)
    private func decide(read: PropertyValue, mine: PropertyValue, theirs: PropertyValue?, conflict: Bool,
                        isAttribute: Bool) -> PropertyValue? {
        let keep = Optional<PropertyValue>.none
        let changedHere = mine != read
        guard conflict, let theirs else { return changedHere ? mine : keep }
        let changedThere = theirs != read
        switch policy {
        case .error, .mergeByPropertyObjectTrump:
            return changedHere ? mine : keep
        case .mergeByPropertyStoreTrump:
            return changedThere || !changedHere ? keep : mine
        case .overwrite:
            // Attributes are the child's; relationships as object trump (the graph's other
            // ends are records the child may not have changed).
            if isAttribute { return mine == theirs ? keep : mine }
            return changedHere ? mine : keep
        case .rollback:
            return keep
        }
    }

    private func inverseIsToOne(_ relationship: RelationshipDescription) -> Bool {
        guard let inverseSlot = relationship.inverseSlot else { return false }
        let destination = context.model.entities[relationship.destinationIndex]
        guard case .relationship(let index) = destination.slotKinds[inverseSlot] else { return false }
        return !destination.relationships[index].isToMany
    }

    /// Puts ordered to-manys in the child's order: its members as it ordered them, then
    /// those only the parent has.
    func reorder() throws {
        for (object, slot, order) in orders where !object.state.isDeleted && !object.state.isInvalid {
            guard case .objects(let now) = object.storage[slot] else { continue }
            var target = OrderedSet(order.filter { now.contains($0) })
            target.append(contentsOf: now)
            if target != now { context.setPrimitive(object, slot: slot, .objects(target)) }
        }
        if !orders.isEmpty { context.processPendingChanges() }
    }
}
