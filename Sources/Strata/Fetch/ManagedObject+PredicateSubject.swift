import Foundation

/// A managed object is judged by its current values: what the context shows, pending
/// changes included. Key paths through relationships reach the destinations registered in
/// the object's context (faults fire when their values are read).
///
/// ```swift
/// let rich = try FetchPredicate(format: "salary > 100000 AND department.name == 'R&D'")
/// try rich.evaluate(with: employee)
/// ```
extension ManagedObject: PredicateSubject {
    /// An attribute's value, a to-one's destination object or a to-many's destination
    /// objects. Fires the object's fault.
    /// - Throws: `.unknownKey` naming the entity and key; `.invalidObject` when the object is
    ///   no longer registered.
    public func predicateValue(forKey key: String) throws -> PredicateResolved {
        if let composite = CompositePredicateSubject.subject(self, entity: entity, key: key) { return try composite.resolved() }
        let slot = try slotIndex(forKey: key)
        try ensureLoaded()
        let value = storage[slot]
        guard case .relationship(let index) = entity.slotKinds[slot] else { return .value(value) }
        let context = try requireContext()
        if entity.relationships[index].isToMany {
            return .objects(value.objectIDs.map { context.object(with: $0) })
        }
        if case .object(let id) = value { return .object(context.object(with: id)) }
        return .object(nil)
    }

    /// The object's ID. Never fires a fault.
    public var predicateObjectID: ManagedObjectID? { objectID }
}
