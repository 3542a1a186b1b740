import Foundation

extension DocumentStore {
    /// A computed dictionary fetch answered by SQLite over the snapshot tables, or nil
    /// when SQL cannot give the whole answer (changes not yet compacted into the snapshot,
    /// a construct ``ComputedFetchSQL`` leaves to memory): the caller then computes it in
    /// memory over the records.
    func computedDictionaries(_ request: FetchRequest<ManagedObject>, entity: EntityDescription) throws -> [[String: PropertyValue]]? {
        try withOpenState { state in
            guard state.overlay.isEmpty,
                  let built = try ComputedFetchSQL(schema: schema, storeTag: tag, limits: configuration.limits).build(request, entity: entity)
            else { return nil }
            return try ComputedFetchSQL.dictionaries(try built.query.rows(on: state.connection), built)
        }
    }

    /// The statement a computed fetch runs, or nil when it is computed in memory (for
    /// tests and diagnostics).
    package func computedFetchQuery(_ request: FetchRequest<ManagedObject>) throws -> String? {
        guard let entity = model.entitiesByName[request.entityName] else { return nil }
        return try withOpenState { state in
            guard state.overlay.isEmpty else { return nil }
            return try ComputedFetchSQL(schema: schema, storeTag: tag, limits: configuration.limits).build(request, entity: entity)?.query.sql
        }
    }
}
