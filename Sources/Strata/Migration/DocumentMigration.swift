import Foundation

/// What a migration did, or would do (a dry run).
public struct MigrationReport: Sendable {
    /// One destination entity's part.
    public struct EntityReport: Sendable, Hashable {
        /// The entity in the new model.
        public var entity: String
        /// The entity its records come from in the stored model, nil when it is new.
        public var sourceEntity: String?
        /// The snapshot table that holds its records.
        public var table: String
        /// Its records (rows written).
        public var records: Int
        /// Columns of its table that the stored model's table did not have.
        public var addedColumns: [String]
        /// Columns of the stored model's table that its table no longer has.
        public var removedColumns: [String]
    }
    /// The stored model's version hash.
    public var sourceHash: String
    /// The new model's version hash.
    public var destinationHash: String
    /// One line per inferred change (``MigrationPlan/changes``).
    public var changes: [String]
    /// Per destination entity, in model order.
    public var entities: [EntityReport]
    /// Records of entities the new model no longer has, dropped.
    public var droppedRecords: Int
    /// Records whose key changed because a parent change moved them into a hierarchy that
    /// already used it.
    public var rekeyedRecords: Int
    /// Whether the document was changed (false for a dry run or when nothing differs).
    public var didMigrate: Bool
}

extension DocumentStore {
    /// Migrates the document at `url` from the model stored in it to `model`, inferring
    /// the mapping (``MigrationPlan``), in one SQLite transaction: the snapshot tables are
    /// rebuilt in the new model, the new model and its hash are recorded, and the model
    /// version history (``modelVersions(at:configuration:)``) gains a version. A process
    /// killed before the commit leaves the document as it was; after it, migrated.
    ///
    /// ```swift
    /// let report = try DocumentStore.migrate(at: url, to: newModel, dryRun: true)
    /// for entity in report.entities { print(entity.entity, entity.records) }
    /// ```
    /// - Parameters:
    ///   - url: the document's file.
    ///   - model: the model version to migrate to.
    ///   - dryRun: compute the report without writing anything.
    ///   - configuration: how the document is opened.
    ///   - progress: called with (records done, records in all) while rows are written.
    /// - Throws: ``StrataStorage/StrataError`` `.modelIncompatible` naming every entity and property that
    ///   blocks an inferred migration, before anything is written; the errors of opening
    ///   the document.
    @discardableResult
    public static func migrate(at url: URL, to model: ManagedObjectModel, dryRun: Bool = false,
                               configuration: Configuration = Configuration(),
                               progress: ((Int, Int) -> Void)? = nil) throws -> MigrationReport {
        try migrate(at: url, to: model, dryRun: dryRun, configuration: configuration, code: .inferred, progress: progress)
    }

    /// A migration, inferred, then completed by a custom stage's code when given.
    @discardableResult
    static func migrate(at url: URL, to model: ManagedObjectModel, dryRun: Bool = false, configuration: Configuration,
                        code: MigrationStageCode, progress: ((Int, Int) -> Void)?) throws -> MigrationReport {
        let stored = try storedModel(at: url, configuration: configuration)
        let plan = try MigrationPlan(from: stored, to: model, custom: code.isCustom)
        var settings = configuration
        settings.compactsOnClose = false
        settings.turnOffAutomaticCompaction()
        settings.isReadOnly = dryRun
        settings.watchesForRemoteChanges = false
        settings.shouldMigrateStoreAutomatically = false
        let store = try DocumentStore(openingAt: url, model: stored, configuration: settings)
        let report: MigrationReport
        do {
            if plan.isEmpty {
                report = MigrationReport(sourceHash: stored.versionHash, destinationHash: model.versionHash, changes: plan.changes,
                                         entities: [], droppedRecords: 0, rekeyedRecords: 0, didMigrate: false)
            } else if dryRun {
                report = try store.withOpenState { state in
                    try state.connection.transaction(.deferred) { try state.migrate(plan, dryRun: true, code: code, progress: progress) }
                }
            } else {
                report = try store.writing {
                    try store.withOpenState { state in
                        defer { state.overlay = DocumentOverlay() }
                        return try state.connection.transaction(.immediate) { try state.migrate(plan, dryRun: false, code: code, progress: progress) }
                    }
                }
            }
        } catch {
            try? store.close()
            throw error
        }
        try store.close()
        return report
    }
}

