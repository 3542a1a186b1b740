import Foundation

/// A damaged document as recovery reads it: every meta row and segment row SQLite can
/// still read, nothing trusted until checked (the identity against its checksum, each
/// segment against its LZ4 checksum and its row).
struct RecoverySource {
    let url: URL
    /// How long to wait for another process's lock.
    /// The busy timeout, largest segment and limits recovery reads and writes with.
    let settings: DocumentStore.Configuration
    var busyTimeout: TimeInterval { settings.busyTimeout }
    var connection: SQLiteConnection
    /// The meta rows (identity fields restored by ``restoreIdentity(besides:report:)``).
    var values: [String: SQLiteValue] = [:]
    /// Segment rows that could be read, oldest first.
    var records: [SegmentRecord] = []
    /// Segment sequences whose rows SQLite could not read, with the error.
    var unreadable: [UInt64: String] = [:]
    /// Decoded segments by sequence.
    var segments: [UInt64: Segment] = [:]
    /// Segments whose bodies were found in the file's pages, their rows being unreadable
    /// (RecoverySource+Carving).
    var carved: Set<UInt64> = []
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
    init(_ url: URL, settings: DocumentStore.Configuration) throws {
        self.url = url
        self.settings = settings
        let isStrata = DocumentOpenFailure.kind(of: url.path) == .strata
        var opened: (connection: SQLiteConnection, meta: [String: SQLiteValue])?
        do {
            let connection = try Self.open(url.path, busyTimeout: settings.busyTimeout)
            if let meta = Self.readMeta(connection), !meta.isEmpty, Self.ownSchemaIsIntact(connection) {
                opened = (connection, meta)
            } else {
                connection.close()
            }
        } catch where !isStrata {
            throw error
        } catch {}
        if opened == nil, !isStrata {
            throw StrataError(.corruptDocument, "\(url.path) is not a Strata document: it is an SQLite database without Strata metadata.",
                              context: .init { $0.path = url.path; $0.kind = .notStrata })
        }
        if opened == nil {
            // SQLite trips over its own structures: repair them, step by step, in a scratch
            // copy, until the metadata reads (the document itself is not touched).
            let scratch = AtomicFileWriter.temporaryName(for: url, purpose: "reading")
            try AtomicFileWriter.copy(from: url, to: scratch)
            self.scratch = scratch
            for step in 0..<4 {
                switch step {
                case 0: Self.repairHeader(scratch.path)
                case 1: Self.repairOwnSchema(scratch.path, forcingRootPages: false)
                case 2: Self.repairOwnSchema(scratch.path, forcingRootPages: true)
                default: Self.replaceSchemaPage(scratch.path)
                }
                guard let connection = try? Self.open(scratch.path, busyTimeout: settings.busyTimeout) else { continue }
                // Past the header, the schema entries of Strata's own tables are put back
                // too when they differ (a renamed column hides a table's rows).
                if let meta = Self.readMeta(connection), !meta.isEmpty, step > 0 || Self.ownSchemaIsIntact(connection) {
                    opened = (connection, meta)
                    break
                }
                connection.close()
            }
        }
        guard let opened, opened.meta["format"] != nil || opened.meta["storeIdentifier"] != nil else {
            opened?.connection.close()
            if let scratch { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(scratch.path + suffix) } }
            throw DocumentOpenFailure.damaged(url.path, "SQLite cannot read its metadata even after repairing its file header and schema, and recovery needs the model and store identifier stored there. Nothing was changed; restore the document from a backup of your own", advice: false)
        }
        connection = opened.connection
        values = opened.meta
        readSegments()
    }

    /// A copy made to repair the schema in, removed when recovery is done.
    private(set) var scratch: URL?

    /// Removes the scratch copy, if one was made.
    func removeScratch() {
        guard let scratch else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(scratch.path + suffix) }
    }

    private static func open(_ path: String, busyTimeout: TimeInterval) throws -> SQLiteConnection {
        do {
            let connection = try SQLiteConnection(path: path, flags: [.readWrite], busyTimeout: busyTimeout)
            // SQLite then skips schema entries it cannot parse instead of refusing the whole
            // file: a damaged index or snapshot table definition must not hide the log.
            try connection.execute("PRAGMA writable_schema=ON")
            _ = try connection.prepare("SELECT name FROM sqlite_schema").rows()
            return connection
        } catch {
            throw DocumentOpenFailure.describe(error, path: path)
        }
    }

    /// Whether the schema entries of Strata's own tables read as they were written (a
    /// damaged byte in one can rename a column without making the schema unreadable).
    private static func ownSchemaIsIntact(_ connection: SQLiteConnection) -> Bool {
        guard let rows = try? connection.prepare("SELECT name, sql FROM sqlite_schema WHERE rowid <= 4 ORDER BY rowid").rows() else { return false }
        let expected = DocumentFile.ownTables.map { [SQLiteValue.text($0.name), .text($0.sql)] }
        return rows == expected
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

    /// The last resort for a damaged first page (the schema's): replaces it with the first
    /// page of a fresh database holding only Strata's own four tables, at root pages 2–5
    /// as in every document. The log and the metadata read again; the snapshot tables are
    /// rebuilt from the log.
    private static func replaceSchemaPage(_ path: String) {
        guard let handle = FileHandle(forUpdatingAtPath: path),
              let header = try? handle.read(upToCount: 100), header.count == 100 else { return }
        defer { try? handle.close() }
        let raw = Int(header[16]) << 8 | Int(header[17])
        let pageSize = raw == 1 ? 65536 : raw
        let fresh = path + "-fresh"
        defer { unlink(fresh) }
        do {
            let connection = try SQLiteConnection(path: fresh, flags: [.readWrite, .create], busyTimeout: 1)
            try connection.execute("PRAGMA page_size=\(pageSize)")
            for table in DocumentFile.ownTables { try connection.execute(table.sql) }
            connection.close()
        } catch {
            return
        }
        guard let page = FileManager.default.contents(atPath: fresh), page.count >= pageSize else { return }
        try? handle.seek(toOffset: 100)
        try? handle.write(contentsOf: page.subdata(in: 100..<pageSize))
    }

    /// Puts back the fields of SQLite's 100-byte file header that every document has the
    /// same way (magic text, payload fractions, reserved bytes) and replaces values SQLite
    /// would refuse (page size, file format versions, schema format, text encoding) by the
    /// ones Strata writes.
    private static func repairHeader(_ path: String) {
        guard let handle = FileHandle(forUpdatingAtPath: path) else { return }
        defer { try? handle.close() }
        guard var header = try? handle.read(upToCount: 100).map(Array.init), header.count == 100 else { return }
        header.replaceSubrange(0..<16, with: Array("SQLite format 3\0".utf8))
        let pageSize = Int(header[16]) << 8 | Int(header[17])
        let fileSize = (try? handle.seekToEnd()).map(Int.init) ?? 0
        let valid = pageSize == 1 || (pageSize >= 512 && pageSize <= 32768 && pageSize & (pageSize - 1) == 0)
        if !valid || (pageSize > 1 && fileSize % pageSize != 0) {
            let size = [4096, 1024, 2048, 8192, 16384, 32768, 65536, 512].first { fileSize % $0 == 0 } ?? 4096
            header[16] = size == 65536 ? 0 : UInt8(size >> 8)
            header[17] = size == 65536 ? 1 : UInt8(size & 0xFF)
        }
        for index in [18, 19] where header[index] != 1 && header[index] != 2 { header[index] = 2 }
        header[20] = 0
        header[21] = 64
        header[22] = 32
        header[23] = 32
        if !(1...4).contains(header[47]) || header[44] != 0 || header[45] != 0 || header[46] != 0 { header.replaceSubrange(44..<48, with: [0, 0, 0, 4]) }
        if !(1...3).contains(header[59]) || header[56] != 0 || header[57] != 0 || header[58] != 0 { header.replaceSubrange(56..<60, with: [0, 0, 0, 1]) }
        try? handle.seek(toOffset: 0)
        try? handle.write(contentsOf: Data(header))
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

    /// Decodes every readable segment with the (checked) model, or one saved before a
    /// migration with the model version it was written with.
    mutating func decodeSegments() {
        guard let model else { return }
        let tag = StoreRegistry.tag(for: identifier)
        let earlier = earlierModels(), since = modelSince
        for (index, record) in records.enumerated() {
            let segmentModel = record.sequence < since ? earlier.last(where: { $0.firstSegment <= record.sequence })?.model ?? model : model
            do {
                // The body is the truth, not the row (RecoverySource+Rows): the rebuilt row
                // takes its counts from the decoded body.
                let segment = try SegmentCodec.decodeCompressed(record.body, model: segmentModel, storeTag: tag, sequenceHint: record.sequence,
                                                                maxContentSize: settings.maxSegmentSize)
                records[index].groupCount = segment.groups.count
                records[index].operationCount = segment.operationCount
                segments[record.sequence] = segment
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
