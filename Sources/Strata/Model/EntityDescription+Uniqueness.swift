import Foundation

/// One uniqueness constraint as a save checks it: the entity that declares it, its
/// property names and their storage slots. Slots are the same in every sub-entity
/// (inherited properties come first), so one constraint is checked across the whole
/// inheritance tree of the declaring entity.
struct UniquenessConstraint: Hashable {
    /// The entity that declares the constraint; its records and its sub-entities' are
    /// checked against each other.
    let entity: EntityDescription
    /// The constrained properties, as declared.
    let names: [String]
    /// Their slots.
    let slots: [Int]

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.entity === rhs.entity && lhs.names == rhs.names }
    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(entity))
        hasher.combine(names)
    }

    /// The object's key under the constraint; nil when any of its values is nil: like
    /// Core Data over SQLite (where NULLs are distinct in a UNIQUE index), a nil never
    /// conflicts.
    func key(_ values: [PropertyValue]) -> [PropertyValue]? {
        var key: [PropertyValue] = []
        key.reserveCapacity(slots.count)
        for slot in slots {
            guard slot < values.count, values[slot] != .null else { return nil }
            key.append(values[slot])
        }
        return key
    }

    /// `Person(email)`, `Item(shelf, position)`.
    var label: String { "\(entity.name)(\(names.joined(separator: ", ")))" }

    /// The store fetch of the records holding any of `keys`, over the declaring entity's
    /// tree: `a IN (…)` as an OR of `a = ?`, or `(a = ? AND b = ?) OR …` over several
    /// attributes. Callers pass at most ``ManagedObjectContext/uniquenessKeysPerQuery``
    /// keys, well inside SQLite's parameter and the translator's nesting limits.
    func storeFetch(holding keys: some Collection<[PropertyValue]>) -> StoreFetchRequest {
        let alternatives = keys.map { key in
            let terms = zip(names, key).map { FetchOperand.key($0.0) == FetchOperand.value($0.1) }
            return terms.count == 1 ? terms[0] : FetchPredicate.and(terms)
        }
        return StoreFetchRequest(entity: entity, includesSubentities: true,
                                 predicate: alternatives.count == 1 ? alternatives[0] : .or(alternatives))
    }
}

extension EntityDescription {
    /// Every uniqueness constraint objects of this entity obey: its own and its ancestors',
    /// the nearest ancestor's first, each once.
    var effectiveUniquenessConstraints: [UniquenessConstraint] {
        var result: [UniquenessConstraint] = []
        var current: EntityDescription? = self
        while let entity = current {
            for names in entity.uniquenessConstraints where !names.isEmpty {
                let slots = names.compactMap { entity.slot(forKey: $0) }
                guard slots.count == names.count else { continue }
                let constraint = UniquenessConstraint(entity: entity, names: names, slots: slots)
                if !result.contains(constraint) { result.append(constraint) }
            }
            current = entity.superentity
        }
        return result
    }
}

extension ManagedObjectModel {
    /// Whether any entity declares a uniqueness constraint (a save of a model without
    /// them skips the check).
    var hasUniquenessConstraints: Bool { entities.contains { !$0.uniquenessConstraints.isEmpty } }
}
