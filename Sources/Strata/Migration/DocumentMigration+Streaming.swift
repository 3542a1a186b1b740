import Foundation

extension MigrationPlan {
    /// Whether the records can be carried one at a time (an inferred stage then never holds
    /// the document in memory): every record keeps its key in its hierarchy, no new
    /// relationship is filled from its inverse's records, no uniqueness constraint is added.
    var carriesRecordByRecord: Bool {
        var destinationOf: [Int: EntityDescription] = [:]
        for entity in destination.entities { if let from = sourceEntity[entity.index] { destinationOf[from] = entity } }
        var sourceRootOf: [Int: Int] = [:]
        for entity in source.entities {
            guard let target = destinationOf[entity.index] else { continue }
            guard destinationOf[entity.rootEntity.index] === target.rootEntity else { return false }
            let root = target.rootEntity.index
            if let other = sourceRootOf[root], other != entity.rootEntity.index { return false }
            sourceRootOf[root] = entity.rootEntity.index
        }
        if fillsNewInverses { return false }
        for entity in destination.entities where !entity.uniquenessConstraints.isEmpty {
            let old = sourceEntity[entity.index].map { Set(source.entities[$0].uniquenessConstraints.map { $0.joined(separator: ",") }) } ?? []
            if entity.uniquenessConstraints.contains(where: { !old.contains($0.joined(separator: ",")) }) { return false }
        }
        return true
    }
}

extension DocumentState {
    /// An inferred migration that reads, carries and writes one record at a time: the new
    /// tables are written under temporary names beside the old ones, which are then
    /// dropped, and the new ones renamed and indexed — memory stays that of a page of keys
    /// and one record, whatever the document's size. Runs inside the caller's transaction,
    /// caught up.
    mutating func migrateRecordByRecord(_ plan: MigrationPlan, dryRun: Bool, progress: ((Int, Int) -> Void)?) throws -> MigrationReport {
        let stored = plan.source
        var destinationOf: [Int: EntityDescription] = [:]
        for entity in plan.destination.entities { if let from = plan.sourceEntity[entity.index] { destinationOf[from] = entity } }
        let newSchema = try SnapshotSchema(model: plan.destination, layout: schema.layout)
        let staging = newSchema.renamed(prefix: "strata_migrating_")
        if !dryRun {
            for statement in staging.createStatements() where statement.hasPrefix("CREATE TABLE") { try connection.execute(statement) }
        }
        var writer = SnapshotRowWriter(connection: connection, schema: staging)
        var total = 0
        for table in schema.tables.values {
            if case .integer(let count)? = try connection.prepare("SELECT COUNT(*) FROM \(SnapshotSchema.quote(table.name))").rows().first?.first {
                total += Int(count)
            }
        }
        var onlyInOverlay: [ManagedObjectID] = []
        for id in overlay.rows.keys.sorted() where try !snapshotContains(id) { onlyInOverlay.append(id) }
        total += onlyInOverlay.count
        var counts: [Int: Int] = [:]
        var dropped = 0, done = 0
        let tag = storeTag
        func carry(_ id: ManagedObjectID) throws {
            guard let values = try currentValues(id) else { return }
            guard let target = destinationOf[id.entity.index] else { dropped += 1; return }
            let row = plan.carriedValues(values, as: target) { old in
                destinationOf[old.entity.index].map { ManagedObjectID(entity: $0, storeTag: tag, primaryKey: old.primaryKey) }
            }
            counts[target.index, default: 0] += 1
            if !dryRun { try writer.write(ManagedObjectID(entity: target, storeTag: tag, primaryKey: id.primaryKey), row) }
            done += 1
            if done % 1_000 == 0 { progress?(done, total) }
        }
        // A page of keys at a time, in key order, from each old root table.
        for root in stored.entities where root.superentity == nil {
            let table = schema.table(for: root)
            let page = try connection.prepare("""
                SELECT "_pk", \(table.entitySQL(alias: nil)) FROM \(SnapshotSchema.quote(table.name)) WHERE "_pk" > ? ORDER BY "_pk" LIMIT 1000
                """)
            var after = Int64.min
            while true {
                let rows = try page.rows([.integer(after)])
                guard !rows.isEmpty else { break }
                for row in rows {
                    guard case .integer(let key)? = row.first, case .integer(let index)? = row.last,
                          let entity = stored.entities[safe: Int(index)] else { continue }
                    after = key
                    try carry(ManagedObjectID(entity: entity, storeTag: tag, primaryKey: key))
                }
            }
        }
        for id in onlyInOverlay { try carry(id) }
        progress?(total, total)
        let report = Self.report(plan, counts: counts, dropped: dropped, rekeyed: 0, oldSchema: schema, newSchema: newSchema,
                                 didMigrate: !dryRun)
        guard !dryRun else { return report }

        try Self.recordVersionsAndDropSnapshot(connection, meta: meta, stored: stored, schema: schema)
        let renames = staging.tables.keys.map { (staging.tables[$0]!.name, newSchema.tables[$0]!.name) }
            + staging.joinTables.values.map { ($0.name, String($0.name.dropFirst("strata_migrating_".count))) }
        for (from, to) in renames {
            try connection.execute("ALTER TABLE \(SnapshotSchema.quote(from)) RENAME TO \(SnapshotSchema.quote(to))")
        }
        for statement in newSchema.createStatements() where !statement.hasPrefix("CREATE TABLE") { try connection.execute(statement) }
        var counters: [String: Int64] = [:]
        for root in stored.entities where root.superentity == nil {
            guard let target = destinationOf[root.index]?.rootEntity else { continue }
            let counter = max(meta.keyCounters[root.name] ?? 0, keyCounters[root.index] ?? 0)
            counters[target.name] = max(counters[target.name] ?? 0, counter)
        }
        try recordMigration(plan, keyCounters: counters, code: .inferred, migrated: nil)
        return report
    }
}
