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
    /// - Complexity: one SQL query, plus one per persistent to-many relationship for each
    ///   batch of records; memory holds the overlay's matches (bounded by the uncompacted
    ///   segments) and one batch, not the answer.
    public func forEachRecord(_ request: StoreFetchRequest, _ body: (ManagedObjectID, [PropertyValue]) throws -> Void) throws {
        try withOpenState { state in
            try DocumentFetch(state: state, schema: schema, storeTag: tag, limits: configuration.limits, request: request)
                .forEachRecord(body)
        }
    }
}

extension DocumentFetch {
    /// Records read from the cursor before their to-many members are filled: one
    /// statement per relationship for this many records (``SnapshotRowReader/fillToManys(_:of:)``),
    /// as the batched reads do, instead of one per record.
    static let streamBatchSize = 512

    /// ``objectIDs()`` as a stream, with each record's values: the same residual filter,
    /// store window and merge (``StoreFetchMerge/merge(base:overlay:sortDescriptors:offset:limit:matches:sortKeys:)``
    /// places an overlay record before the first base record that does not order before
    /// it; the merge below does that walking the cursor once).
    ///
    /// The values come from the cursor's own row (the plan selects the snapshot columns
    /// after `_pk` and the entity, as ``records()`` does: docs/ARCHITECTURE.md, "Reads: one
    /// pass from SQL to objects"); an entity with persistent to-manys is read a batch of
    /// ``streamBatchSize`` records at a time, its members filled by one statement per
    /// relationship for the batch, so memory holds a batch, not the answer.
    func forEachRecord(_ body: (ManagedObjectID, [PropertyValue]) throws -> Void) throws {
        let overlay = try overlayCandidates()
        let storeRequest = windowed(overlayCount: overlay.count)
        let plan = try SQLPredicateTranslator(schema: schema, storeTag: storeTag, limits: limits)
            .plan(for: storeRequest, selectingValues: true)
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

        var next = 0
        // One base record with its current values (nil: deleted in the overlay); false
        // stops the cursor.
        func handle(_ id: ManagedObjectID, _ values: [PropertyValue]?) throws -> Bool {
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

        let reader = state.rowReader
        let layout = schema.rowLayouts[request.entity.rootEntityIndex]
        // Taken out of the state once: reading `state.overlay` per row copied the whole
        // state (a quarter of W13's time; docs/BENCHMARKS.md).
        let uncompacted = state.overlay
        let filtersMembers = !uncompacted.deleted.isEmpty
        // Records waiting for their to-many members, in cursor order; `fromSnapshot`:
        // read from the cursor (the overlay's rows are already whole).
        var pendingIDs: [ManagedObjectID] = []
        var pendingRows: [[PropertyValue]?] = []
        var fromSnapshot: [Bool] = []
        func drain() throws -> Bool {
            defer {
                pendingIDs.removeAll(keepingCapacity: true)
                pendingRows.removeAll(keepingCapacity: true)
                fromSnapshot.removeAll(keepingCapacity: true)
            }
            var snapshotRows = pendingRows.indices.map { fromSnapshot[$0] ? pendingRows[$0] : nil }
            try reader.fillToManys(&snapshotRows, of: pendingIDs)
            for position in pendingIDs.indices {
                var values = fromSnapshot[position] ? snapshotRows[position] : pendingRows[position]
                if fromSnapshot[position], filtersMembers { values = values.map(state.withoutDeletedMembers) }
                guard try handle(pendingIDs[position], values) else { return false }
            }
            return true
        }

        var scopes = ObjectIDScopeCache()
        // The rows of one fetch are nearly always of one entity: its decoder is kept.
        var current: (index: Int, entity: EntityDescription, decoder: SnapshotRowLayout.EntityDecoder)?
        var goingOn = true
        try plan.select.forEachRow(on: state.connection) { statement in
            let index = Int(statement.int64(at: 1))
            if current?.index != index {
                guard let entity = schema.model.entities[safe: index], let decoder = layout?.decoders[index] else { return true }
                current = (index, entity, decoder)
            }
            guard let kind = current else { return true }
            let id = scopes.id(kind.entity, storeTag: storeTag, primaryKey: statement.int64(at: 0))
            var values: [PropertyValue]?
            var snapshot = false
            switch uncompacted.lookup(id) {
            case .row(let row): values = state.withoutDeletedMembers(row)
            case .deleted: values = nil
            case .unknown:
                values = try reader.decodeColumns(statement, from: 2, kind.decoder, scopes: &scopes)
                snapshot = true
            }
            if pendingIDs.isEmpty, !snapshot || kind.decoder.toManySlots.isEmpty {
                if snapshot, filtersMembers { values = values.map(state.withoutDeletedMembers) }
                goingOn = try handle(id, values)
                return goingOn
            }
            pendingIDs.append(id)
            pendingRows.append(values)
            fromSnapshot.append(snapshot)
            guard pendingIDs.count >= Self.streamBatchSize else { return true }
            goingOn = try drain()
            return goingOn
        }
        if goingOn, !pendingIDs.isEmpty { _ = try drain() }
        while !stopped, next < added.count {
            guard try emit(added[next].id, added[next].values) else { break }
            next += 1
        }
    }
}
