import Foundation

extension ManagedObjectContext {
    /// Calls `body` with each saved record a fetch matches and its stored values (by
    /// slot, as ``PersistentStore/values(for:)-(ManagedObjectID)`` gives them), in the request's order and
    /// window, loading no object: for answers too large to hold (`strata fetch` and
    /// `strata export` print 200,000 records in constant memory with it).
    ///
    /// ```swift
    /// let request = FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("lastName")])
    /// try context.forEachStoredRecord(matching: request) { id, values in
    ///     print(id, values)
    /// }
    /// ```
    ///
    /// It reads what the context's source holds, as a fetch with
    /// ``FetchRequest/includesPendingChanges`` false does: this context's unsaved changes
    /// are not seen. When one ``DocumentStore`` serves the entity (the context neither a
    /// child nor pinned to a query generation) the records stream from one SQLite cursor
    /// and memory does not grow with their number; otherwise the matching IDs are
    /// gathered first and each record's values read as it is handed on.
    /// `body` must not use the store (it is locked while the records stream).
    /// - Throws: as ``fetch(_:)``; whatever `body` throws, which stops the fetch.
    public func forEachStoredRecord<ResultType>(matching request: FetchRequest<ResultType>, _ body: (ManagedObjectID, [PropertyValue]) throws -> Void) throws {
        enter()
        let resolved = try request.resolve(in: model)
        if let document = try streamingStore(for: resolved) {
            return try document.forEachRecord(resolved.storeRequest, body)
        }
        try forEachSourceRecord(resolved, body)
    }

    /// ``forEachStoredRecord(matching:_:)`` with each record as a ``StoredRecordRow``: read
    /// column by column from the snapshot cursor where the record is all there
    /// (``DocumentStore/forEachStoredRow(_:_:)``), from its values otherwise. For writers
    /// that print each value once (`strata fetch`, `strata export`).
    /// - Throws: as ``forEachStoredRecord(matching:_:)``.
    package func forEachStoredRow<ResultType>(matching request: FetchRequest<ResultType>, _ body: (StoredRecordRow) throws -> Void) throws {
        enter()
        let resolved = try request.resolve(in: model)
        if let document = try streamingStore(for: resolved) {
            return try document.forEachStoredRow(resolved.storeRequest, body)
        }
        try forEachSourceRecord(resolved) { id, values in try body(StoredRecordRow(id: id, values: values)) }
    }

    /// The one ``DocumentStore`` that serves the request with a cursor: the context
    /// neither a child nor pinned to a query generation; nil otherwise.
    private func streamingStore(for resolved: ResolvedFetchRequest) throws -> DocumentStore? {
        let stores = try self.stores(serving: resolved)
        guard parent == nil, stores.count == 1, stores[0].generation == nil else { return nil }
        return stores[0].store as? DocumentStore
    }

    /// The matching IDs gathered first, each record's values read as it is handed on.
    private func forEachSourceRecord(_ resolved: ResolvedFetchRequest, _ body: (ManagedObjectID, [PropertyValue]) throws -> Void) throws {
        for id in try matchingIDs(resolved, windowed: true, includingPending: false) {
            guard let values = try sourceValues(for: id) else { continue }
            try body(id, values)
        }
    }
}
