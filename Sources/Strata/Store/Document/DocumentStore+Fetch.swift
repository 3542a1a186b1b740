import Foundation

extension DocumentStore {
    /// The matching records, in order, within the window: SQL over the snapshot tables,
    /// merged with the overlay of uncompacted segments (``StoreFetchMerge``).
    ///
    /// - Complexity: one SQL query (indexed where the predicate allows), plus in-memory
    ///   evaluation of the overlay records the fetch could see.
    public func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        try withOpenState { state in
            try DocumentFetch(state: state, schema: schema, storeTag: tag, limits: configuration.limits, request: request).objectIDs()
        }
    }

    /// The matching records with their values, in order, within the window: the IDs and
    /// the values come from the same SQL statement, to-many members from one statement per
    /// relationship, and the overlay of uncompacted segments wins as in
    /// ``fetchObjectIDs(_:)``.
    ///
    /// - Complexity: 1 + T statements for an entity with T persistent to-many
    ///   relationships, whatever the number of records (docs/ARCHITECTURE.md, "Reads: one
    ///   pass from SQL to objects").
    public func fetchRecords(_ request: StoreFetchRequest) throws -> [StoreRecord] {
        try withOpenState { state in
            try DocumentFetch(state: state, schema: schema, storeTag: tag, limits: configuration.limits, request: request).records()
        }
    }

    /// The number of matching records, limit and offset applied.
    public func countObjects(_ request: StoreFetchRequest) throws -> Int {
        try withOpenState { state in
            try DocumentFetch(state: state, schema: schema, storeTag: tag, limits: configuration.limits, request: request).count()
        }
    }
}

/// One fetch against a document: translation, SQL, residual and overlay merge.
struct DocumentFetch {
    let state: DocumentState
    let schema: SnapshotSchema
    let storeTag: UInt32
    let limits: StrataLimits
    let request: StoreFetchRequest

    private var entities: Set<ObjectIdentifier> {
        Set((request.includesSubentities ? request.entity.selfAndDescendants : [request.entity]).map(ObjectIdentifier.init))
    }

    func objectIDs() throws -> [ManagedObjectID] {
        let overlay = try overlayCandidates()
        let plan = try SQLPredicateTranslator(schema: schema, storeTag: storeTag, limits: limits).plan(for: windowed(overlayCount: overlay.count))
        var base = try ids(plan.select.rows(on: state.connection))
        if let residual = plan.residual {
            base = try base.filter { try matches(residual, $0, nil) }
        }
        if overlay.isEmpty {
            return plan.appliesWindow ? base
                : StoreFetchMerge.window(base, offset: request.fetchOffset, limit: request.fetchLimit)
        }
        if !plan.appliesWindow {
            base = StoreFetchMerge.window(base, offset: 0, limit: windowed(overlayCount: overlay.count).fetchLimit)
        }
        return try StoreFetchMerge.merge(
            base: base, overlay: overlay, sortDescriptors: request.sortDescriptors,
            offset: request.fetchOffset, limit: request.fetchLimit,
            matches: { id, values in try request.predicate.map { try matches($0, id, values) } ?? true },
            sortKeys: { id, values in
                let row = try values ?? state.currentValues(id) ?? []
                return try FetchSortDescriptor.sortKeys(of: subject(id, row), for: request.sortDescriptors)
            })
    }

    func count() throws -> Int {
        let overlay = try overlayCandidates()
        let plan = try SQLPredicateTranslator(schema: schema, storeTag: storeTag, limits: limits).plan(for: unwindowed())
        if overlay.isEmpty, plan.residual == nil {
            guard case .integer(let total)? = try plan.count.rows(on: state.connection).first?.first else { return 0 }
            return StoreFetchMerge.windowCount(total: Int(total), offset: request.fetchOffset, limit: request.fetchLimit)
        }
        var base = try ids(plan.select.rows(on: state.connection))
        if let residual = plan.residual { base = try base.filter { try matches(residual, $0, nil) } }
        var total = base.filter { overlay[$0] == nil }.count
        for (id, entry) in overlay {
            guard case .values(let values) = entry else { continue }
            if try request.predicate.map({ try matches($0, id, values) }) ?? true { total += 1 }
        }
        return StoreFetchMerge.windowCount(total: total, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    // MARK: Pieces

    func windowed(overlayCount: Int) -> StoreFetchRequest {
        guard overlayCount > 0 else { return request }
        var copy = request
        let window = StoreFetchMerge.storeWindow(offset: request.fetchOffset, limit: request.fetchLimit, overlayCount: overlayCount)
        (copy.fetchOffset, copy.fetchLimit) = (window.offset, window.limit)
        return copy
    }

    private func unwindowed() -> StoreFetchRequest {
        var copy = request
        (copy.fetchOffset, copy.fetchLimit) = (0, 0)
        return copy
    }

    private func ids(_ rows: [[SQLiteValue]]) -> [ManagedObjectID] {
        var scopes = ObjectIDScopeCache()
        return rows.compactMap { row in
            guard row.count >= 2, case .integer(let pk) = row[0], case .integer(let index) = row[1],
                  let entity = schema.model.entities[safe: Int(index)] else { return nil }
            return scopes.id(entity, storeTag: storeTag, primaryKey: pk)
        }
    }

    func subject(_ id: ManagedObjectID, _ values: [PropertyValue]) -> RowSubject {
        RowSubject(objectID: id, values: values) { [state] in try state.currentValues($0) }
    }

    func matches(_ predicate: FetchPredicate, _ id: ManagedObjectID, _ values: [PropertyValue]?) throws -> Bool {
        guard let row = try values ?? state.currentValues(id) else { return false }
        return try predicate.evaluate(with: subject(id, row))
    }

    /// The records of the fetched entities whose answer the snapshot may get wrong: those
    /// the overlay holds, and those a key path of the predicate or the sort can reach from
    /// them (as many relationship hops as the longest key path has).
    func overlayCandidates() throws -> [ManagedObjectID: StoreFetchMerge.Overlay<[PropertyValue]>] {
        let overlay = state.overlay
        guard !overlay.isEmpty else { return [:] }
        var reached = Set(overlay.rows.keys).union(overlay.deleted)
        var frontier = Array(reached)
        for _ in 0..<hops() {
            var next: [ManagedObjectID] = []
            for id in frontier {
                guard let row = try state.currentValues(id) else { continue }
                for value in row {
                    for neighbour in value.objectIDs where reached.insert(neighbour).inserted { next.append(neighbour) }
                }
            }
            if next.isEmpty { break }
            frontier = next
        }
        let wanted = entities
        var result: [ManagedObjectID: StoreFetchMerge.Overlay<[PropertyValue]>] = [:]
        for id in reached where wanted.contains(ObjectIdentifier(id.entity)) && request.primaryKeyAfter.map({ id.primaryKey > $0 }) ?? true {
            if let row = try state.currentValues(id) { result[id] = .values(row) } else { result[id] = .deleted }
        }
        return result
    }

    /// An upper bound of the relationship hops the predicate and sort key paths take, from
    /// their expression trees (``FetchPredicate/relationshipHops``). No cap: a key path of
    /// six components needs five hops, and the walk above stops once nothing new is reached.
    private func hops() -> Int {
        request.sortDescriptors.reduce(request.predicate?.relationshipHops ?? 0) { deepest, descriptor in
            max(deepest, FetchExpression.components(of: descriptor.keyPath) - 1)
        }
    }
}
