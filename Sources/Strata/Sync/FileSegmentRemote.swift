import Foundation

/// A remote that is one SQLite file (`hub.strata-remote`): the remote for tests and for
/// people without a server, who share the file through a shared folder.
///
/// The file holds the same two tables as the PostgreSQL schema — `documents` (one row: the
/// store identifier, the model JSON and hash, the replica counter) and `segments`
/// (sequence, time, counts, raw size, the LZ4 body, the replica that appended it) — and
/// every call is one write transaction (`BEGIN IMMEDIATE`), so several processes can push
/// to one file: an append checks the last sequence inside the transaction that writes.
///
/// ```swift
/// let remote = try FileSegmentRemote(url: URL(fileURLWithPath: "hub.strata-remote"))
/// let report = try DocumentSync(store: store, remote: remote).push()
/// ```
public final class FileSegmentRemote: SegmentRemote {
    /// The file's path.
    public let location: String
    private let connection: Locked<SQLiteConnection>

    /// Written in the file's header (`PRAGMA application_id`): "StRm".
    static let applicationID: Int64 = 0x5374_526D

    /// Opens the remote file at `url`; when there is none, creates an empty one (no
    /// document yet) if `creatingIfMissing`, as a first push does.
    /// - Throws: `.io` when the file does not exist (and is not to be created) or cannot be
    ///   opened or created; `.invalidArgument` when the file is something else than a
    ///   Strata remote (a document, another database).
    public init(url: URL, creatingIfMissing: Bool = true, busyTimeout: TimeInterval = 10) throws {
        location = url.path
        // A directory, FIFO or device is no remote: SQLite would fail with an I/O error or block.
        if case .other(let what) = FileKind(of: url.path) {
            throw StrataError(.invalidArgument, "The remote \(url.path) is \(what); name a .strata-remote file (a first push creates one).",
                              context: .init { $0.path = url.path; $0.kind = .notRegularFile })
        }
        let exists = FileManager.default.fileExists(atPath: url.path)
        guard exists || creatingIfMissing else {
            throw StrataError(.io, "There is no remote at \(url.path); a first push creates it (`strata push DOC \(url.lastPathComponent)`).",
                              context: .init { $0.path = url.path })
        }
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: url.path, flags: [.readWrite, .create], busyTimeout: busyTimeout)
        } catch let error as StrataError {
            throw StrataError(.io, "Cannot open the remote \(url.path): \(error.message)", context: .init { $0.path = url.path })
        }
        do {
            try connection.transaction(.immediate) {
                let id = try connection.prepare("PRAGMA application_id").rows().first?.first
                let tables = try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").rows()
                if case .integer(Self.applicationID)? = id { return }
                guard tables.isEmpty else {
                    throw StrataError(.invalidArgument,
                                      "\(url.path) is not a Strata remote (a file made by `strata push DOC \(url.lastPathComponent)`); give a new or a remote file.",
                                      context: .init { $0.path = url.path })
                }
                try connection.execute("""
                    CREATE TABLE documents (store_identifier TEXT NOT NULL, model_json BLOB NOT NULL, model_hash TEXT NOT NULL,
                    replica_counter INTEGER NOT NULL)
                    """)
                try connection.execute("""
                    CREATE TABLE segments (sequence INTEGER PRIMARY KEY, time REAL NOT NULL, groups INTEGER NOT NULL,
                    operations INTEGER NOT NULL, raw_size INTEGER NOT NULL, body BLOB NOT NULL, replica INTEGER NOT NULL)
                    """)
                try connection.execute("PRAGMA application_id = \(Self.applicationID)")
            }
            if !exists { try connection.execute("PRAGMA journal_mode=WAL") }
        } catch {
            connection.close()
            throw error
        }
        self.connection = Locked(connection)
    }

    deinit { connection.withLock { $0.close() } }

    /// The remote document, or nil when nothing was pushed to the file yet.
    public func document() throws -> RemoteDocument? {
        try write { connection in try Self.readDocument(connection) }
    }

    /// Creates the document with its first segments; throws when the file holds one.
    public func create(_ document: RemoteDocument, segments: [RemoteSegment]) throws {
        try write { connection in
            if let existing = try Self.readDocument(connection) {
                throw StrataError(.invalidArgument,
                                  "The remote \(location) already holds document \(existing.storeIdentifier); clone it (`strata clone \(location) DOC`) instead.",
                                  context: .init { $0.remote = location })
            }
            try connection.prepare("INSERT INTO documents (store_identifier, model_json, model_hash, replica_counter) VALUES (?, ?, ?, 0)")
                .run([.text(document.storeIdentifier), .blob([UInt8](document.modelJSON)), .text(document.modelHash)])
            try insert(connection, segments, after: 0)
        }
    }

    /// The segments after `sequence`, oldest first.
    public func segments(after sequence: Int64, limit: Int) throws -> [RemoteSegment] {
        try write { connection in
            try connection.prepare("""
                SELECT sequence, time, groups, operations, raw_size, body, replica FROM segments
                WHERE sequence > ? ORDER BY sequence LIMIT ?
                """).rows([.integer(sequence), .integer(Int64(max(limit, 0)))]).map { row in
                    guard case .integer(let seq) = row[0], case .real(let time) = row[1], case .integer(let groups) = row[2],
                          case .integer(let operations) = row[3], case .integer(let raw) = row[4], case .blob(let body) = row[5],
                          case .integer(let replica) = row[6]
                    else {
                        throw StrataError(.corruptSegment, "The remote \(location) holds a malformed row for segment \(row[0]).",
                                          context: .init { $0.segment = row[0].sequenceNumber; $0.remote = location })
                    }
                    return RemoteSegment(sequence: seq, time: Date(timeIntervalSince1970: time), groups: Int(groups),
                                         operations: Int(operations), rawSize: Int(raw), body: Data(body), replica: Int(replica))
                }
        }
    }

    /// Appends when the last sequence is still `expectedLast`; false (nothing written) otherwise.
    public func append(_ segments: [RemoteSegment], expectingLast expectedLast: Int64) throws -> Bool {
        try write { connection in
            guard let document = try Self.readDocument(connection) else {
                throw StrataError(.invalidArgument, "The remote \(location) holds no document yet; push one first.", context: .init { $0.remote = location })
            }
            guard document.lastSequence == expectedLast else { return false }
            try insert(connection, segments, after: expectedLast)
            return true
        }
    }

    /// Registers a replica: the next number of the document's replica counter.
    public func registerReplica(named name: String) throws -> Int {
        try write { connection in
            guard try Self.readDocument(connection) != nil else {
                throw StrataError(.invalidArgument, "The remote \(location) holds no document yet; push one first.", context: .init { $0.remote = location })
            }
            try connection.execute("UPDATE documents SET replica_counter = replica_counter + 1")
            guard case .integer(let counter)? = try connection.prepare("SELECT replica_counter FROM documents").rows().first?.first else {
                throw StrataError(.corruptDocument, "The remote \(location) has a malformed documents row.", context: .init { $0.remote = location })
            }
            return Int(counter)
        }
    }

    // MARK: Inside a transaction

    private func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { connection in try connection.transaction(.immediate) { try body(connection) } }
    }

    private func insert(_ connection: SQLiteConnection, _ segments: [RemoteSegment], after last: Int64) throws {
        let statement = try connection.prepare("""
            INSERT INTO segments (sequence, time, groups, operations, raw_size, body, replica) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for (offset, segment) in segments.enumerated() where segment.sequence != last + 1 + Int64(offset) {
            throw StrataError(.invalidArgument, "Segment \(segment.sequence) is out of place: the remote \(location) expects \(last + 1 + Int64(offset)).",
                              context: .init { $0.segment = UInt64(exactly: segment.sequence); $0.remote = location })
        }
        for segment in segments {
            try statement.run([
                .integer(segment.sequence), .real(segment.time.timeIntervalSince1970), .integer(Int64(segment.groups)),
                .integer(Int64(segment.operations)), .integer(Int64(segment.rawSize)), .blob([UInt8](segment.body)),
                .integer(Int64(segment.replica)),
            ])
        }
    }

    private static func readDocument(_ connection: SQLiteConnection) throws -> RemoteDocument? {
        let rows = try connection.prepare("""
            SELECT store_identifier, model_json, model_hash, (SELECT COALESCE(MAX(sequence), 0) FROM segments) FROM documents
            """).rows()
        guard let row = rows.first else { return nil }
        guard case .text(let identifier) = row[0], case .blob(let json) = row[1], case .text(let hash) = row[2],
              case .integer(let last) = row[3]
        else {
            throw StrataError(.corruptDocument, "The remote's documents row is malformed.")
        }
        return RemoteDocument(storeIdentifier: identifier, modelJSON: Data(json), modelHash: hash, lastSequence: last)
    }
}