extension DocumentState {
    /// Reads every record, carries it into the plan's destination model and, unless a dry
    /// run, replaces the snapshot tables and the recorded model. Runs inside the caller's
    /// transaction.
    mutating func migrate(_ plan: MigrationPlan, dryRun: Bool, code: MigrationStageCode,
                          progress: ((Int, Int) -> Void)?) throws -> MigrationReport {
        try catchUp()
        if case .inferred = code, plan.carriesRecordByRecord {
            return try migrateRecordByRecord(plan, dryRun: dryRun, progress: progress)
        }
        let stored = plan.source
        var records: [ManagedObjectID: [PropertyValue]] = [:]
        for entity in stored.entities where !entity.isAbstract {
            for id in try objectIDs(for: [entity]) {
                if let values = try currentValues(id) { records[id] = values }
            }
        }
        var counters: [String: Int64] = [:]
        for root in stored.entities where root.superentity == nil {
            counters[root.name] = max(meta.keyCounters[root.name] ?? 0, keyCounters[root.index] ?? 0)
        }
        let (migrated, newCounters) = try plan.migrate(records, keyCounters: counters, storeTag: storeTag, code: code, progress: progress)
        let newSchema = try SnapshotSchema(model: plan.destination, layout: schema.layout)
        let report = Self.report(plan, records: records, migrated: migrated, oldSchema: schema, newSchema: newSchema,
                                 didMigrate: !dryRun)
        guard !dryRun else { return report }

        try Self.recordVersionsAndDropSnapshot(connection, meta: meta, stored: stored, schema: schema)
        for statement in newSchema.createStatements() { try connection.execute(statement) }
        var writer = SnapshotRowWriter(connection: connection, schema: newSchema)
        let total = migrated.count
        var done = 0
        for (id, values) in migrated.sorted(by: { $0.key < $1.key }) {
            try writer.write(id, values)
            done += 1
            if done % 1_000 == 0 { progress?(done, total) }
        }
        progress?(total, total)
        try recordMigration(plan, keyCounters: newCounters, code: code, migrated: migrated)
        return report
    }

    /// Records the new model in the document's tables and metadata: the entity table, the
    /// model, its hash, the key counters, the model version history (with a custom stage's
    /// checkpoint), the identity checksum.
    mutating func recordMigration(_ plan: MigrationPlan, keyCounters: [String: Int64], code: MigrationStageCode,
                                  migrated: [ManagedObjectID: [PropertyValue]]?) throws {
        try connection.execute("DELETE FROM strata_entity")
        let entityInsert = try connection.prepare("INSERT INTO strata_entity (id, name) VALUES (?, ?)")
        for entity in plan.destination.entities { try entityInsert.run([.integer(Int64(entity.index)), .text(entity.name)]) }
        let json = String(decoding: plan.destination.jsonRepresentation(), as: UTF8.self)
        try DocumentFile.writeMeta(connection, key: "model", .text(json))
        try DocumentFile.writeMeta(connection, key: "modelHash", .text(plan.destination.versionHash))
        try ModelWarnings.write(plan.destination.loadWarnings, connection)
        try DocumentFile.writeMeta(connection, key: "compactedThrough", .integer(Int64(lastSequence)))
        try DocumentFile.writeMeta(connection, key: ModelVersionHistory.sinceKey, .integer(Int64(lastSequence + 1)))
        for (name, counter) in keyCounters { try DocumentFile.writeMeta(connection, key: "keyCounter.\(name)", .integer(counter)) }
        let version = try ModelVersionHistory.append(connection, model: plan.destination, since: lastSequence + 1, custom: code.isCustom)
        if code.isCustom, let migrated {
            try MigrationCheckpoint.write(connection, version: version, since: lastSequence + 1, records: migrated, model: plan.destination)
        }
        try DocumentFile.writeIdentityChecksum(connection)
    }

    private static func report(_ plan: MigrationPlan, records: [ManagedObjectID: [PropertyValue]],
                               migrated: [ManagedObjectID: [PropertyValue]], oldSchema: SnapshotSchema,
                               newSchema: SnapshotSchema, didMigrate: Bool) -> MigrationReport {
        var counts: [Int: Int] = [:]
        for id in migrated.keys { counts[id.entity.index, default: 0] += 1 }
        let carried = Set(plan.sourceEntity.compactMap { $0 })
        let dropped = records.keys.filter { !carried.contains($0.entity.index) }.count
        var oldKeys: [Int: Set<Int64>] = [:]
        for id in records.keys { oldKeys[id.entity.index, default: []].insert(id.primaryKey) }
        var rekeyed = 0
        for id in migrated.keys {
            if let from = plan.sourceEntity[id.entity.index], oldKeys[from]?.contains(id.primaryKey) != true { rekeyed += 1 }
        }
        return report(plan, counts: counts, dropped: dropped, rekeyed: rekeyed, oldSchema: oldSchema, newSchema: newSchema,
                      didMigrate: didMigrate)
    }

    /// The report of a migration that wrote `counts` records per destination entity (by index).
    static func report(_ plan: MigrationPlan, counts: [Int: Int], dropped: Int, rekeyed: Int, oldSchema: SnapshotSchema,
                       newSchema: SnapshotSchema, didMigrate: Bool) -> MigrationReport {
        func columns(_ schema: SnapshotSchema, _ entity: EntityDescription?) -> Set<String> {
            guard let entity else { return [] }
            return Set(schema.table(for: entity).columns.map(\.name))
        }
        let entities = plan.destination.entities.map { entity -> MigrationReport.EntityReport in
            let source = plan.sourceEntity[entity.index].map { plan.source.entities[$0] }
            let new = columns(newSchema, entity), old = columns(oldSchema, source)
            return MigrationReport.EntityReport(entity: entity.name, sourceEntity: source?.name, table: newSchema.table(for: entity).name,
                                                records: counts[entity.index] ?? 0, addedColumns: new.subtracting(old).sorted(),
                                                removedColumns: old.subtracting(new).sorted())
        }
        return MigrationReport(sourceHash: plan.source.versionHash, destinationHash: plan.destination.versionHash,
                               changes: plan.changes, entities: entities, droppedRecords: dropped, rekeyedRecords: rekeyed,
                               didMigrate: didMigrate)
    }
}
