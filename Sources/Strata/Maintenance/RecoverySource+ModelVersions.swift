import Foundation

/// A migrated document's model versions as recovery reads and keeps them: each segment is
/// checked by decoding it with the model it was written with (docs/MIGRATION.md,
/// "History"), and the rebuilt file keeps the version table, the migration checkpoints
/// and `modelSince`, without which its older segments could not be read again.
extension RecoverySource {
    /// The tables a migration adds, copied whole into the rebuilt document.
    static let modelVersionTables = ["strata_model_version", "strata_migration_checkpoint"]

    /// The stored `modelSince`: the first segment the current model wrote (1 when the
    /// document was never migrated, or the value cannot be read).
    var modelSince: UInt64 {
        if case .integer(let value)? = values[ModelVersionHistory.sinceKey], value > 0 { return UInt64(value) }
        return 1
    }

    /// For each earlier model version that can be read, oldest first, the first segment it
    /// wrote and the model. Empty for a document never migrated; a version that cannot be
    /// read leaves its segments to the current model, which then finds them damaged.
    func earlierModels() -> [(firstSegment: UInt64, model: ManagedObjectModel)] {
        guard modelSince > 1,
              let rows = try? connection.prepare("SELECT first_segment, model FROM strata_model_version ORDER BY version").rows()
        else { return [] }
        var models: [(firstSegment: UInt64, model: ManagedObjectModel)] = []
        for row in rows {
            guard case .integer(let first)? = row.first, first > 0, UInt64(first) < modelSince,
                  case .text(let json)? = row.last,
                  let model = try? ManagedObjectModel(jsonData: Data(json.utf8)) else { continue }
            models.append((UInt64(first), model))
        }
        return models
    }

    /// Copies the version table and the migration checkpoints into the rebuilt document
    /// (the rows SQLite can read, columns by name), and its `modelSince`.
    func copyModelVersions(to target: SQLiteConnection) throws {
        guard modelSince > 1 else { return }
        try ModelVersionHistory.createTable(target)
        try MigrationCheckpoint.createTable(target)
        for table in Self.modelVersionTables {
            guard let columns = try? connection.prepare("SELECT name FROM pragma_table_info('\(table)')").rows()
                .compactMap({ row -> String? in if case .text(let name)? = row.first { name } else { nil } }),
                  !columns.isEmpty,
                  let rows = try? connection.prepare("SELECT \(columns.map(SnapshotSchema.quote).joined(separator: ", ")) FROM \(table)").rows()
            else { continue }
            let insert = try target.prepare(
                "INSERT OR REPLACE INTO \(table) (\(columns.map(SnapshotSchema.quote).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))")
            for row in rows { try insert.run(row) }
        }
        try DocumentFile.writeMeta(target, key: ModelVersionHistory.sinceKey, .integer(Int64(modelSince)))
    }
}
