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
        /// Every meta row as stored (for the identity checksum and repairs).
        var values: [String: SQLiteValue] = [:]
        /// The stored identity checksum; nil in documents written before it existed.
        var identityChecksum: String? {
            if case .text(let text)? = values[DocumentIdentity.key] { return text }
            return nil
        }
        /// Whether the identity fields match the stored checksum (nil when there is none).
        var identityIntact: Bool? { identityChecksum.map { $0 == DocumentIdentity.checksum(values) } }

        func model() throws -> ManagedObjectModel {
            do {
                let model = try ManagedObjectModel(jsonData: modelJSON)
                model.loadWarnings = ModelWarnings.read(values[ModelWarnings.key])
                return model
            } catch let error as StrataError {
                throw StrataError(.corruptDocument, "The model stored in the document is damaged: \(error.message)")
            }
        }
    }

    /// The document's own tables, in creation order (so they are the first four rows of
    /// `sqlite_schema`, which recovery relies on to repair a damaged schema entry).
    static let ownTables: [(name: String, sql: String)] = [
        ("strata_meta", "CREATE TABLE strata_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID"),
        LogTables.segmentTable,
        LogTables.groupTable,
        ("strata_entity", "CREATE TABLE strata_entity (id INTEGER PRIMARY KEY, name TEXT NOT NULL)"),
    ]

    static func create(on connection: SQLiteConnection, model: ManagedObjectModel, identifier: String, createdAt: String? = nil) throws {
        let schema = try SnapshotSchema(model: model, layout: SnapshotSchema.Layout(documentFormat: createdFormatVersion))
        try connection.transaction(.exclusive) {
            for (_, sql) in ownTables { try connection.execute(sql) }
            for statement in schema.createStatements(uniqueConstraintIndexes: true) { try connection.execute(statement) }
            try schema.requireRTreeSupport(connection)
            for statement in schema.fetchIndexStatements() { try connection.execute(statement) }
            let entityInsert = try connection.prepare("INSERT INTO strata_entity (id, name) VALUES (?, ?)")
            for entity in model.entities { try entityInsert.run([.integer(Int64(entity.index)), .text(entity.name)]) }
            let meta = try connection.prepare("INSERT INTO strata_meta (key, value) VALUES (?, ?)")
            let json = String(decoding: model.jsonRepresentation(), as: UTF8.self)
            var values: [String: SQLiteValue] = [
                "format": .text("strata-document"), "formatVersion": .integer(Int64(createdFormatVersion)),
                "storeIdentifier": .text(identifier), "model": .text(json), "modelHash": .text(model.versionHash),
                "compactedThrough": .integer(0), "createdAt": .text(createdAt ?? Date().formatted(.iso8601)),
            ]
            values[DocumentIdentity.key] = .text(DocumentIdentity.checksum(values))
            values[DocumentIdentity.copyKey] = .text(DocumentIdentity.copy(values))
            if let warnings = ModelWarnings.value(model.loadWarnings) { values[ModelWarnings.key] = warnings }
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try meta.run([.text(key), value])
            }
        }
    }

    /// The error for a document whose format version is above ``DocumentStore/formatVersion``:
    /// a newer Strata wrote it, so nothing here may read or rewrite it (docs/FORMAT.md §11).
    static func newerFormat(_ path: String, format: Int64) -> StrataError {
        StrataError(.corruptDocument,
                    "\(path) was written by a newer Strata (document format \(format)); this one reads up to format \(DocumentStore.formatVersion). Nothing was changed; open it with a newer Strata.",
                    context: .init { $0.path = path; $0.kind = .newerFormat; $0.format = Int(format) })
    }

    /// Reads and checks `strata_meta`.
    /// - Parameter checksIdentity: Refuse a document whose identity fields do not match
    ///   their checksum (off for the tools that report or repair it).
    /// - Throws: `.corruptDocument`: "not a Strata document" when the file has no Strata
    ///   metadata, "damaged" when it has but a field is missing, malformed or fails the
    ///   identity checksum; the open errors of ``DocumentOpenFailure`` when SQLite fails.
    static func readMeta(_ connection: SQLiteConnection, path: String, checksIdentity: Bool = true) throws -> Meta {
        func notADocument(_ why: String) -> StrataError {
            DocumentOpenFailure.damaged(path, "its metadata has \(why)")
        }
        let rows: [[SQLiteValue]]
        do {
            rows = try connection.prepare("SELECT key, value FROM strata_meta").rows()
        } catch let error as StrataError where error.code != .corruptDocument {
            throw DocumentOpenFailure.describe(error, path: path)
        }
        var values: [String: SQLiteValue] = [:]
        for row in rows where row.count == 2 {
            if case .text(let key) = row[0] { values[key] = row[1] }
        }
        guard case .text("strata-document")? = values["format"] else {
            // A flipped byte in the marker of a file that is otherwise a document is damage.
            if values["storeIdentifier"] != nil, values["model"] != nil { throw notADocument("a damaged format marker") }
            throw StrataError(.corruptDocument, "\(path) is not a Strata document: it is an SQLite database without a strata-document format marker.",
                              context: .init { $0.path = path; $0.kind = .notStrata })
        }
        guard case .integer(let version)? = values["formatVersion"] else { throw notADocument("no format version") }
        guard version <= Int64(DocumentStore.formatVersion) else {
            // A newer Strata covers its format version with the identity checksum: when the
            // checksum does not hold, the number is a damaged byte, not a newer file.
            if case .text(let checksum)? = values[DocumentIdentity.key], checksum != DocumentIdentity.checksum(values) {
                throw notADocument("a format version (\(version)) its identity checksum does not confirm")
            }
            throw newerFormat(path, format: version)
        }
        guard case .text(let identifier)? = values["storeIdentifier"], UUID(uuidString: identifier) != nil else {
            throw notADocument("no valid store identifier")
        }
        guard case .text(let json)? = values["model"] else { throw notADocument("no stored model") }
        guard case .text(let hash)? = values["modelHash"] else { throw notADocument("no model hash") }
        guard case .integer(let compacted)? = values["compactedThrough"], compacted >= 0 else { throw notADocument("no compaction mark") }
        var counters: [String: Int64] = [:]
        for (key, value) in values where key.hasPrefix("keyCounter.") {
            if case .integer(let counter) = value { counters[String(key.dropFirst("keyCounter.".count))] = counter }
        }
        let meta = Meta(identifier: identifier, formatVersion: Int(version), modelJSON: Data(json.utf8), modelHash: hash,
                        compactedThrough: UInt64(compacted), keyCounters: counters, values: values)
        if checksIdentity, meta.identityIntact == false {
            throw DocumentOpenFailure.damaged(path, "its identity (store identifier, model, format or creation date) does not match its identity checksum")
        }
        if checksIdentity, let checksum = meta.identityChecksum, values[DocumentIdentity.copyKey] != nil,
           DocumentIdentity.fields(fromCopy: values[DocumentIdentity.copyKey], expected: checksum) == nil {
            throw DocumentOpenFailure.damaged(path, "the copy of its identity kept for repairs is damaged")
        }
        return meta
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

extension DocumentFile {
    /// The format new documents are created in: 2. A document of format 2 becomes format 3
    /// (``DocumentStore/formatVersion``) in the write that first stores what only format 3
    /// has (docs/FORMAT.md §11, §20, §21), so documents without texts stay readable by the
    /// Strata before format 3.
    static let createdFormatVersion = 2

    /// The format whose documents may hold group runs and packed texts (docs/FORMAT.md §20,
    /// §21). A document of format 1 keeps its layout and never takes them.
    static let packedFormatVersion = 3

    /// Raises a format 2 document to ``packedFormatVersion`` inside the caller's write
    /// transaction, with its identity checksum and copy (the format is an identity field).
    static func raiseToPackedFormat(_ connection: SQLiteConnection) throws {
        try writeMeta(connection, key: "formatVersion", .integer(Int64(packedFormatVersion)))
        try writeIdentityChecksum(connection)
    }

    /// Writes the identity checksum and copy of the stored identity fields (documents created
    /// before it existed get one on their next write).
    static func writeIdentityChecksum(_ connection: SQLiteConnection) throws {
        var values: [String: SQLiteValue] = [:]
        for row in try connection.prepare("SELECT key, value FROM strata_meta").rows() where row.count == 2 {
            if case .text(let key) = row[0] { values[key] = row[1] }
        }
        try writeMeta(connection, key: DocumentIdentity.key, .text(DocumentIdentity.checksum(values)))
        try writeMeta(connection, key: DocumentIdentity.copyKey, .text(DocumentIdentity.copy(values)))
    }
}
