import Foundation
import OrderedCollections

/// One key of a uniqueness constraint that a save would write twice: several objects of
/// the save hold it, or one of them and a record already in the store.
struct UniquenessViolation {
    let constraint: UniquenessConstraint
    let key: [PropertyValue]
    /// The objects of the save that write the key, in the order they became dirty.
    let objects: [ManagedObject]
    /// The stored record holding the key, if any, and its values there.
    let stored: ManagedObjectID?
    let storedValues: [PropertyValue]?
}

extension ManagedObjectContext {
    // MARK: Finding violations (under the coordinator's save lock)

    /// Every constrained key this save writes that another object of the save, or a record
    /// in the store, already holds. Only keys the save writes are checked: a new object's,
    /// or an object's whose constrained values changed; a key with a nil in it never
    /// conflicts. A stored record this save deletes, or moves to another key, no longer
    /// holds its key.
    func findUniquenessViolations() throws -> [UniquenessViolation] {
        try uniquenessCheck().violations
    }

    /// How many keys one store query looks up: a save of 100,000 new constrained objects
    /// makes 391 queries per constraint, not 100,000. Each query is one `IN` list (or an
    /// OR of ANDs for a constraint over several attributes), well inside SQLite's 32,766
    /// parameters and the translator's nesting limit.
    static let uniquenessKeysPerQuery = 256

    /// ``findUniquenessViolations()`` and how many store queries it made.
    func uniquenessCheck() throws -> (violations: [UniquenessViolation], storeQueries: Int) {
        var constraintsByEntity: [ObjectIdentifier: [UniquenessConstraint]] = [:]
        struct Slot: Hashable { let constraint: UniquenessConstraint; let key: [PropertyValue] }
        var writers: OrderedDictionary<Slot, [ManagedObject]> = [:]
        for object in dirtySet.values where !object.state.isDeleted && !object.state.isFault && !object.state.isInvalid {
            let entityID = ObjectIdentifier(object.entity)
            let constraints = constraintsByEntity[entityID] ?? object.entity.effectiveUniquenessConstraints
            constraintsByEntity[entityID] = constraints
            for constraint in constraints {
                guard let key = constraint.key(object.storage.array) else { continue }
                if !object.state.isInserted {
                    // A stored object writes its key only when the key changed.
                    guard let committed = object.committedSnapshot, constraint.key(committed) != key else { continue }
                }
                writers[Slot(constraint: constraint, key: key), default: []].append(object)
            }
        }
        var keysByConstraint: OrderedDictionary<UniquenessConstraint, [[PropertyValue]]> = [:]
        for slot in writers.keys { keysByConstraint[slot.constraint, default: []].append(slot.key) }
        var holders: [Slot: [ManagedObjectID]] = [:]
        var queries = 0
        for (constraint, keys) in keysByConstraint {
            for start in stride(from: 0, to: keys.count, by: Self.uniquenessKeysPerQuery) {
                let chunk = keys[start..<min(start + Self.uniquenessKeysPerQuery, keys.count)]
                queries += 1
                for (key, ids) in try storedRecords(holding: chunk, under: constraint) {
                    holders[Slot(constraint: constraint, key: key)] = ids
                }
            }
        }
        var violations: [UniquenessViolation] = []
        for (slot, objects) in writers {
            let holder = try storedHolder(of: slot.key, under: slot.constraint, among: holders[slot] ?? [], besides: objects)
            guard objects.count > 1 || holder != nil else { continue }
            violations.append(UniquenessViolation(constraint: slot.constraint, key: slot.key, objects: objects,
                                                  stored: holder?.id, storedValues: holder?.values))
        }
        return (violations, queries)
    }

    /// The stored records holding any of `keys` under the constraint, by key: one store
    /// query, `a IN (…)` or `(a = ? AND b = ?) OR …`, over the entity's tree.
    private func storedRecords(holding keys: ArraySlice<[PropertyValue]>,
                               under constraint: UniquenessConstraint) throws -> [[PropertyValue]: [ManagedObjectID]] {
        let store = try coordinator.store(for: constraint.entity)
        let request = constraint.storeFetch(holding: keys)
        let wanted = Set(keys)
        var found: [[PropertyValue]: [ManagedObjectID]] = [:]
        for id in try store.fetchObjectIDs(request) {
            // The store's values give the key each record holds there (the query matched one).
            guard let values = try coordinator.values(for: id), let key = constraint.key(values), wanted.contains(key) else { continue }
            found[key, default: []].append(id)
        }
        return found
    }

    /// The stored record that holds `key` once this save is written, other than `objects`:
    /// of the `candidates` the store holds the key in, one this save neither deletes nor
    /// moves to another key.
    private func storedHolder(of key: [PropertyValue], under constraint: UniquenessConstraint, among candidates: [ManagedObjectID],
                              besides objects: [ManagedObject]) throws -> (id: ManagedObjectID, values: [PropertyValue])? {
        guard !candidates.isEmpty else { return nil }
        let saved = Set(objects.map(\.objectID))
        for id in candidates.sorted() where !saved.contains(id) {
            if let object = registeredObject(for: id), object.state.inDirtySet {
                if object.state.isDeleted || constraint.key(object.storage.array) != key { continue }
            }
            guard let values = try coordinator.values(for: id) else { continue }
            return (id, values)
        }
        return nil
    }

