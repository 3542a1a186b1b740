import Foundation

/// One model version a document has used.
public struct ModelVersionRecord: Sendable, Hashable {
    /// 1 for the model the document was created with, then one more per migration.
    public var version: Int
    /// The model's ``ManagedObjectModel/versionHash``.
    public var hash: String
    /// The model's own identifier (``ManagedObjectModel/versionIdentifier``), if it has one.
    public var identifier: String?
    /// The first log segment written with this model (1 for the first version).
    public var firstSegment: UInt64
    /// When the document was migrated to it (nil for the first version).
    public var migratedAt: String?
    /// Each entity's version hash (``ManagedObjectModel/entityVersionHashes``).
    public var entityHashes: [String: String]
    /// The model itself, as the document stores it (JSON).
    public var modelJSON: Data
    /// Whether a custom stage (``MigrationStage/custom(to:transform:)``,
    /// ``MigrationStage/mapping(to:migrate:)``) made it: replaying the log across it starts
    /// again from the records the stage wrote, which the document keeps (docs/MIGRATION.md).
    public var isCustom: Bool = false
}

/// The table of model versions a document has used (`strata_model_version`), written by
/// the first migration; a document never migrated has none and one version, its meta's.
/// Segments are not changed by a migration: which model decodes a segment follows from
/// its sequence and each version's first segment (docs/MIGRATION.md, "History").
enum ModelVersionHistory {
    /// The meta key holding the first segment written with the current model.
    static let sinceKey = "modelSince"

    static func createTable(_ connection: SQLiteConnection) throws {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS strata_model_version (version INTEGER PRIMARY KEY, hash TEXT NOT NULL, \
            identifier TEXT, first_segment INTEGER NOT NULL, migrated_at TEXT, entity_hashes TEXT NOT NULL, model TEXT NOT NULL, \
            stage TEXT NOT NULL DEFAULT 'inferred')
            """)
    }

    static func hasTable(_ connection: SQLiteConnection) throws -> Bool {
        !(try connection.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'strata_model_version'").rows().isEmpty)
    }

    /// Writes version 1 (the model the document was made with) when the table is empty.
    static func recordInitialVersionIfNeeded(_ connection: SQLiteConnection, meta: DocumentFile.Meta, model: ManagedObjectModel) throws {
        guard try connection.prepare("SELECT 1 FROM strata_model_version LIMIT 1").rows().isEmpty else { return }
        try insert(connection, version: 1, model: model, json: meta.modelJSON, since: 1, migratedAt: nil, stage: "created")
    }

    /// Records `model` as the next version; returns its number.
    @discardableResult
    static func append(_ connection: SQLiteConnection, model: ManagedObjectModel, since: UInt64, custom: Bool) throws -> Int64 {
        let last = try connection.prepare("SELECT MAX(version) FROM strata_model_version").rows().first?.first
        var next: Int64 = 1
        if case .integer(let value)? = last { next = value + 1 }
        try insert(connection, version: next, model: model, json: model.jsonRepresentation(), since: since,
                   migratedAt: Date().formatted(.iso8601), stage: custom ? "custom" : "inferred")
        return next
    }

    private static func insert(_ connection: SQLiteConnection, version: Int64, model: ManagedObjectModel, json: Data,
                               since: UInt64, migratedAt: String?, stage: String) throws {
        let hashes = (try? JSONSerialization.data(withJSONObject: model.entityVersionHashes, options: [.sortedKeys])) ?? Data("{}".utf8)
        try connection.prepare("""
            INSERT INTO strata_model_version (version, hash, identifier, first_segment, migrated_at, entity_hashes, model, stage) \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).run([.integer(version), .text(model.versionHash), model.versionIdentifier.map { .text($0) } ?? .null,
                      .integer(Int64(since)), migratedAt.map { .text($0) } ?? .null,
                      .text(String(decoding: hashes, as: UTF8.self)), .text(String(decoding: json, as: UTF8.self)), .text(stage)])
    }

    /// Every version, oldest first; a document without the table has one, from its meta.
    static func versions(_ connection: SQLiteConnection, meta: DocumentFile.Meta) throws -> [ModelVersionRecord] {
        guard try hasTable(connection) else {
            let model = try meta.model()
            return [ModelVersionRecord(version: 1, hash: meta.modelHash, identifier: model.versionIdentifier, firstSegment: 1,
                                       migratedAt: nil, entityHashes: model.entityVersionHashes, modelJSON: meta.modelJSON)]
        }
        return try connection.prepare("""
            SELECT version, hash, identifier, first_segment, migrated_at, entity_hashes, model, stage FROM strata_model_version ORDER BY version
            """).rows().map { row in
            func text(_ index: Int) -> String? { if case .text(let value)? = row[safe: index] { value } else { nil } }
            func integer(_ index: Int) -> Int64 { if case .integer(let value)? = row[safe: index] { value } else { 0 } }
            let hashes = text(5).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] } ?? [:]
            return ModelVersionRecord(version: Int(integer(0)), hash: text(1) ?? "", identifier: text(2),
                                      firstSegment: UInt64(max(integer(3), 1)), migratedAt: text(4), entityHashes: hashes,
                                      modelJSON: Data((text(6) ?? "").utf8), isCustom: text(7) == "custom")
        }
    }
}

