import Foundation

/// A damaged document as recovery reads it: every meta row and segment row SQLite can
/// still read, nothing trusted until checked (the identity against its checksum, each
/// segment against its LZ4 checksum and its row).
struct RecoverySource {
    let url: URL
    var connection: SQLiteConnection
    /// The meta rows (identity fields restored by ``restoreIdentity(besides:report:)``).
    var values: [String: SQLiteValue] = [:]
    /// Segment rows that could be read, oldest first.
    var records: [SegmentRecord] = []
    /// Segment sequences whose rows SQLite could not read, with the error.
    var unreadable: [UInt64: String] = [:]
    /// Decoded segments by sequence.
    var segments: [UInt64: Segment] = [:]
    /// Damaged segments by sequence, with the reason.
    var damaged: [UInt64: String] = [:]
    /// The model, once the identity is checked.
    var model: ManagedObjectModel?

    /// The stored `compactedThrough` (0 when it cannot be read).
    var compactedThrough: UInt64 {
        if case .integer(let value)? = values["compactedThrough"], value >= 0 { return UInt64(value) }
        return 0
    }

    var identifier: String { DocumentIdentity.text(values["storeIdentifier"]) }

    /// Whether the document can be rebuilt from its log alone: history from segment 1,
    /// contiguous, every segment readable and intact.
    var logIsComplete: Bool {
        guard model != nil, damaged.isEmpty, unreadable.isEmpty else { return false }
        let sequences = records.map(\.sequence)
        guard let first = sequences.first else { return compactedThrough == 0 }
        return first == 1 && sequences.last == UInt64(sequences.count) && compactedThrough <= UInt64(sequences.count)
    }

    /// Reads what it can of the document at `url`.
    /// - Throws: `.corruptDocument` when the file is not a Strata document or SQLite
    ///   cannot read its metadata at all.
    init(_ url: URL) throws {
        self.url = url
        let opened = try Self.open(url.path)
        var connection = opened
        var meta = Self.readMeta(connection)
        if meta == nil || meta?.isEmpty == true, DocumentOpenFailure.kind(of: url.path) == .strata {
            // The schema entry of a Strata table is damaged: repair it in a scratch copy.
            connection.close()
            let scratch = ToolFileWriter.temporaryName(for: url, purpose: "reading")
            try ToolFileWriter.copy(from: url, to: scratch)
            self.scratch = scratch
            for forcingRootPages in [false, true] {
                Self.repairOwnSchema(scratch.path, forcingRootPages: forcingRootPages)
                connection = try Self.open(scratch.path)
                meta = Self.readMeta(connection)
                if meta?.isEmpty == false { break }
                connection.close()
            }
        }
        self.connection = connection
        guard let meta, meta["format"] != nil || meta["storeIdentifier"] != nil else {
            connection.close()
            removeScratch()
            if DocumentOpenFailure.kind(of: url.path) == .strata {
                throw DocumentOpenFailure.damaged(url.path, "SQLite cannot read its metadata, and recovery needs the model and store identifier stored there. Nothing was changed; restore the document from a backup of your own", advice: false)
            }
            throw StrataError(.corruptDocument, "\(url.path) is not a Strata document: it is an SQLite database without Strata metadata.",
                              context: ["path": url.path, "kind": "notStrata"])
        }
        values = meta
        readSegments()
    }

    /// A copy made to repair the schema in, removed when recovery is done.
    private(set) var scratch: URL?

