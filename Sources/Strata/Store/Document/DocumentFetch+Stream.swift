import Foundation

extension DocumentStore {
    /// Hands each matching record to `body` as the SQL cursor reads it, in order, within
    /// the window, when the fetch is a plain read of the snapshot: no uncompacted overlay,
    /// no residual predicate, the window applied in SQL, one entity without sub-entities
    /// or persistent to-manys. Returns false without reading anything otherwise (the caller reads with
    /// ``fetchRecords(_:)``). Nothing holds the rows but `body`, so a big fetch never has
    /// a list of every row at once (docs/ARCHITECTURE.md, "Objects' values: owned or a
    /// row of a fetched batch").
    func streamRecords(_ request: StoreFetchRequest, _ body: (ManagedObjectID, [PropertyValue]) throws -> Void) throws -> Bool {
        try withOpenState { state in
            try DocumentFetch(state: state, schema: schema, storeTag: tag, limits: configuration.limits, request: request)
                .streamRecords(body)
        }
    }
}

extension DocumentFetch {
    /// ``DocumentStore/streamRecords(_:_:)`` on this fetch's state.
    func streamRecords(_ body: (ManagedObjectID, [PropertyValue]) throws -> Void) throws -> Bool {
        let entity = request.entity
        guard state.overlay.isEmpty, entity.subentities.isEmpty,
              let layout = schema.rowLayouts[entity.rootEntityIndex], let decoder = layout.decoders[entity.index],
              decoder.toManySlots.isEmpty, try overlayCandidates().isEmpty else { return false }
        let plan = try SQLPredicateTranslator(schema: schema, storeTag: storeTag, limits: limits)
            .plan(for: windowed(overlayCount: 0), selectingValues: true)
        guard plan.residual == nil, plan.appliesWindow else { return false }
        let reader = state.rowReader
        let entityIndex = Int64(entity.index)
        var scopes = ObjectIDScopeCache()
        try plan.select.forEachCachedRow(on: state.connection) { statement in
            // A row of another entity of the hierarchy is not a result (as in records()).
            guard statement.int64(at: 1) == entityIndex else { return }
            let id = scopes.id(entity, storeTag: storeTag, primaryKey: statement.int64(at: 0))
            try body(id, try reader.decodeColumns(statement, from: 2, decoder, scopes: &scopes))
        }
        return true
    }
}
