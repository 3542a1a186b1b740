import Foundation

/// A uniqueness constraint a save would break (Core Data's `NSConstraintConflict`):
/// several objects being saved share one key, or an object being saved has the key of a
/// record already in the store. Found in ``StrataStorage/StrataError/constraintConflicts`` when a save
/// under ``MergePolicy/error`` is refused.
///
/// ```swift
/// catch let error as StrataError where error.code == .constraintConflict {
///     for conflict in error.constraintConflicts { print(conflict) }
///     // Person(email): email = "ada@example.com" is taken by x-strata://…/Person/p1; …/Person/t2 would save it again
/// }
/// ```
public struct ConstraintConflict: Sendable, Hashable, CustomStringConvertible {
    /// The entity that declares the constraint (sub-entities' objects share it).
    public let entityName: String
    /// The constrained properties, as declared.
    public let constraint: [String]
    /// The shared key, by property name.
    public let values: [String: PropertyValue]
    /// The objects of this save holding the key (new objects keep their temporary IDs).
    public let conflictingObjects: [ManagedObjectID]
    /// Each conflicting object's persistent values, in ``conflictingObjects`` order.
    public let conflictingSnapshots: [[String: PropertyValue]]
    /// The record already in the store with the key; nil when only objects of this save
    /// share it.
    public let databaseObject: ManagedObjectID?
    /// That record's values in the store.
    public let databaseSnapshot: [String: PropertyValue]?

    /// Creates a conflict record.
    public init(entityName: String, constraint: [String], values: [String: PropertyValue],
                conflictingObjects: [ManagedObjectID], conflictingSnapshots: [[String: PropertyValue]],
                databaseObject: ManagedObjectID?, databaseSnapshot: [String: PropertyValue]?) {
        self.entityName = entityName
        self.constraint = constraint
        self.values = values
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots
        self.databaseObject = databaseObject
        self.databaseSnapshot = databaseSnapshot
    }

    /// `Person(email): email = "a@b" is taken by <record>; <object> would save it again`, or
    /// `…: <a> and <b> would both save email = "a@b"`.
    public var description: String {
        let key = constraint.map { "\($0) = \(Self.text(values[$0] ?? .null))" }.joined(separator: ", ")
        let objects = conflictingObjects.map(\.description)
        let head = "\(entityName)(\(constraint.joined(separator: ", ")))"
        if let databaseObject {
            return "\(head): \(key) is taken by \(databaseObject); \(objects.joined(separator: " and ")) would save it again"
        }
        return "\(head): \(objects.joined(separator: " and ")) would all save \(key)"
    }

    private static func text(_ value: PropertyValue) -> String {
        if case .string(let string) = value { return "\"\(string)\"" }
        return "\(value)"
    }
}