    /// Removes the scratch copy, if one was made.
    func removeScratch() {
        guard let scratch else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(scratch.path + suffix) }
    }

    private static func open(_ path: String) throws -> SQLiteConnection {
        do {
            let connection = try SQLiteConnection(path: path, flags: [.readWrite], busyTimeout: ToolSettings.busyTimeout)
            // SQLite then skips schema entries it cannot parse instead of refusing the whole
            // file: a damaged index or snapshot table definition must not hide the log.
            try connection.execute("PRAGMA writable_schema=ON")
            _ = try connection.prepare("SELECT name FROM sqlite_schema").rows()
            return connection
        } catch {
            throw DocumentOpenFailure.describe(error, path: path)
        }
    }

    private static func readMeta(_ connection: SQLiteConnection) -> [String: SQLiteValue]? {
        guard let rows = try? connection.prepare("SELECT key, value FROM strata_meta").rows() else {
            // A damaged page of the table: look each needed key up alone, so rows on
            // intact pages are still found (key counters are rebuilt from the log).
            var values: [String: SQLiteValue] = [:]
            for key in DocumentIdentity.fields + [DocumentIdentity.key, DocumentIdentity.copyKey, "compactedThrough"] {
                if let value = (try? connection.prepare("SELECT value FROM strata_meta WHERE key = ?").rows([.text(key)]))?.first?.first {
                    values[key] = value
                }
            }
            return values.isEmpty ? nil : values
        }
        var values: [String: SQLiteValue] = [:]
        for row in rows where row.count == 2 {
            if case .text(let key) = row[0] { values[key] = row[1] }
        }
        return values
    }

    /// Rewrites the first four `sqlite_schema` rows, which every document creates for its
    /// own tables, as ``DocumentFile/ownTables`` says (their root pages are 2–5 unless
    /// the file was vacuumed, so a root page is forced only on the second try).
    private static func repairOwnSchema(_ path: String, forcingRootPages: Bool) {
        guard let connection = try? SQLiteConnection(path: path, flags: [.readWrite], busyTimeout: 1) else { return }
        defer { connection.close() }
        try? connection.execute("PRAGMA writable_schema=ON")
        for (index, table) in DocumentFile.ownTables.enumerated() {
            let rowid = Int64(index + 1)
            try? connection.prepare("UPDATE sqlite_schema SET type = 'table', name = ?, tbl_name = ?, sql = ? WHERE rowid = ?")
                .run([.text(table.name), .text(table.name), .text(table.sql), .integer(rowid)])
            if forcingRootPages {
                try? connection.prepare("UPDATE sqlite_schema SET rootpage = ? WHERE rowid = ?").run([.integer(rowid + 1), .integer(rowid)])
            }
        }
        try? connection.execute("PRAGMA writable_schema=RESET")
    }

    private mutating func readSegments() {
        let columns = "seq, time, groups, operations, raw_size, body"
        func record(_ row: [SQLiteValue]) -> SegmentRecord {
            func integer(_ index: Int) -> Int64 { if case .integer(let value) = row[index] { value } else { -1 } }
            var time = 0.0
            if case .real(let value) = row[1] { time = value } else if case .integer(let value) = row[1] { time = Double(value) }
            var body: [UInt8] = []
            if case .blob(let bytes) = row[5] { body = bytes }
            let sequence = UInt64(max(0, integer(0)))
            return SegmentRecord(sequence: sequence, timestamp: Date(timeIntervalSince1970: time), groupCount: Int(integer(2)),
                                 operationCount: Int(integer(3)), rawSize: Int(integer(4)), body: body,
                                 isCompacted: sequence <= compactedThrough)
        }
        if let rows = try? connection.prepare("SELECT \(columns) FROM strata_segment ORDER BY seq").rows() {
            records = rows.map(record)
            return
        }
        // The table's pages are damaged: read row by row what the index of keys still lists.
        let sequences = (try? connection.prepare("SELECT seq FROM strata_segment ORDER BY seq").rows()) ?? []
        var highest: UInt64 = 0
        for row in sequences {
            guard case .integer(let sequence)? = row.first else { continue }
            highest = max(highest, UInt64(max(0, sequence)))
            do {
                if let found = try connection.prepare("SELECT \(columns) FROM strata_segment WHERE seq = ?").rows([.integer(sequence)]).first {
                    records.append(record(found))
                }
            } catch {
                unreadable[UInt64(max(0, sequence))] = "SQLite cannot read its row (\(error))"
            }
        }
        if sequences.isEmpty { unreadable[0] = "SQLite cannot read the log table" }
    }

    /// Decodes every readable segment with the (checked) model.
    mutating func decodeSegments() {
        guard let model else { return }
        let tag = StoreRegistry.tag(for: identifier)
        for record in records {
            do {
                segments[record.sequence] = try ToolLogFile.decode(record, model: model, storeTag: tag)
            } catch let error as StrataError {
                damaged[record.sequence] = error.message
            } catch {
                damaged[record.sequence] = "\(error)"
            }
        }
        for (sequence, reason) in unreadable where sequence > 0 { damaged[sequence] = reason }
    }

    /// The largest key each root entity's inserts used in the readable segments, merged
    /// with the stored counters.
    func keyCounters() -> [String: Int64] {
        var counters: [String: Int64] = [:]
        for (key, value) in values where key.hasPrefix("keyCounter.") {
            if case .integer(let counter) = value { counters[String(key.dropFirst("keyCounter.".count))] = counter }
        }
        for segment in segments.values {
            for group in segment.groups {
                for case .insert(let id, _) in group.operations {
                    let root = id.entity.rootEntity.name
                    counters[root] = max(counters[root] ?? 0, id.primaryKey)
                }
            }
        }
        return counters
    }
}
