import Foundation

extension DocumentFetch {
    /// The matching records in order, within the window, each with its values: the IDs
    /// and the snapshot columns come from the same statement, the to-many members from
    /// one statement per relationship for all of them (``SnapshotRowReader``), and the
    /// overlay of uncompacted segments wins over the snapshot exactly as in
    /// ``objectIDs()`` (docs/ARCHITECTURE.md, "Reads: one pass from SQL to objects").
    ///
    /// - Complexity: 1 + T statements for an entity with T persistent to-many
    ///   relationships, whatever the number of records; plus in-memory evaluation of the
    ///   residual and of the overlay records the fetch could see.
    func records() throws -> [StoreRecord] {
        let overlay = try overlayCandidates()
        let plan = try SQLPredicateTranslator(schema: schema, storeTag: storeTag, limits: limits)
            .plan(for: windowed(overlayCount: overlay.count), selectingValues: true)
        let reader = state.rowReader
        let layout = schema.rowLayouts[request.entity.rootEntityIndex]
        var base: [ManagedObjectID] = []
        var rows: [[PropertyValue]?] = []
        var scopes = ObjectIDScopeCache()
        // The rows of one fetch are nearly always of one entity: its decoder is kept.
        var current: (index: Int, entity: EntityDescription, decoder: SnapshotRowLayout.EntityDecoder)?
        try plan.select.forEachCachedRow(on: state.connection) { statement in
            let index = Int(statement.int64(at: 1))
            if current?.index != index {
                guard let entity = schema.model.entities[safe: index], let decoder = layout?.decoders[index] else { return }
                current = (index, entity, decoder)
            }
            guard let kind = current else { return }
            base.append(scopes.id(kind.entity, storeTag: storeTag, primaryKey: statement.int64(at: 0)))
            rows.append(try reader.decodeColumns(statement, from: 2, kind.decoder, scopes: &scopes))
        }
        try reader.fillToManys(&rows, of: base)
        // What the overlay holds wins; members it deleted leave the snapshot's to-manys.
        if !state.overlay.isEmpty {
            for (position, id) in base.enumerated() {
                switch state.overlay.lookup(id) {
                case .row(let row): rows[position] = state.withoutDeletedMembers(row)
                case .deleted: rows[position] = nil
                case .unknown: if !state.overlay.deleted.isEmpty { rows[position] = rows[position].map(state.withoutDeletedMembers) }
                }
            }
        }
        if let residual = plan.residual {
            // The rows the residual reaches through relationships are read once each.
            let reached = ReachedRows { [state] in try state.currentValues($0) }
            var kept: [Int] = []
            for (position, id) in base.enumerated() {
                guard let row = rows[position] else { continue }
                let candidate = RowSubject(objectID: id, values: row) { try reached.values(for: $0) }
                guard try residual.evaluate(with: candidate) else { continue }
                kept.append(position)
            }
            base = kept.map { base[$0] }
            rows = kept.map { rows[$0] }
        }
        if overlay.isEmpty {
            var records: [StoreRecord] = []
            records.reserveCapacity(base.count)
            for (id, row) in zip(base, rows) {
                if let row { records.append(StoreRecord(objectID: id, values: row)) }
            }
            return plan.appliesWindow ? records
                : StoreFetchMerge.window(records, offset: request.fetchOffset, limit: request.fetchLimit)
        }
        if !plan.appliesWindow {
            let limit = windowed(overlayCount: overlay.count).fetchLimit
            base = StoreFetchMerge.window(base, offset: 0, limit: limit)
            rows = StoreFetchMerge.window(rows, offset: 0, limit: limit)
        }
        var read: [ManagedObjectID: [PropertyValue]] = [:]
        read.reserveCapacity(base.count)
        for (id, row) in zip(base, rows) { read[id] = row }
        let ids = try StoreFetchMerge.merge(
            base: base, overlay: overlay, sortDescriptors: request.sortDescriptors,
            offset: request.fetchOffset, limit: request.fetchLimit,
            matches: { id, values in try request.predicate.map { try matches($0, id, values) } ?? true },
            sortKeys: { id, values in
                let row = try values ?? read[id] ?? state.currentValues(id) ?? []
                return try FetchSortDescriptor.sortKeys(of: subject(id, row), for: request.sortDescriptors)
            })
        var records: [StoreRecord] = []
        records.reserveCapacity(ids.count)
        for id in ids {
            let row: [PropertyValue]?
            if case .values(let current)? = overlay[id] { row = current } else { row = try read[id] ?? state.currentValues(id) }
            if let row { records.append(StoreRecord(objectID: id, values: row)) }
        }
        return records
    }
}
