import Foundation

extension DocumentStore {
    /// ``forEachRecord(_:_:)`` for writers that print each value once: each record as a
    /// ``StoredRecordRow``, read column by column from the cursor when the snapshot row is
    /// all of the record, so no `PropertyValue` row is built for it (docs/BENCHMARKS.md,
    /// W13). The records, their order and their values are ``forEachRecord(_:_:)``'s.
    ///
    /// The store is locked while this runs: `body` must not call back into it.
    /// - Throws: as ``forEachRecord(_:_:)``.
    package func forEachStoredRow(_ request: StoreFetchRequest, _ body: (StoredRecordRow) throws -> Void) throws {
        try withOpenState { state in
            try DocumentFetch(state: state, schema: schema, storeTag: tag, limits: configuration.limits, request: request)
                .forEachStoredRow(body)
        }
    }
}

extension DocumentFetch {
    /// ``forEachRecord(_:)`` with each record as a ``StoredRecordRow``.
    ///
    /// The rows are read in place (``SnapshotColumnCursor``) when the cursor's row is the
    /// whole record and the SQL gives the answer as it is: nothing uncompacted to merge
    /// (the overlay is empty), no residual filter (the SQL applies the window), and no
    /// persistent to-many in the table's entities (their members are filled a batch at a
    /// time, which holds the rows). Otherwise the records come from ``forEachRecord(_:)``
    /// with their values.
    func forEachStoredRow(_ body: (StoredRecordRow) throws -> Void) throws {
        func withValues() throws {
            try forEachRecord { id, values in try body(StoredRecordRow(id: id, values: values)) }
        }
        guard state.overlay.isEmpty, let layout = schema.rowLayouts[request.entity.rootEntityIndex],
              layout.decoders.values.allSatisfy({ $0.toManySlots.isEmpty }) else { return try withValues() }
        let plan = try SQLPredicateTranslator(schema: schema, storeTag: storeTag, limits: limits)
            .plan(for: request, selectingValues: true)
        guard plan.residual == nil else { return try withValues() }

        let reader = state.rowReader
        var scopes = ObjectIDScopeCache()
        // The rows of one fetch are nearly always of one entity: it is kept.
        var current: (index: Int, entity: EntityDescription)?
        var cursor: SnapshotColumnCursor?
        try plan.select.forEachRow(on: state.connection) { statement in
            let index = Int(statement.int64(at: 1))
            if current?.index != index {
                guard let entity = schema.model.entities[safe: index], let decoder = layout.decoders[index] else { return true }
                current = (index, entity)
                if let cursor {
                    cursor.use(entityIndex: index, decoder: decoder)
                } else {
                    cursor = SnapshotColumnCursor(statement: statement, offset: 2, reader: reader, entityIndex: index, decoder: decoder)
                }
            }
            guard let entity = current?.entity, let cursor else { return true }
            let id = scopes.id(entity, storeTag: storeTag, primaryKey: statement.int64(at: 0))
            try body(StoredRecordRow(id: id, cursor: cursor))
            return true
        }
    }
}
