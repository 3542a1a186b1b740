/// Something a predicate can be evaluated against: a managed object, a raw row, a
/// dictionary.
///
/// ```swift
/// struct Employee: PredicateSubject {
///     var salary: Int64
///     func predicateValue(forKey key: String) throws -> PredicateResolved {
///         guard key == "salary" else { throw StrataError(.unknownKey, "no key \(key)") }
///         return .value(.integer(salary))
///     }
///     var predicateObjectID: ManagedObjectID? { nil }
/// }
/// ```
public protocol PredicateSubject {
    /// The value of one key (not a key path): an attribute value, a to-one destination or
    /// a to-many's destinations.
    /// - Throws: `StrataError(.unknownKey)` for a key the subject does not have.
    func predicateValue(forKey key: String) throws -> PredicateResolved
    /// The identity used by `SELF == %@` and `department == %@`; nil when the subject has
    /// none (comparing it by identity is then an error).
    var predicateObjectID: ManagedObjectID? { get }
}

/// The value of one key of a ``PredicateSubject``.
public enum PredicateResolved {
    /// An attribute value (or an object ID standing for a relationship destination).
    case value(PropertyValue)
    /// A to-one destination; nil is NULL.
    case object((any PredicateSubject)?)
    /// A to-many relationship's destinations.
    case objects([any PredicateSubject])
}

/// A dictionary-backed ``PredicateSubject``, for raw rows and tests.
///
/// ```swift
/// var sales = PredicateRow(["name": "Sales"])
/// var row = PredicateRow(["name": "Quinn", "salary": 52_000])
/// row["department"] = .object(sales)
/// try FetchPredicate(format: "department.name == 'Sales'").evaluate(with: row) // true
/// ```
public struct PredicateRow: PredicateSubject {
    /// The row's keys and their values.
    public var values: [String: PredicateResolved]
    /// The row's identity, if any.
    public var objectID: ManagedObjectID?

    /// A row of attribute values.
    public init(_ values: [String: PropertyValue] = [:], objectID: ManagedObjectID? = nil) {
        self.values = values.mapValues { .value($0) }
        self.objectID = objectID
    }

    /// The value of a key, or nil if the row has no such key.
    public subscript(key: String) -> PredicateResolved? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// The value stored for `key`; NULL for a key the row does not have, as an
    /// `NSDictionary` answers `value(forKey:)` with nil (docs/PREDICATES.md §3).
    public func predicateValue(forKey key: String) throws -> PredicateResolved {
        values[key] ?? .value(.null)
    }

    /// ``objectID``.
    public var predicateObjectID: ManagedObjectID? { objectID }
}