extension DocumentFile.Meta {
    /// The first segment written with the current model (1 when the document was never
    /// migrated): segments before it were written with an earlier model version.
    var modelSince: UInt64 {
        if case .integer(let value)? = values[ModelVersionHistory.sinceKey], value > 0 { return UInt64(value) }
        return 1
    }
}

extension DocumentStore {
    /// The model versions the document at `url` has used, oldest first (one for a
    /// document never migrated).
    /// - Throws: the errors of reading a document's metadata.
    public static func modelVersions(at url: URL, configuration: Configuration = Configuration()) throws -> [ModelVersionRecord] {
        let log = try DocumentLogFile(url, settings: configuration)
        defer { log.close() }
        return try log.modelVersions()
    }
}

extension ManagedObjectModel {
    /// Each entity's own version hash, by entity name: what a store needs to know of it
    /// (its name, parent and abstractness, and each of its own persistent attribute's and
    /// relationship's name, type and shape), as ``versionHash`` has for the whole model. Two
    /// model versions whose entity hashes agree store that entity's records the same way.
    public var entityVersionHashes: [String: String] {
        var hashes: [String: String] = [:]
        for entity in entities {
            var text = "strata-entity-v1\nE \(entity.name) < \(entity.parentName ?? "-") abstract=\(entity.isAbstract)\n"
            for attribute in entity.declaredAttributes where !attribute.isTransient {
                text += "A \(attribute.name) \(attribute.attributeType.rawValue)\n"
            }
            for relationship in entity.declaredRelationships where !relationship.isTransient {
                text += "R \(relationship.name) -> \(relationship.destinationEntityName) many=\(relationship.isToMany)"
                text += " ordered=\(relationship.isOrdered) inverse=\(relationship.inverseName ?? "-")\n"
            }
            hashes[entity.name] = SHA256Digest.hex(of: Array(text.utf8))
        }
        return hashes
    }
}

extension DocumentState {
    /// Refuses to go on when another connection migrated the document since this one
    /// opened it: its tables and segments are in a model this connection does not have
    /// (reading them with the old one would misread them).
    /// - Throws: `.modelIncompatible` "The document was migrated to model version N by
    ///   another process; reopen it …".
    func checkNotMigratedElsewhere() throws {
        let rows = try connection.prepare("SELECT value FROM strata_meta WHERE key = 'modelHash'").rows()
        guard case .text(let stored)? = rows.first?.first, stored != meta.modelHash else { return }
        let version = (try? ModelVersionHistory.versions(connection, meta: meta).last { $0.hash == stored }?.version).flatMap { $0 }
        throw StrataError(.modelIncompatible,
                          "The document was migrated to model version \(version.map(String.init) ?? "?") by another process; reopen it (with that model) to go on.",
                          context: .init { $0.model = stored })
    }
}

extension DocumentState {
    /// The first writes of every migration path, once its records are read: the version
    /// history (with the document's first model when this is its first migration), then
    /// the old snapshot tables and join tables dropped.
    static func recordVersionsAndDropSnapshot(_ connection: SQLiteConnection, meta: DocumentFile.Meta,
                                              stored: ManagedObjectModel, schema: SnapshotSchema) throws {
        try ModelVersionHistory.createTable(connection)
        try ModelVersionHistory.recordInitialVersionIfNeeded(connection, meta: meta, model: stored)
        for table in schema.tables.values { try connection.execute("DROP TABLE \(SnapshotSchema.quote(table.name))") }
        for join in schema.joinTables.values { try connection.execute("DROP TABLE \(SnapshotSchema.quote(join.name))") }
    }
}
