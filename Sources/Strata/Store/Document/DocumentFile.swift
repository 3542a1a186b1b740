import Foundation

/// The document's own tables (docs/FORMAT.md, "The document file"):
///
/// - `strata_meta(key, value)`: format, formatVersion, storeIdentifier, model (JSON),
///   modelHash, compactedThrough, createdAt, `keyCounter.<RootEntity>` and `groupCounter`.
/// - `strata_segment(seq, time, groups, operations, raw_size, body)`: the log, one row
///   per save; `body` is one LZ4 frame (`lz4 -d` reads it).
/// - `strata_group(seq, id, kind, reverts, action)`: each segment's undo groups.
/// - `strata_entity(id, name)`: entity indexes as used in `_entity` columns.
/// - the snapshot tables (`SnapshotSchema`), laid out as `formatVersion` says.
enum DocumentFile {
    struct Meta {
        var identifier: String
        var formatVersion: Int
        var modelJSON: Data
        var modelHash: String
        var compactedThrough: UInt64
        var keyCounters: [String: Int64]

        func model() throws -> ManagedObjectModel {
            do {
                return try ManagedObjectModel(jsonData: modelJSON)
            } catch let error as StrataError {
                throw StrataError(.corruptDocument, "The model stored in the document is damaged: \(error.message)")
            }
        }
    }

    static func create(on connection: SQLiteConnection, model: ManagedObjectModel, identifier: String) throws {
        let schema = try SnapshotSchema(model: model, layout: SnapshotSchema.Layout(documentFormat: DocumentStore.formatVersion))
        try connection.transaction(.exclusive) {
            try connection.execute("CREATE TABLE strata_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID")
            try connection.execute("""
                CREATE TABLE strata_segment (seq INTEGER PRIMARY KEY, time REAL NOT NULL, groups INTEGER NOT NULL,
                operations INTEGER NOT NULL, raw_size INTEGER NOT NULL, body BLOB NOT NULL)
                """)
            try connection.execute("""
                CREATE TABLE strata_group (seq INTEGER NOT NULL, id INTEGER NOT NULL, kind INTEGER NOT NULL,
                reverts INTEGER, action TEXT NOT NULL, PRIMARY KEY (seq, id)) WITHOUT ROWID
                """)
            try connection.execute("CREATE TABLE strata_entity (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            for statement in schema.createStatements() { try connection.execute(statement) }
            let entityInsert = try connection.prepare("INSERT INTO strata_entity (id, name) VALUES (?, ?)")
            for entity in model.entities { try entityInsert.run([.integer(Int64(entity.index)), .text(entity.name)]) }
            let meta = try connection.prepare("INSERT INTO strata_meta (key, value) VALUES (?, ?)")
            let json = String(decoding: model.jsonRepresentation(), as: UTF8.self)
            for (key, value): (String, SQLiteValue) in [
                ("format", .text("strata-document")), ("formatVersion", .integer(Int64(DocumentStore.formatVersion))),
                ("storeIdentifier", .text(identifier)), ("model", .text(json)), ("modelHash", .text(model.versionHash)),
                ("compactedThrough", .integer(0)), ("createdAt", .text(Date().formatted(.iso8601))),
            ] {
                try meta.run([.text(key), value])
            }
        }
    }

    static func readMeta(_ connection: SQLiteConnection, path: String) throws -> Meta {
        func notADocument(_ why: String) -> StrataError {
            StrataError(.corruptDocument, "\(path) is not a Strata document: \(why).", context: ["path": path])
        }
        let rows: [[SQLiteValue]]
        do {
            rows = try connection.prepare("SELECT key, value FROM strata_meta").rows()
        } catch let error as StrataError where error.code == .sqlite || error.code == .corruptDocument {
            throw notADocument(error.message)
        }
        var values: [String: SQLiteValue] = [:]
        for row in rows where row.count == 2 {
            if case .text(let key) = row[0] { values[key] = row[1] }
        }
        guard case .text("strata-document")? = values["format"] else { throw notADocument("no strata-document format marker") }
        guard case .integer(let version)? = values["formatVersion"] else { throw notADocument("no format version") }
        guard version <= Int64(DocumentStore.formatVersion) else {
            throw StrataError(.corruptDocument, "\(path) has document format \(version); this Strata reads up to \(DocumentStore.formatVersion).",
                              context: ["path": path])
        }
        guard case .text(let identifier)? = values["storeIdentifier"], UUID(uuidString: identifier) != nil else {
            throw notADocument("no store identifier")
        }
        guard case .text(let json)? = values["model"] else { throw notADocument("no stored model") }
        guard case .text(let hash)? = values["modelHash"] else { throw notADocument("no model hash") }
        guard case .integer(let compacted)? = values["compactedThrough"], compacted >= 0 else { throw notADocument("no compaction mark") }
        var counters: [String: Int64] = [:]
        for (key, value) in values where key.hasPrefix("keyCounter.") {
            if case .integer(let counter) = value { counters[String(key.dropFirst("keyCounter.".count))] = counter }
        }
        return Meta(identifier: identifier, formatVersion: Int(version), modelJSON: Data(json.utf8), modelHash: hash,
                    compactedThrough: UInt64(compacted), keyCounters: counters)
    }

    /// The counters saved in `strata_meta`: the largest key handed out per root entity
    /// name (`keyCounter.<Root>`), and the largest group id of segments that compaction
    /// dropped (`groupCounter`). A save reads them inside its write transaction.
    static func readCounters(_ connection: SQLiteConnection) throws -> (keys: [String: Int64], groups: UInt64) {
        let rows = try connection.prepare(
            "SELECT key, value FROM strata_meta WHERE (key >= 'keyCounter.' AND key < 'keyCounter/') OR key = 'groupCounter'").rows()
        var keys: [String: Int64] = [:]
        var groups: UInt64 = 0
        for row in rows where row.count == 2 {
            guard case .text(let key) = row[0], case .integer(let value) = row[1] else { continue }
            if key == "groupCounter" {
                groups = UInt64(max(value, 0))
            } else {
                keys[String(key.dropFirst("keyCounter.".count))] = value
            }
        }
        return (keys, groups)
    }

    static func writeMeta(_ connection: SQLiteConnection, key: String, _ value: SQLiteValue) throws {
        try connection.prepare("INSERT INTO strata_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .run([.text(key), value])
    }
}
