import Foundation

/// What a custom migration stage wrote, kept in the document
/// (`strata_migration_checkpoint`): the stage's code is not in the document, so replaying
/// the log across it (`strata-log verify`, `replay`) starts again from these records. They
/// are stored as the body of a segment of inserts (docs/FORMAT.md's segment format, LZ4
/// framed) in the version's model, one row per custom version; the log itself is not
/// changed, so the segment format is not either.
enum MigrationCheckpoint {
    static func createTable(_ connection: SQLiteConnection) throws {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS strata_migration_checkpoint (version INTEGER PRIMARY KEY, \
            raw_size INTEGER NOT NULL, records INTEGER NOT NULL, body BLOB NOT NULL)
            """)
    }

    /// Records `records` (in `model`, the new version's) as what model version `version`
    /// started from.
    static func write(_ connection: SQLiteConnection, version: Int64, since: UInt64,
                      records: [ManagedObjectID: [PropertyValue]], model: ManagedObjectModel) throws {
        try createTable(connection)
        let operations = records.sorted { $0.key < $1.key }.map { ChangeOperation.insert($0.key, values: $0.value) }
        let segment = Segment(sequence: since, timestamp: Date(timeIntervalSince1970: 0),
                              groups: [SegmentGroup(id: 1, kind: .unregistered, revertsGroup: nil, actionName: "migration", operations: operations)])
        let raw = try SegmentEncoder.encode(segment, model: model)
        try connection.prepare("INSERT OR REPLACE INTO strata_migration_checkpoint (version, raw_size, records, body) VALUES (?, ?, ?, ?)")
            .run([.integer(version), .integer(Int64(raw.count)), .integer(Int64(records.count)), .blob(LZ4Frame.compress(raw))])
    }

    /// The records model version `version` started from, or nil when the document has none
    /// for it (a version made by an inferred stage, or by a custom one before checkpoints).
    /// - Throws: `.corruptSegment` when the stored records cannot be decoded.
    static func read(_ connection: SQLiteConnection, version: Int, model: ManagedObjectModel,
                     storeTag: UInt32) throws -> [ManagedObjectID: [PropertyValue]]? {
        guard !(try connection.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'strata_migration_checkpoint'").rows().isEmpty),
              let row = try connection.prepare("SELECT raw_size, body FROM strata_migration_checkpoint WHERE version = ?")
                .rows([.integer(Int64(version))]).first else { return nil }
        guard case .integer(let size)? = row.first, case .blob(let body)? = row.last, size >= 0 else {
            throw StrataError(.corruptSegment, "The checkpoint of model version \(version) is damaged: its row has no body.",
                              context: .init { $0.modelVersion = version })
        }
        let segment: Segment
        do {
            let raw = try LZ4Frame.decompress(body, maxContentSize: Int(size))
            segment = try SegmentDecoder.decode(raw, model: model, storeTag: storeTag, sequenceHint: nil)
        } catch let error as StrataError {
            throw StrataError(.corruptSegment, "The checkpoint of model version \(version) is damaged: \(error.message)",
                              context: error.context.with { $0.modelVersion = version })
        }
        var records: [ManagedObjectID: [PropertyValue]] = [:]
        for group in segment.groups {
            for case .insert(let id, let values) in group.operations { records[id] = values }
        }
        return records
    }
}

extension DocumentLogFile {
    /// The records a custom stage wrote when it made `version`, in that version's model
    /// (nil when the document has none for it).
    /// - Throws: `.corruptSegment` when they cannot be decoded.
    package func checkpoint(of version: ModelVersionRecord) throws -> [ManagedObjectID: [PropertyValue]]? {
        let versions = try modelVersions(), models = try versionModels()
        guard let index = versions.firstIndex(where: { $0.version == version.version }), index < models.count else { return nil }
        return try MigrationCheckpoint.read(connection, version: version.version, model: models[index].model, storeTag: storeTag)
    }
}
