import Foundation

extension ManagedObjectContext {
    /// Runs a batch update in the stores, without loading objects (Core Data's
    /// `execute(NSBatchUpdateRequest)`).
    ///
    /// ```swift
    /// let request = BatchUpdateRequest(entityName: "Employee",
    ///                                   predicate: try FetchPredicate(format: "salary < %d", 40_000),
    ///                                   propertiesToUpdate: ["salary": 40_000])
    /// let result = try context.executeBatch(request)
    /// print("\(result.count) raised")
    /// try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context])
    /// ```
    ///
    /// The context's unsaved changes play no part and its registered objects keep their
    /// values until the result is merged. The operations are saved as one
    /// `ChangeGroupKind.batch` group ("Batch Update Employee"), not on the undo stack.
    /// Values may be expressions over each record (`salary * 2`, `lowercase:(email)`,
    /// `now()`), computed from the record's values before the update; the log records the
    /// computed old and new values (see ``BatchUpdateRequest``). Derived attributes the
    /// update changes an input of (the records' own, and those of records whose derivation
    /// reads them) are recomputed in the same group, and their records are in
    /// ``BatchResult/changes``; a derived attribute cannot be set.
    /// - Throws: `.unknownKey` for an unknown entity or key (naming it), `.invalidArgument`
    ///   for a relationship or transient key, `.typeMismatch` for a value that does not fit
    ///   the attribute's type (naming the key, and the record for a computed value),
    ///   `.validation` for a value outside the model's constraints, `.predicateEvaluation`
    ///   for an expression that cannot be computed for a record; predicate and store
    ///   errors. Nothing is written when it throws.
    /// - Complexity: the store's fetch, plus O(matched records) row reads and operations.
    public func executeBatch(_ request: BatchUpdateRequest) throws -> BatchResult {
        enter()
        let entity = try batchEntity(named: request.entityName, role: "batch update")
        guard !request.propertiesToUpdate.isEmpty else {
            throw StrataError(.invalidArgument, "The batch update of '\(entity.name)' sets no property.",
                              context: .init { $0.entity = entity.name })
        }
        var assignments: [Int: FetchExpression] = [:]
        for (key, value) in request.propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
            let (slot, checked) = try BatchUpdateValues.assignment(value, forKey: key, of: entity)
            assignments[slot] = checked
        }
        // One instant for `now()` in the predicate, in the values and as the group's time.
        let now = Date()
        let fetch = StoreFetchRequest(entity: entity, includesSubentities: request.includesSubentities,
                                      predicate: request.predicate?.replacingNow(with: now))
        return try runBatch(fetch, action: .update(assignments), actionName: "Batch Update \(entity.name)",
                            resultType: request.resultType, registersUndo: request.registersUndo, timestamp: now)
    }

    /// Runs a batch delete in the stores, without loading objects (Core Data's
    /// `execute(NSBatchDeleteRequest)`), applying the model's delete rules in the store
    /// (see ``BatchDeleteRequest``). Derived attributes that read the deleted records (a
    /// department's `employees.@count`) are recomputed in the same group.
    ///
    /// ```swift
    /// let result = try context.executeBatch(BatchDeleteRequest(entityName: "Project",
    ///                                                          predicate: try FetchPredicate(format: "deadline < %@", .value(.date(cutoff)))))
    /// try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context])
    /// ```
    /// - Throws: `.unknownKey` for an unknown entity, `.invalidArgument` for a negative
    ///   limit or offset, `.validation` naming the record and relationship when a deny rule
    ///   refuses the delete (nothing is deleted then); predicate and store errors.
    /// - Complexity: the store's fetch, plus O(deleted records + their relationships).
    public func executeBatch(_ request: BatchDeleteRequest) throws -> BatchResult {
        enter()
        let entity = try batchEntity(named: request.entityName, role: "batch delete")
        for (name, value) in [("fetchLimit", request.fetchLimit), ("fetchOffset", request.fetchOffset)] where value < 0 {
            throw StrataError(.invalidArgument, "The batch delete's \(name) is \(value); it must not be negative.",
                              context: .init { $0.entity = entity.name; $0.key = name })
        }
        let fetch = StoreFetchRequest(entity: entity, includesSubentities: request.includesSubentities,
                                      predicate: request.predicate, sortDescriptors: request.sortDescriptors,
                                      fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset)
        return try runBatch(fetch, action: .delete, actionName: "Batch Delete \(entity.name)", resultType: request.resultType,
                            registersUndo: request.registersUndo)
    }

    // MARK: Pieces

    func batchEntity(named name: String, role: String) throws -> EntityDescription {
        guard let entity = model.entitiesByName[name] else {
            throw StrataError(.unknownKey, "The \(role) names the entity \(input: name), which is not in the model.",
                              context: .init { $0.entity = name })
        }
        return entity
    }

    /// Runs the request in every store holding records of the entity, under the
    /// coordinator's save lock, and gathers the outcomes. With `registersUndo` the group is
    /// saved as a `ChangeGroupKind.user` group, becomes one undo group of this context
    /// and is merged into it (undo must start from the records' new values).
    func runBatch(_ fetch: StoreFetchRequest, action: StoreBatchRequest.Action, actionName: String,
                  resultType: BatchResultType, registersUndo: Bool, timestamp: Date = Date()) throws -> BatchResult {
        if registersUndo { try undoManager?.prepareForBatchRequest() }
        let entities = fetch.includesSubentities ? fetch.entity.selfAndDescendants : [fetch.entity]
        var stores: [any PersistentStore] = []
        for entity in entities {
            guard let store = try? coordinator.store(for: entity), !stores.contains(where: { $0 === store }) else { continue }
            stores.append(store)
        }
        guard !stores.isEmpty else {
            throw StrataError(.noStore, "No store holds records of entity '\(fetch.entity.name)'.",
                              context: .init { $0.entity = fetch.entity.name })
        }
        let request = StoreBatchRequest(fetch: fetch, action: action, groupID: coordinator.allocateGroupID(), actionName: actionName,
                                        timestamp: timestamp, kind: registersUndo ? .user : .batch)
        var matched: [ManagedObjectID] = []
        var count = 0
        var changes = SaveChanges()
        var saved: [(id: UInt64, operations: [ChangeOperation])] = []
        // A document whose log holds the whole group: undo reads the operations from there.
        var logged: DocumentStore?
        try coordinator.withSaveLock {
            for store in stores {
                let outcome = if let batchStore = store as? any BatchExecutingStore {
                    try batchStore.executeBatch(request)
                } else {
                    try store.executeBatchThroughRequirements(request)
                }
                count += outcome.count ?? outcome.matched.count
                // The first store's IDs taken as they are (shared, not copied): a batch
                // insert's may be a million.
                if matched.isEmpty { matched = outcome.matched } else { matched += outcome.matched }
                Self.merge(outcome.changes.inserted, into: &changes.inserted)
                Self.merge(outcome.changes.updated, into: &changes.updated)
                Self.merge(outcome.changes.deleted, into: &changes.deleted)
                if let group = outcome.group { saved.append((outcome.savedGroupID ?? group.id, group.operations)) }
                if outcome.readsGroupFromLog, outcome.group != nil { logged = store as? DocumentStore }
            }
            coordinator.noteChanged(changes.updated.union(changes.deleted))
        }
        coordinator.announce(changes, from: nil)
        if registersUndo, let first = saved.first {
            mergeChanges(fromContextDidSave: changes)
            if saved.count == 1, let logged {
                let id = first.id
                undoManager?.registerBatchRequest(id: id, operations: [], stored: { [weak logged] in
                    guard let logged else {
                        throw StrataError(.undo, "The document that saved group \(id) is closed, so the group cannot be undone.",
                                          context: .init { $0.group = id })
                    }
                    return try logged.loggedOperations(ofGroup: id)
                }, actionName: actionName)
            } else {
                undoManager?.registerBatchRequest(id: first.id, operations: saved.flatMap(\.operations), actionName: actionName)
            }
        }
        return BatchResult(resultType: resultType, count: count,
                           objectIDs: resultType == .objectIDs ? matched : [], changes: changes)
    }

    /// Adds `ids` to `set`, taking them as they are when `set` is empty.
    private static func merge(_ ids: Set<ManagedObjectID>, into set: inout Set<ManagedObjectID>) {
        if set.isEmpty { set = ids } else { set.formUnion(ids) }
    }
}
