import Foundation

extension DocumentStore {
    /// Calls `body` with each record a fetch matches and its values, in the fetch's order
    /// and window, without holding the answer: the records stream from one SQLite cursor
    /// over the snapshot tables, merged with the overlay of uncompacted segments as
    /// ``fetchObjectIDs(_:)`` merges them, so the records and their order are the same.
    ///
    /// ```swift
    /// try store.forEachRecord(StoreFetchRequest(entity: employee, sortDescriptors: [FetchSortDescriptor("lastName")])) { id, values in
    ///     print(id, values)
    /// }
    /// ```
    ///
    /// The store is locked while this runs: `body` must not call back into it (another
    /// thread's reads and writes wait until this returns).
    /// - Throws: as ``fetchObjectIDs(_:)``; whatever `body` throws, which stops the fetch.
    /// - Complexity: one SQL query and one indexed read per record; memory holds the
    ///   overlay's matches (bounded by the uncompacted segments), not the answer.
    public func forEachRecord(_ request: StoreFetchRequest, _ body: (ManagedObjectID, [PropertyValue]) throws -> Void) throws {
        try withOpenState { state in
            try DocumentFetch(state: state, schema: schema, storeTag: tag, limits: configuration.limits, request: request)
                .forEachRecord(body)
        }
    }
}

extension DocumentFetch {
    /// ``objectIDs()`` as a stream, with each record's values: the same residual filter,
    /// store window and merge (``StoreFetchMerge/merge(base:overlay:sortDescriptors:offset:limit:matches:sortKeys:)``
    /// places an overlay record before the first base record that does not order before
    /// it; the merge below does that walking the cursor once).
    func forEachRecord(_ body: (ManagedObjectID, [PropertyValue]) throws -> Void) throws {
        let overlay = try overlayCandidates()
        let storeRequest = windowed(overlayCount: overlay.count)
        let plan = try SQLPredicateTranslator(schema: schema, storeTag: storeTag, limits: limits).plan(for: storeRequest)
        let descriptors = request.sortDescriptors

        // The overlay's live matches in the fetch's order: few, so sorted in memory.
        var added: [(id: ManagedObjectID, keys: [PropertyValue], values: [PropertyValue])] = []
        for (id, entry) in overlay {
            guard case .values(let values) = entry, try request.predicate.map({ try matches($0, id, values) }) ?? true else { continue }
            added.append((id, descriptors.isEmpty ? [] : try FetchSortDescriptor.sortKeys(of: subject(id, values), for: descriptors), values))
        }
        added.sort { FetchSortDescriptor.compare(($0.id, $0.keys), ($1.id, $1.keys), by: descriptors) < 0 }

        // The SQL applied the window when nothing is merged in and no residual is left;
        // otherwise it is applied here, to the merged stream, and the base is cut where
        // the store window ends (as ``objectIDs()`` cuts it).
        let sqlWindowed = overlay.isEmpty && plan.appliesWindow
        var skip = sqlWindowed ? 0 : request.fetchOffset
        var remaining = !sqlWindowed && request.fetchLimit > 0 ? request.fetchLimit : Int.max
        let baseCap = !overlay.isEmpty && !plan.appliesWindow ? storeRequest.fetchLimit : 0
        var baseCount = 0
        var stopped = false
        // Hands one merged record on; false once the window is full.
        func emit(_ id: ManagedObjectID, _ values: [PropertyValue]) throws -> Bool {
            if skip > 0 {
                skip -= 1
                return true
            }
            try body(id, values)
            remaining -= 1
            if remaining == 0 { stopped = true }
            return !stopped
        }

        var scopes = ObjectIDScopeCache()
        var next = 0
        try plan.select.forEachRow(on: state.connection) { row in
            guard row.columnCount >= 2, case .integer(let pk) = row.value(at: 0), case .integer(let index) = row.value(at: 1),
                  let entity = schema.model.entities[safe: Int(index)] else { return true }
            let id = scopes.id(entity, storeTag: storeTag, primaryKey: pk)
            let values = try state.currentValues(id)
            if let residual = plan.residual {
                guard let values, try matches(residual, id, values) else { return true }
            }
            if baseCap > 0 {
                guard baseCount < baseCap else { return false }
                baseCount += 1
            }
            guard overlay[id] == nil, let values else { return true }
            if next < added.count {
                let keys = descriptors.isEmpty ? [] : try FetchSortDescriptor.sortKeys(of: subject(id, values), for: descriptors)
                while next < added.count, FetchSortDescriptor.compare((id, keys), (added[next].id, added[next].keys), by: descriptors) >= 0 {
                    guard try emit(added[next].id, added[next].values) else { return false }
                    next += 1
                }
            }
            return try emit(id, values)
        }
        while !stopped, next < added.count {
            guard try emit(added[next].id, added[next].values) else { break }
            next += 1
        }
    }
}
