import Foundation

extension ManagedObjectContext {
    /// Inserts rows in the store without building managed objects (Core Data's
    /// `execute(NSBatchInsertRequest)`); see ``BatchInsertRequest``.
    ///
    /// ```swift
    /// let request = BatchInsertRequest(entityName: "Employee", objects: [["name": "Ada"], ["name": "Alan"]])
    /// let result = try context.executeBatch(request)
    /// try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context])
    /// ```
    ///
    /// The rows' derived attributes, and those of the records they join (a department's
    /// `employees.@count`), are computed in the same group; a row's value for a derived
    /// attribute is replaced. The context's unsaved changes play no part. Contexts see the new records once they
    /// merge ``BatchResult/changes`` (fetches go to the store and find them; registered
    /// objects are not touched; with `.statusOnly` the changes list no inserted records, as
    /// Core Data's status result holds no IDs, and a fetched results controller sees them
    /// at its next `performFetch()`). With ``BatchInsertRequest/registersUndo`` the insert is
    /// merged into this context and becomes one undo group of its undo manager.
    /// - Throws: `.unknownKey` for an unknown entity or a row's unknown key;
    ///   `.invalidArgument` for an abstract entity, a request without rows or handler, a
    ///   transient key; `.typeMismatch` and `.validation` naming the row (from 1) and key;
    ///   the handler's error; `.undo` for an undoable request inside an open undo group;
    ///   `.constraintConflict` for rows whose uniqueness keys are taken, under this context's
    ///   ``mergePolicy`` `.error` (other policies merge them into the records holding the
    ///   keys: docs/SEMANTICS.md, "Batch inserts and uniqueness
    ///   constraints"); store errors. Nothing is written when it throws.
    /// - Complexity: O(rows + the existing records the rows relate to); memory bounded by
    ///   a chunk of rows for a document, plus the inserted IDs unless the result type is
    ///   `.statusOnly` (then ``BatchResult/changes`` lists no inserts). An undoable insert into a
    ///   document that keeps its whole log (retention `.all`, the default) holds no
    ///   operations: undo reads them back from the log; elsewhere the undo group holds them.
    public func executeBatch(_ request: BatchInsertRequest) throws -> BatchResult {
        enter()
        let entity = try batchEntity(named: request.entityName, role: "batch insert")
        guard !entity.isAbstract else {
            throw StrataError(.invalidArgument, "The batch insert names the abstract entity '\(entity.name)'; records of it cannot be inserted.",
                              context: .init { $0.entity = entity.name })
        }
        let rows = try batchInsertRows(request, entity: entity)
        rows.mergePolicy = mergePolicy
        rows.listing = switch request.resultType {
        case .statusOnly: .none
        case .count: .set
        case .objectIDs: .ordered
        }
        let fetch = StoreFetchRequest(entity: entity, includesSubentities: false)
        return try runBatch(fetch, action: .insert(rows), actionName: request.actionName ?? "Batch Insert \(entity.name)",
                            resultType: request.resultType, registersUndo: request.registersUndo)
    }

    /// Reserves permanent IDs for records of an entity, for rows of a batch insert that
    /// other rows of the same request name (``BatchInsertRequest/objectIDKey``). The keys
    /// are taken from the store's counter at once (durably for a document), so no other
    /// insert gets them; an ID never used stays unused.
    ///
    /// - Throws: `.unknownKey` for an unknown entity, `.invalidArgument` for an abstract one
    ///   or a negative count, `.noStore`; store errors.
    public func reserveObjectIDs(forEntityName name: String, count: Int) throws -> [ManagedObjectID] {
        enter()
        let entity = try batchEntity(named: name, role: "reservation")
        guard !entity.isAbstract, count >= 0 else {
            throw StrataError(.invalidArgument, "Cannot reserve \(count) IDs of entity \(input: name)\(entity.isAbstract ? ", which is abstract" : "").",
                              context: .init { $0.entity = name })
        }
        guard count > 0 else { return [] }
        let store = try coordinator.store(for: entity)
        return try store.allocatePrimaryKeys(for: entity, count: count).map { store.objectID(for: entity, primaryKey: $0) }
    }

    /// The request's rows as the store pulls them, each checked when pulled.
    private func batchInsertRows(_ request: BatchInsertRequest, entity: EntityDescription) throws -> StoreBatchInsert {
        let checker = BatchInsertRowChecker(entity: entity)
        if let objects = request.objectsToInsert {
            var index = 0
            return StoreBatchInsert(entity: entity) {
                guard index < objects.count else { return nil }
                index += 1
                return try checker.row(objects[index - 1], number: index)
            }
        }
        if let handler = request.dictionaryHandler {
            var number = 0
            var done = false
            var row: [String: PropertyValue] = [:]
            return StoreBatchInsert(entity: entity) {
                guard !done else { return nil }
                // One dictionary for every row: emptied, its storage kept.
                row.removeAll(keepingCapacity: true)
                if try handler(&row) {
                    done = true
                    return nil
                }
                number += 1
                return try checker.row(row, number: number)
            }
        }
        if let handler = request.slotRowHandler {
            var number = 0
            var done = false
            return StoreBatchInsert(entity: entity) {
                guard !done else { return nil }
                var row = StoreBatchInsert.Row(values: checker.template)
                if try handler(&row) {
                    done = true
                    return nil
                }
                number += 1
                return try checker.row(slots: row, number: number)
            }
        }
        if let handler = request.managedObjectHandler {
            // One object, inserted in a scratch context that is never saved, so that the
            // handler sets values with the usual checks; the executing context never sees it.
            let scratch = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
            let object = model.objectClass(forEntity: entity).init(entity: entity, insertInto: scratch)
            var number = 0
            var done = false
            return StoreBatchInsert(entity: entity) {
                // The object holds its context weakly: the source keeps it alive.
                guard !done, object.context === scratch else { return nil }
                object.storage = ObjectValues(checker.template)
                if try handler(object) {
                    done = true
                    return nil
                }
                number += 1
                var row = object.storage.array
                try checker.check(&row, number: number)
                return StoreBatchInsert.Row(values: row)
            }
        }
        throw StrataError(.invalidArgument, "The batch insert of '\(entity.name)' has no rows: set objectsToInsert, dictionaryHandler or managedObjectHandler.",
                          context: .init { $0.entity = entity.name })
    }
}
