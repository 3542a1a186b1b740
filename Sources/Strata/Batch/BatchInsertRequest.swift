import Foundation

/// Inserts records into the store without building managed objects: Core Data's
/// `NSBatchInsertRequest`.
///
/// ```swift
/// let rows: [[String: PropertyValue]] = [["name": "Ada", "salary": 70_000], ["name": "Alan", "salary": 65_000]]
/// let request = BatchInsertRequest(entityName: "Employee", objects: rows)
/// request.resultType = .objectIDs
/// let result = try context.executeBatch(request)
/// try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context])
/// ```
///
/// Rows come from ``objectsToInsert``, or one at a time from ``dictionaryHandler`` or
/// ``managedObjectHandler`` (which fill one reusable dictionary or object until they return
/// `true`, Core Data's "stop"; a handler runs while the request holds the document's write,
/// so it must not wait for another thread that reads the same store, which waits for the
/// write). Values are attributes by name (coerced to the attribute's
/// type as ``BatchUpdateRequest`` does; missing ones take the model's default), to-one
/// relationships as `.object(id)` and to-many ones as `.objects(ids)` of records already in
/// the store — or of rows of the same request: a row takes an ID reserved beforehand
/// (``ManagedObjectContext/reserveObjectIDs(forEntityName:count:)``) under
/// ``objectIDKey``, and other rows name it. Every row is checked against the model — types, required values, bounds,
/// lengths, patterns, relationship destinations and counts — and the first bad row throws
/// an error naming its number (from 1) and key; nothing is written then. A row whose key
/// under one of the entity's uniqueness constraints a record or an earlier row holds is
/// refused under the executing context's ``MergePolicy/error`` policy and merged into that
/// record under the others (an upsert, as Core Data's batch insert does with constraints;
/// docs/SEMANTICS.md, "Batch inserts and uniqueness constraints").
///
/// The store gives the rows permanent keys (one allocation per entity and chunk), writes one
/// insert operation per row and keeps the graph consistent: a destination's inverse
/// relationship gains the new record (one operation per destination, as a context save
/// would record). The operations are saved as one segment group, of kind
/// `ChangeGroupKind.batch` named "Batch Insert <Entity>" — or, with ``registersUndo``,
/// of kind `ChangeGroupKind.user`, on the executing context's undo stack. See
/// docs/SEMANTICS.md, "Batch requests".
public final class BatchInsertRequest {
    /// The row key giving the row's own ID, reserved with
    /// ``ManagedObjectContext/reserveObjectIDs(forEntityName:count:)``, so that other rows of
    /// the request can name it (`"objectID"`, which no property can be called).
    ///
    /// ```swift
    /// let ids = try context.reserveObjectIDs(forEntityName: "Employee", count: 2)
    /// let request = BatchInsertRequest(entityName: "Employee", objects: [
    ///     [BatchInsertRequest.objectIDKey: .object(ids[0]), "firstName": "Ada", "lastName": "Lovelace"],
    ///     [BatchInsertRequest.objectIDKey: .object(ids[1]), "firstName": "Alan", "lastName": "Turing",
    ///      "manager": .object(ids[0])],
    /// ])
    /// ```
    public static let objectIDKey = "objectID"

    /// The name of the entity whose records are inserted (not an abstract one).
    public var entityName: String
    /// The rows, as property name → value; nil when a handler gives them.
    public var objectsToInsert: [[String: PropertyValue]]?
    /// Fills one row (the dictionary is emptied before each call) and returns `true` when
    /// there are no more rows; the row filled by a call returning `true` is not inserted.
    public var dictionaryHandler: ((inout [String: PropertyValue]) throws -> Bool)?
    /// Fills one reusable object (its values reset to the model's defaults before each call)
    /// and returns `true` when there are no more rows; the object filled by a call
    /// returning `true` is not inserted. The object belongs to no context: read and set its
    /// values (`setValue(_:forKey:)`), do not keep it.
    public var managedObjectHandler: ((ManagedObject) throws -> Bool)?
    /// Fills one row laid out by slot (``EntityDescription/slot(forKey:)``; it starts as the
    /// model's defaults, with no ID) and returns `true` when there are no more rows; checked
    /// as the other handlers' rows are. For the package's tools (`strata import`): a row
    /// needs no hashing of property names, twice per value with a dictionary
    /// (docs/ARCHITECTURE.md, "Batch requests and merges").
    package var slotRowHandler: ((inout StoreBatchInsert.Row) throws -> Bool)?
    /// What ``BatchResult`` reports (default `.count`). `.count` and `.objectIDs` list the
    /// inserted records in ``BatchResult/changes`` for merging (`.objectIDs` also in
    /// ``BatchResult/objectIDs``, in order); `.statusOnly` collects no IDs at all — Core
    /// Data's status result — so a million-row insert holds none (its count is still given).
    public var resultType: BatchResultType = .count
    /// Whether the insert becomes one undo group of the executing context (saved as a
    /// `ChangeGroupKind.user` group, so a reopened document can undo it too). Default
    /// `false`: Core Data's behaviour, a `ChangeGroupKind.batch` group no undo reaches.
    public var registersUndo = false
    /// The name of the saved group and of the undo action; nil: "Batch Insert <Entity>".
    /// (`strata import` names its insert "Import <Entity>".)
    public var actionName: String?

    /// Creates a request inserting these rows.
    public init(entityName: String, objects: [[String: PropertyValue]]) {
        self.entityName = entityName
        self.objectsToInsert = objects
    }

    /// Creates a request whose rows a handler fills one at a time, until it returns `true`.
    ///
    /// ```swift
    /// var next = 0
    /// let request = BatchInsertRequest(entityName: "Employee") { row in
    ///     guard next < names.count else { return true }
    ///     row["name"] = .string(names[next])
    ///     next += 1
    ///     return false
    /// }
    /// ```
    public init(entityName: String, dictionaryHandler: @escaping (inout [String: PropertyValue]) throws -> Bool) {
        self.entityName = entityName
        self.dictionaryHandler = dictionaryHandler
    }

    /// Creates a request whose rows a handler fills by slot, until it returns `true`.
    package init(entityName: String, slotRowHandler: @escaping (inout StoreBatchInsert.Row) throws -> Bool) {
        self.entityName = entityName
        self.slotRowHandler = slotRowHandler
    }

    /// Creates a request whose rows a handler sets on one reusable object, until it
    /// returns `true`.
    public init(entityName: String, managedObjectHandler: @escaping (ManagedObject) throws -> Bool) {
        self.entityName = entityName
        self.managedObjectHandler = managedObjectHandler
    }
}

extension BatchInsertRequest: CustomStringConvertible {
    /// `BatchInsertRequest(Employee, 3 rows)`, for logs.
    public var description: String {
        if let objectsToInsert { return "BatchInsertRequest(\(entityName), \(objectsToInsert.count) rows)" }
        return "BatchInsertRequest(\(entityName), rows from a handler)"
    }
}
