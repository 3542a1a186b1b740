import Foundation

/// Deletes every record matching a predicate, in the store, without loading objects: Core
/// Data's `NSBatchDeleteRequest`.
///
/// ```swift
/// let cleanup = BatchDeleteRequest(entityName: "Employee",
///                                  predicate: try FetchPredicate(format: "active == NO"))
/// let result = try context.executeBatch(cleanup)
/// try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context])
/// ```
///
/// **Delete rules are applied in the store**, unlike Core Data's batch delete, so that the
/// graph stays consistent: for every deleted record, a `cascade` relationship deletes its
/// destinations (recursively), a `nullify` relationship removes the record from its
/// surviving destinations' inverse relationship (update and relate operations on those
/// records), a `deny` relationship with a surviving destination refuses the whole request
/// with a `.validation` error naming the record and the relationship, and `noAction` leaves
/// the destinations alone. Every operation — the deletes carry the records' full values —
/// is saved as one segment group of kind `ChangeGroupKind.batch` named
/// "Batch Delete <Entity>", so history, replay and compaction see it.
///
/// The context's unsaved changes are not taken into account; registered objects stay until
/// the changes are merged (``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)-([String:[ManagedObjectID]],_)``).
public final class BatchDeleteRequest {
    /// The name of the entity whose records are deleted.
    public var entityName: String
    /// Which records are deleted; nil deletes every record of the entity.
    public var predicate: FetchPredicate?
    /// Whether records of sub-entities are deleted too (default `true`).
    public var includesSubentities = true
    /// The order the matching records are taken in, for a limit or offset (default: ID order).
    public var sortDescriptors: [FetchSortDescriptor] = []
    /// The most records deleted (before cascades); 0 (the default) means no limit.
    public var fetchLimit = 0
    /// How many matching records to skip first (default 0).
    public var fetchOffset = 0
    /// What ``BatchResult`` reports (default `.count`).
    public var resultType: BatchResultType = .count
    /// Whether the delete becomes one undo group of the executing context (saved as a
    /// `ChangeGroupKind.user` group that a reopened document can undo too; undo restores
    /// the old records with their relationships). Default `false`: Core Data's behaviour, a
    /// `ChangeGroupKind.batch` group no undo reaches.
    public var registersUndo = false

    /// Creates a batch delete request.
    ///
    /// - Parameters:
    ///   - entityName: the entity whose records are deleted.
    ///   - predicate: which records; nil for all.
    public init(entityName: String, predicate: FetchPredicate? = nil) {
        self.entityName = entityName
        self.predicate = predicate
    }

    /// Creates a batch delete request for the records a fetch request matches: its entity,
    /// predicate, sub-entity setting, order, limit and offset (pending changes and the
    /// result type of the fetch request play no part).
    ///
    /// ```swift
    /// let oldest = FetchRequest(entityName: "Project", sortDescriptors: [FetchSortDescriptor("deadline")])
    /// oldest.fetchLimit = 10
    /// try context.executeBatch(BatchDeleteRequest(fetchRequest: oldest))
    /// ```
    public convenience init<ResultType>(fetchRequest: FetchRequest<ResultType>) {
        self.init(entityName: fetchRequest.entityName, predicate: fetchRequest.predicate)
        includesSubentities = fetchRequest.includesSubentities
        sortDescriptors = fetchRequest.sortDescriptors
        fetchLimit = fetchRequest.fetchLimit
        fetchOffset = fetchRequest.fetchOffset
    }
}

extension BatchDeleteRequest: CustomStringConvertible {
    /// `BatchDeleteRequest(Employee where active == NO)`, for logs.
    public var description: String {
        var text = "BatchDeleteRequest(\(entityName)"
        if let predicate { text += " where \(predicate.predicateFormat)" }
        if fetchOffset > 0 { text += " offset \(fetchOffset)" }
        if fetchLimit > 0 { text += " limit \(fetchLimit)" }
        return text + ")"
    }
}
