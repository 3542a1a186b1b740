import Foundation
import PostgresNIO
import Strata

/// A document's log on a PostgreSQL server, as a ``Strata/SegmentRemote``: what
/// `strata push`, `pull` and `sync` exchange a local file's segments through.
///
/// ```swift
/// let remote = try PostgresSegmentRemote(url: "postgres://alice@db:5432/app", document: "plans")
/// let news = try remote.segments(after: 41, limit: 100)
/// ```
///
/// Each call is one transaction on the server. Appends take the document's advisory lock
/// (the same one ``PostgresDocumentStore`` saves under), so a remote and open stores
/// append in turn. Thread-safe: calls are serialized on one connection.
public final class PostgresSegmentRemote: SegmentRemote, @unchecked Sendable {
    /// The server and document, never a password.
    public var location: String { session.location.description }

    private let session: PostgresSession
    /// Reads segments from the location's replicas when they have replayed far enough.
    private let reads: PostgresReadRouter
    private let lock = NSLock()
    /// The document's id, once found.
    private var id: Int64?

    /// Connects to the server at `url` (creating Strata's tables when missing).
    /// - Throws: `.invalidArgument` for a malformed URL; `.server` naming the server when
    ///   it cannot be reached or refuses the login.
    public convenience init(url: String, document: String) throws {
        try self.init(location: PostgresLocation(url, document: document))
    }

    /// Connects to the server of `location` (creating Strata's tables when missing).
    /// - Throws: `.server` naming the server when it cannot be reached or refuses the login.
    public init(location: PostgresLocation) throws {
        session = PostgresSession(location)
        reads = PostgresReadRouter(primary: session, idleTimeout: nil)
        try PostgresLog.installSchema(session)
    }

    /// Closes the connections.
    public func close() {
        lock.withLock {
            reads.close()
            session.close()
        }
    }

    /// The document, or nil when the server has none of that name.
    public func document() throws -> RemoteDocument? {
        try lock.withLock {
            let found = try PostgresLog.document(named: session.location.document, session)
            id = found?.id
            return found?.remote
        }
    }

    /// Creates the document with its first segments, in one transaction.
    /// - Throws: `.invalidArgument` when a document of that name exists (nothing written).
    public func create(_ document: RemoteDocument, segments: [RemoteSegment]) throws {
        try lock.withLock {
            let name = session.location.document
            let created = try session.transaction { () -> Int64 in
                guard let id = try PostgresLog.insert(named: name, document, session) else {
                    throw StrataError(.invalidArgument, "The document \(input: name) already exists on \(session.location.server).",
                                      context: .init { $0.server = session.location.server; $0.document = name })
                }
                try PostgresLog.lock(id, session)
                try PostgresLog.append(segments, to: id, keys: [:], groups: 0, session)
                return id
            }
            id = created
        }
    }

    /// The segments after `sequence`, oldest first, at most `limit`: from the location's
    /// replicas what they have replayed, the rest from the primary.
    public func segments(after sequence: Int64, limit: Int) throws -> [RemoteSegment] {
        try lock.withLock { try reads.segments(of: try documentID(), after: sequence, limit: limit).segments }
    }

    /// Appends the segments if the document's last sequence is still `expectedLast`.
    /// - Returns: false when another writer appended first (nothing written).
    public func append(_ segments: [RemoteSegment], expectingLast expectedLast: Int64) throws -> Bool {
        try lock.withLock {
            let id = try documentID()
            return try session.transaction {
                try PostgresLog.lock(id, session)
                guard try PostgresLog.head(id, session).last == expectedLast else { return false }
                for (offset, segment) in segments.enumerated() where segment.sequence != expectedLast + 1 + Int64(offset) {
                    throw StrataError(.invalidArgument, "Segment \(segment.sequence) does not follow \(expectedLast + Int64(offset)).",
                                      context: .init { $0.segment = UInt64(exactly: segment.sequence) })
                }
                try PostgresLog.append(segments, to: id, keys: [:], groups: 0, session)
                DocumentSync.fault("push-committing")
                return true
            }
        }
    }

    /// Registers a replica of the document and returns its number (from 1).
    public func registerReplica(named name: String) throws -> Int {
        try lock.withLock { try PostgresLog.registerReplica(try documentID(), session) }
    }

    private func documentID() throws -> Int64 {
        if let id { return id }
        guard let found = try PostgresLog.document(named: session.location.document, session) else {
            throw StrataError(.objectNotFound, "There is no document \(input: session.location.document) on \(session.location.server).",
                              context: .init { $0.server = session.location.server; $0.document = session.location.document })
        }
        id = found.id
        return found.id
    }
}
