import Foundation

extension ManagedObjectContext {
    /// A computed dictionary fetch (``FetchRequest/isComputedFetch``): SQLite computes it
    /// over the snapshot when the answer is the store's alone, otherwise it is computed in
    /// memory over the matching records with their current values (docs/SEMANTICS.md
    /// "Computed and grouped fetches").
    func fetchComputedDictionaries(_ request: FetchRequest<ManagedObject>) throws -> [[String: PropertyValue]] {
        let resolved = try request.resolve(in: model)
        let records = try Self.recordsRequest(of: request).resolve(in: model)
        if request.includesPendingChanges { processPendingChanges() }
        if parent == nil, !request.includesPendingChanges || !hasChanges {
            let stores = try self.stores(serving: records)
            // A pinned generation is computed in memory over its records, below.
            if stores.count == 1, stores[0].generation == nil, let document = stores[0].store as? DocumentStore,
               let answer = try document.computedDictionaries(request, entity: resolved.entity) {
                return answer
            }
        }
        let ids = try matchingIDs(records, windowed: false)
        let source = currentRowSource(includingPending: request.includesPendingChanges)
        var subjects: [any PredicateSubject] = []
        subjects.reserveCapacity(ids.count)
        for id in ids {
            guard let values = try source(id) else { continue }
            subjects.append(RowSubject(objectID: id, values: values, rowSource: source))
        }
        return try ComputedFetch(request: request, entity: resolved.entity).rows(subjects)
    }

    /// The request that finds the records a computed fetch reduces: its entity, predicate
    /// and sub-entity and pending-change settings, without order, window or properties.
    static func recordsRequest(of request: FetchRequest<ManagedObject>) -> FetchRequest<ManagedObject> {
        let records = request.copy()
        records.sortDescriptors = []
        (records.fetchLimit, records.fetchOffset) = (0, 0)
        records.propertiesToFetch = nil
        records.propertiesToGroupBy = nil
        records.havingPredicate = nil
        records.returnsDistinctResults = false
        records.resultType = .managedObjectID
        return records
    }

    /// The values of any record: with pending changes, a registered object's current values
    /// (none for a deleted one), so key paths through relationships see unsaved changes of
    /// related objects too; otherwise, and for records not loaded, the stored ones.
    func currentRowSource(includingPending: Bool) -> (ManagedObjectID) throws -> [PropertyValue]? {
        let stored = storeRowSource
        guard includingPending else { return stored }
        return { [self] id in
            if let object = self.registeredObject(for: id), !object.state.isFault, !object.state.isInvalid {
                return object.state.isDeleted ? nil : object.storage.array
            }
            return try stored(id)
        }
    }
}
