import Foundation

/// A ``PredicateSubject`` over a store row: one record's persistent values by slot, with a
/// row source so key paths through relationships reach other rows.
///
/// Stores evaluate predicates and sort keys with it, so a record is judged by its stored
/// values exactly as the context judges an object by its current ones.
///
/// ```swift
/// let subject = RowSubject(objectID: id, values: row) { try store.values(for: $0) }
/// try FetchPredicate(format: "department.name == 'Sales'").evaluate(with: subject)
/// ```
public struct RowSubject: PredicateSubject {
    /// The record's ID (its entity gives the slots).
    public let objectID: ManagedObjectID
    /// The record's values by slot.
    public let values: [PropertyValue]
    /// The values of another record, or nil when it does not exist.
    public let rowSource: (ManagedObjectID) throws -> [PropertyValue]?

    /// Creates a subject over one row.
    /// - Parameters:
    ///   - objectID: the record's ID.
    ///   - values: its values by slot (the entity's `slotNames` order).
    ///   - rowSource: where the rows of relationship destinations come from.
    public init(objectID: ManagedObjectID, values: [PropertyValue],
                rowSource: @escaping (ManagedObjectID) throws -> [PropertyValue]?) {
        self.objectID = objectID
        self.values = values
        self.rowSource = rowSource
    }

    /// An attribute's value, a to-one's destination row (nil for NULL or a missing record)
    /// or a to-many's destination rows (missing records left out).
    /// - Throws: `.unknownKey` naming the entity and key.
    public func predicateValue(forKey key: String) throws -> PredicateResolved {
        let entity = objectID.entity
        if let composite = CompositePredicateSubject.subject(self, entity: entity, key: key) { return try composite.resolved() }
        guard let slot = entity.slot(forKey: key) else {
            throw StrataError(.unknownKey, "Entity '\(entity.name)' has no property \(input: key).",
                              context: .init { $0.entity = entity.name; $0.key = key })
        }
        let value = slot < values.count ? values[slot] : .null
        guard case .relationship = entity.slotKinds[slot] else { return .value(value) }
        switch value {
        case .object(let id):
            return .object(try row(id))
        case .objects(let ids):
            return .objects(try ids.compactMap { try row($0) })
        default:
            if case .relationship(let index) = entity.slotKinds[slot], entity.relationships[index].isToMany {
                return .objects([])
            }
            return .object(nil)
        }
    }

    /// ``objectID``.
    public var predicateObjectID: ManagedObjectID? { objectID }

    private func row(_ id: ManagedObjectID) throws -> RowSubject? {
        guard let values = try rowSource(id) else { return nil }
        return RowSubject(objectID: id, values: values, rowSource: rowSource)
    }
}

extension PredicateSubject {
    /// The single value at the end of a key path through to-one relationships: an attribute
    /// value, or a destination's object ID; NULL when a to-one on the way is NULL.
    ///
    /// ```swift
    /// try employee.resolvedValue(atKeyPath: "department.name")   // .string("Sales")
    /// ```
    /// - Throws: `.unknownKey` for a missing key; `.invalidArgument` for a to-many on the way
    ///   or at the end, or a key read from an attribute value.
    package func resolvedValue(atKeyPath path: String) throws -> PropertyValue {
        var subject: any PredicateSubject = self
        // A single key (most sort and section key paths) needs no split: it was an array of
        // substrings and one of strings on every read of a FetchedResultsController's keys.
        let keys = path.utf8.contains(UInt8(ascii: ".")) ? path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) : [path]
        for (position, key) in keys.enumerated() {
            let isLast = position == keys.count - 1
            switch try subject.predicateValue(forKey: key) {
            case .value(let value):
                if isLast { return value }
                if value.isNull { return .null }
                throw StrataError(.invalidArgument, "The key path \(input: path) continues after the attribute \(input: key).",
                                  context: .init { $0.key = path })
            case .object(let next):
                guard let next else { return .null }
                if isLast {
                    return next.predicateObjectID.map(PropertyValue.object) ?? .null
                }
                subject = next
            case .objects:
                throw StrataError(.invalidArgument, "The key path \(input: path) goes through the to-many \(input: key); only to-one key paths give one value.",
                                  context: .init { $0.key = path })
            }
        }
        return .null
    }
}
