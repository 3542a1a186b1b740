import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Computes the derived attributes of every object this save writes and of every object
    /// whose derivation reads one of them (found through the inverse relationships, loaded
    /// from the store when this context never fetched them), as Core Data does at save but
    /// also for the objects a changed one feeds (a department's `employees.@sum.salary`
    /// when only an employee's salary changed). Values are set as ordinary changes, so they
    /// are logged, saved and undone with the rest of the save.
    ///
    /// Inputs are read as the store has them now, except the objects this context changes
    /// (``DerivationInput``): a department loaded long ago, in a context that never merged,
    /// still sums the salaries other contexts saved since.
    ///
    /// One `now()` for the whole save: every object saved together gets the same date.
    /// - Throws: `.validation` naming the object, attribute and derivation when the value
    ///   cannot be computed or does not fit the attribute's type.
    func computeDerivedValues(now: Date) throws {
        let plan = model.derivationPlan
        guard !plan.isEmpty else { return }
        var targets: OrderedDictionary<ObjectIdentifier, ManagedObject> = [:]
        for object in dirtySet.values where Self.changesDerivationInputs(object, plan) {
            let index = object.entity.index
            if !object.state.isDeleted, !plan.derived[index].isEmpty {
                targets[ObjectIdentifier(object)] = object
            }
            for chain in plan.dependents[index] {
                for reached in try objects(reachedFrom: object, through: chain) where !reached.state.isDeleted {
                    targets[ObjectIdentifier(reached)] = reached
                }
            }
        }
        var problems: [StrataError.Problem] = []
        for object in targets.values {
            guard !object.state.isInvalid else { continue }
            do { try object.ensureLoaded() } catch { continue }  // deleted by another save: nothing to compute
            for (slot, expression) in plan.derived[object.entity.index] {
                let attribute = object.entity.attributes[object.entity.slotKindIndex(slot)]
                if let coerced = DerivationCheck.derivedValue(
                    of: expression, for: attribute, entityName: object.entity.name, objectID: object.objectID,
                    subject: DerivationInput(id: object.objectID, context: self), now: now, problems: &problems) {
                    setPrimitive(object, slot: slot, coerced)
                }
            }
        }
        if !problems.isEmpty {
            throw StrataError(.validation, "A derived value could not be computed (\(problems.count) problem\(problems.count == 1 ? "" : "s")).",
                              problems: problems)
        }
    }

    /// Whether the object's changes can change a derived value: an insertion, a deletion or
    /// a change of anything but derived attributes (no derivation reads one, so an object
    /// whose derived values alone changed leaves the others as they are).
    private static func changesDerivationInputs(_ object: ManagedObject, _ plan: DerivationPlan) -> Bool {
        if object.state.isInserted || object.state.isDeleted { return true }
        guard object.hasChanges else { return false }
        let derived = plan.derived[object.entity.index]
        return object.storage.indices.contains { slot in
            object.storage[slot] != object.committedValue(slot: slot) && !derived.contains { $0.slot == slot }
        }
    }

    /// Under the save lock, after the catch-up: settles the conflicts that are only derived
    /// values (an object this save changes nothing of but its derived attributes, whose record
    /// another save changed since it was read — the department both contexts' hires
    /// recomputed) by taking the stored record as what the object read, then computes every
    /// derived value again from what the store holds now, so a save that raced another never
    /// writes a stale sum. Returns the conflicts left for the merge policy.
    func settleDerivedValues(_ conflicts: [StoreConflict], generation: UInt64, now: Date) throws -> [StoreConflict] {
        let plan = model.derivationPlan
        var left: [StoreConflict] = []
        for conflict in conflicts {
            guard let object = conflict.object, let persisted = conflict.persisted, !object.state.isDeleted,
                  !plan.derived[object.entity.index].isEmpty else {
                left.append(conflict)
                continue
            }
            let derivedSlots = Set(plan.derived[object.entity.index].map(\.slot))
            let changed = object.storage.indices.filter { !Self.sameStoredValue(object.storage[$0], conflict.committed[$0], slot: $0, of: object.entity) }
            guard changed.allSatisfy(derivedSlots.contains) else {
                left.append(conflict)
                continue
            }
            // Nothing of the app's: the object takes the record as stored, keeping its derived changes.
            for slot in object.storage.indices where !derivedSlots.contains(slot) && !RowTable.isTransient(slot, of: object.entity) {
                object.storage[slot] = persisted[slot]
            }
            object.committedSnapshot = persisted
            object.loadGeneration = generation
        }
        try computeDerivedValues(now: now)
        processPendingChanges()
        return left
    }

    /// The objects reached from `object` along a chain of relationship names, by both the
    /// current and the last saved values (an employee moved out of a department still
    /// changes that department's aggregates).
    private func objects(reachedFrom object: ManagedObject, through chain: [String]) throws -> [ManagedObject] {
        var current: [ManagedObject] = [object]
        for key in chain {
            var next: OrderedDictionary<ObjectIdentifier, ManagedObject> = [:]
            for source in current {
                guard let slot = source.entity.slot(forKey: key), !source.state.isInvalid else { continue }
                do { try source.ensureLoaded() } catch { continue }
                for id in source.storage[slot].objectIDs + source.committedValue(slot: slot).objectIDs {
                    let reached = self.object(with: id)
                    next[ObjectIdentifier(reached)] = reached
                }
            }
            current = Array(next.values)
        }
        return current
    }
}

/// An object as a derivation reads it at save: the context's values for an object the
/// context changes (or has read since the store last changed it), the store's current
/// record otherwise — never a stale copy of another context's save.
struct DerivationInput: PredicateSubject {
    let id: ManagedObjectID
    let context: ManagedObjectContext

    func predicateValue(forKey key: String) throws -> PredicateResolved {
        let entity = id.entity
        guard let slot = entity.slot(forKey: key) else {
            throw StrataError(.unknownKey, "\(entity.name) has no key \(input: key).", context: .init { $0.entity = entity.name; $0.key = key })
        }
        let value = try values()?[slot] ?? .null
        guard case .relationship(let index) = entity.slotKinds[slot] else { return .value(value) }
        if entity.relationships[index].isToMany {
            return .objects(value.objectIDs.map { DerivationInput(id: $0, context: context) })
        }
        if case .object(let destination) = value { return .object(DerivationInput(id: destination, context: context)) }
        return .object(nil)
    }

    var predicateObjectID: ManagedObjectID? { id }

    private func values() throws -> [PropertyValue]? {
        if let object = context.registeredObject(for: id), !object.state.isFault,
           object.state.inDirtySet || object.state.isInserted || !context.coordinator.hasChanged(id, since: object.loadGeneration) {
            return object.storage.array
        }
        return try context.coordinator.values(for: id)
    }
}

extension EntityDescription {
    /// The index in ``attributes`` of the attribute stored in `slot`.
    func slotKindIndex(_ slot: Int) -> Int {
        guard case .attribute(let index) = slotKinds[slot] else { preconditionFailure("slot \(slot) of \(name) is not an attribute") }
        return index
    }
}

extension ManagedObject {
    /// The error for setting a derived attribute.
    func derivedIsReadOnly(_ index: Int) -> StrataError {
        let attribute = entity.attributes[index]
        let derivation = attribute.derivation?.predicateFormat ?? ""
        return StrataError(
            .invalidArgument,
            "\(entity.name).\(attribute.name) is derived from '\(derivation)' and computed when the context saves; it cannot be set.",
            context: .init { $0.entity = entity.name; $0.key = attribute.name; $0.expression = derivation })
    }
}
