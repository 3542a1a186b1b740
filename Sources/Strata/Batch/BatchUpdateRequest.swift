import Foundation

/// What a batch request returns, for ``BatchResult``: Core Data's
/// `NSBatchUpdateRequestResultType` and `NSBatchDeleteRequestResultType`.
public enum BatchResultType: String, Hashable, Sendable, CaseIterable {
    /// Only whether the request succeeded.
    case statusOnly
    /// The number of records the request matched (the default).
    case count
    /// The IDs of the records the request matched.
    case objectIDs
}

/// Changes attributes of every record matching a predicate, in the store, without loading
/// objects: Core Data's `NSBatchUpdateRequest`.
///
/// ```swift
/// let raise = BatchUpdateRequest(
///     entityName: "Employee",
///     predicate: try FetchPredicate(format: "department.name == %@", "R&D"),
///     propertiesToUpdate: ["salary": 60_000, "active": true])
/// raise.resultType = .objectIDs
/// let result = try context.executeBatch(raise)
/// try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context])
/// ```
///
/// A new value may be an expression over the record (Core Data's `NSExpression` values):
///
/// ```swift
/// let update = BatchUpdateRequest(
///     entityName: "Employee",
///     predicate: try FetchPredicate(format: "salary < 50000"),
///     propertiesToUpdate: [
///         "rating": .function(.multiply, [.keyPath("rating"), 1.1]),      // rating * 1.1
///         "email": .function(.lowercase, [.keyPath("email")]),            // lowercase:(email)
///         "startDate": .function(.now, []),                               // now()
///         "salary": try FetchExpression(format: "trunc:(salary * 1.1)"),  // a whole number
///     ])
/// ```
///
/// Every value of a record is computed from the record's values before the update (as SQL's
/// `UPDATE`: `["a": .keyPath("b"), "b": .keyPath("a")]` swaps them), `now()` is one instant
/// for the whole batch (the saved group's timestamp), and each result is coerced and checked
/// like a constant; a value that fails for any record refuses the whole batch, naming the
/// record and the key.
///
/// The store finds the matching records with its fetch path (SQL for a document), writes
/// one update operation per changed record (old and new values — the computed ones, so
/// undo, redo and replay of the document's log never compute them again) and saves them as one segment group of kind
/// `ChangeGroupKind.batch` named "Batch Update <Entity>". The context's unsaved changes
/// are not taken into account, and registered objects keep their values until the changes
/// are merged (``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)-([String:[ManagedObjectID]],_)``).
public final class BatchUpdateRequest {
    /// The name of the entity whose records are updated.
    public var entityName: String
    /// Which records are updated; nil updates every record of the entity.
    public var predicate: FetchPredicate?
    /// The new values by attribute name: constants (literals convert: `["salary": 60_000]`)
    /// or expressions over the record (`.function(.multiply, [.keyPath("rating"), 1.1])`),
    /// evaluated per record on its old values. Values are coerced to the attribute's type (an
    /// integer for a double attribute, a whole double for an integer one, a string for a
    /// UUID or URI attribute) and checked against the model's constraints.
    public var propertiesToUpdate: [String: FetchExpression]
    /// Whether records of sub-entities are updated too (default `true`).
    public var includesSubentities = true
    /// What ``BatchResult`` reports (default `.count`).
    public var resultType: BatchResultType = .count
    /// Whether the update becomes one undo group of the executing context (saved as a
    /// `ChangeGroupKind.user` group that a reopened document can undo too; undo restores
    /// the old values). Default `false`: Core Data's behaviour, a
    /// `ChangeGroupKind.batch` group no undo reaches.
    public var registersUndo = false

    /// Creates a batch update request.
    ///
    /// - Parameters:
    ///   - entityName: the entity whose records change.
    ///   - predicate: which records; nil for all.
    ///   - propertiesToUpdate: attribute name → new value, a constant or an expression over
    ///     the record (`nil` clears an optional attribute).
    public init(entityName: String, predicate: FetchPredicate? = nil, propertiesToUpdate: [String: FetchExpression]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }

    /// Creates a batch update request that sets constant values.
    ///
    /// ```swift
    /// let values: [String: PropertyValue] = ["salary": 60_000, "badge": .uuid(badge)]
    /// let request = BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: values)
    /// ```
    /// - Parameters:
    ///   - entityName: the entity whose records change.
    ///   - predicate: which records; nil for all.
    ///   - propertiesToUpdate: attribute name → new value (`.null` clears an optional one).
    // Disfavoured so that a dictionary literal of plain literals picks the expression form;
    // this one is chosen for `[String: PropertyValue]` values and `.string(…)`-style members.
    @_disfavoredOverload
    public convenience init(entityName: String, predicate: FetchPredicate? = nil, propertiesToUpdate: [String: PropertyValue]) {
        self.init(entityName: entityName, predicate: predicate, propertiesToUpdate: propertiesToUpdate.mapValues { .constant($0) })
    }
}

/// The outcome of a batch request (``BatchUpdateRequest``, ``BatchDeleteRequest``).
///
/// ```swift
/// let result = try context.executeBatch(BatchDeleteRequest(entityName: "Project"))
/// print(result.count, result.changes.deleted.count)
/// ```
public struct BatchResult: Sendable, Hashable {
    /// What the request asked to report.
    public var resultType: BatchResultType
    /// Whether the request succeeded (always `true`: a failure throws).
    public var status: Bool { true }
    /// The number of records the predicate matched (updated or deleted), whatever the result
    /// type; records a delete cascaded to are not counted.
    public var count: Int
    /// The matched records' IDs for `.objectIDs` (in the store's order), else empty.
    public var objectIDs: [ManagedObjectID]
    /// Every record the request changed in the store, by kind: the updated records (for a
    /// delete: records whose relationships were nullified) and the deleted ones (for a
    /// delete: cascaded records too). What contexts must merge.
    public var changes: SaveChanges

    /// Creates a result.
    public init(resultType: BatchResultType, count: Int, objectIDs: [ManagedObjectID], changes: SaveChanges) {
        self.resultType = resultType
        self.count = count
        self.objectIDs = objectIDs
        self.changes = changes
    }

    /// ``changes`` in the form ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)-([String:[ManagedObjectID]],_)``
    /// takes (keys ``ManagedObjectContext/insertedObjectsKey``, `updatedObjectsKey`,
    /// `deletedObjectsKey`).
    public var remoteChanges: [String: [ManagedObjectID]] {
        [
            ManagedObjectContext.insertedObjectsKey: changes.inserted.sorted(),
            ManagedObjectContext.updatedObjectsKey: changes.updated.sorted(),
            ManagedObjectContext.deletedObjectsKey: changes.deleted.sorted(),
        ]
    }
}

extension BatchUpdateRequest: CustomStringConvertible {
    /// `BatchUpdateRequest(Employee where salary > 5000 set salary = 6000)`, for logs.
    public var description: String {
        var text = "BatchUpdateRequest(\(entityName)"
        if let predicate { text += " where \(predicate.predicateFormat)" }
        let assignments = propertiesToUpdate.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value.predicateFormat)" }
        return text + " set " + assignments.joined(separator: ", ") + ")"
    }
}