    /// The error a save under ``MergePolicy/error`` throws.
    func constraintConflictError(_ violations: [UniquenessViolation]) -> StrataError {
        let conflicts = violations.map { violation in
            let entity = violation.constraint.entity
            return ConstraintConflict(
                entityName: entity.name,
                constraint: violation.constraint.names,
                values: Dictionary(uniqueKeysWithValues: zip(violation.constraint.names, violation.key)),
                conflictingObjects: violation.objects.map(\.objectID),
                conflictingSnapshots: violation.objects.map { Self.snapshot($0.storage.array, of: $0.entity) },
                databaseObject: violation.stored,
                databaseSnapshot: violation.stored.flatMap { id in violation.storedValues.map { Self.snapshot($0, of: id.entity) } })
        }
        let count = conflicts.count == 1 ? "a uniqueness constraint" : "\(conflicts.count) uniqueness constraints"
        var error = StrataError(
            .constraintConflict,
            "The save would break \(count): \(conflicts.prefix(3).map(\.description).joined(separator: "; "))\(conflicts.count > 3 ? "; …" : ""). Nothing was written; change the keys or set a merge policy (which merges the new objects into the records holding their keys).",
            context: .init { $0.entity = conflicts[0].entityName; $0.constraint = conflicts[0].constraint.joined(separator: ",") })
        error.constraintConflicts = conflicts
        return error
    }

    // MARK: Resolving violations (under the save lock; its notices are posted after it)

    /// Checks the save's keys and, under a policy other than ``MergePolicy/error``, merges
    /// each set of objects sharing a key into one: the stored record that holds the key
    /// (it keeps its ID: an upsert), else the first of them that is stored, else the first
    /// inserted. The changes are made as the application would make them — logged and
    /// undoable with the rest of the save's changes.
    ///
    /// - Throws: `.constraintConflict` under ``MergePolicy/error``, or when merging one
    ///   key makes another one conflict again and again.
    func enforceUniqueness() throws {
        for _ in 0..<Self.uniquenessRounds {
            let violations = try findUniquenessViolations()
            if violations.isEmpty { return }
            guard mergePolicy != .error else { throw constraintConflictError(violations) }
            for violation in violations { try resolve(violation) }
            processPendingChanges()
        }
        let left = try findUniquenessViolations()
        if !left.isEmpty { throw constraintConflictError(left) }
    }

    /// How often merges may make new conflicts (a merged record now also clashes under a
    /// second constraint) before the save gives up.
    private static let uniquenessRounds = 4

    private func resolve(_ violation: UniquenessViolation) throws {
        // An earlier violation's merge may have deleted some of these objects already.
        let objects = violation.objects.filter { !$0.state.isDeleted && $0.context === self }
        let winner: ManagedObject
        var losers = objects
        if let stored = violation.stored {
            winner = try existingObject(with: stored)
        } else {
            guard objects.count > 1 else { return }
            let index = objects.firstIndex { !$0.state.isInserted } ?? 0
            winner = objects[index]
            losers.remove(at: index)
        }
        for loser in losers where loser !== winner {
            if mergePolicy == .rollback, !loser.state.isInserted, let committed = loser.committedSnapshot {
                // The store wins: a stored object's move onto a taken key is undone.
                for slot in violation.constraint.slots { try loser.setValue(committed[slot], slot: slot) }
                continue
            }
            try merge(loser, into: winner)
        }
    }

    /// Moves the loser's values (by the merge policy) and relationships to the winner, then
    /// deletes the loser. Properties go by name: a sub-entity's object merging into a
    /// record of a sibling sub-entity keeps only the properties both have.
    private func merge(_ loser: ManagedObject, into winner: ManagedObject) throws {
        let entity = loser.entity, target = winner.entity
        let committed = loser.state.isInserted ? nil : loser.committedSnapshot
        for attribute in entity.attributes where !attribute.isTransient {
            guard let other = target.attributesByName[attribute.name], !other.isTransient,
                  other.attributeType == attribute.attributeType else { continue }
            let mine = loser.storage[attribute.slot], theirs = winner.storage[other.slot]
            // What the loser "changed": for a new object, what differs from the default.
            let changed = committed.map { mine != $0[attribute.slot] } ?? (mine != attribute.defaultValue)
            let takes = switch mergePolicy {
            case .mergeByPropertyObjectTrump: changed
            case .overwrite: true
            case .mergeByPropertyStoreTrump: theirs == .null && mine != .null
            case .rollback, .error: false
            }
            if takes && mine != theirs { try winner.setValue(mine, slot: other.slot) }
        }
        for relationship in entity.relationships where !relationship.isTransient {
            let value = loser.storage[relationship.slot]
            guard !value.objectIDs.isEmpty else { continue }
            if let other = target.relationshipsByName[relationship.name], !other.isTransient,
               other.isToMany == relationship.isToMany, other.destinationEntityName == relationship.destinationEntityName {
                let theirs = winner.storage[other.slot]
                if relationship.isToMany {
                    var members = OrderedSet(theirs.objectIDs)
                    members.append(contentsOf: value.objectIDs)
                    try loser.setValue(.objects([]), slot: relationship.slot)
                    if members.count != theirs.objectIDs.count { try winner.setValue(.objects(members), slot: other.slot) }
                    continue
                }
                let takes = theirs == .null || mergePolicy == .mergeByPropertyObjectTrump || mergePolicy == .overwrite
                try loser.setValue(.null, slot: relationship.slot)
                if takes && theirs != value { try winner.setValue(value, slot: other.slot) }
                continue
            }
            // Detached before the delete: its delete rule must not reach records that
            // only the merge made it lose.
            try loser.setValue(relationship.isToMany ? .objects([]) : .null, slot: relationship.slot)
        }
        delete(loser)
    }
}
