import Foundation
import PostgresNIO
import Strata

/// The shared tables on the server (docs/POSTGRES.md, "Schema") and every statement on
/// them: the store, the remote and the tests all go through here.
enum PostgresLog {
    /// The schema's statements, run once per session under an advisory lock (so that
    /// many writers opening at once do not race `CREATE TABLE IF NOT EXISTS`).
    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS strata_documents (
            id BIGSERIAL PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            store_identifier TEXT NOT NULL,
            model TEXT NOT NULL,
            model_hash TEXT NOT NULL,
            last_sequence BIGINT NOT NULL DEFAULT 0,
            key_counters JSONB NOT NULL DEFAULT '{}',
            group_counter BIGINT NOT NULL DEFAULT 0,
            next_replica BIGINT NOT NULL DEFAULT 1,
            created_at TIMESTAMPTZ NOT NULL DEFAULT now())
        """,
        """
        CREATE TABLE IF NOT EXISTS strata_segments (
            document BIGINT NOT NULL REFERENCES strata_documents (id) ON DELETE CASCADE,
            sequence BIGINT NOT NULL,
            time DOUBLE PRECISION NOT NULL,
            groups BIGINT NOT NULL,
            operations BIGINT NOT NULL,
            raw_size BIGINT NOT NULL,
            body BYTEA NOT NULL,
            replica BIGINT NOT NULL DEFAULT 0,
            PRIMARY KEY (document, sequence))
        """,
        PostgresSnapshot.recordTable,
    ]

    /// The first key of the advisory locks Strata takes (`'St'`); the second is the
    /// document's id, or 0 for the schema.
    static let lockSpace: Int32 = 0x5374

    /// A document's row.
    struct Document {
        var id: Int64
        var remote: RemoteDocument
        var keyCounters: [String: Int64]
        var groupCounter: UInt64
    }

    /// Creates the tables when missing.
    static func installSchema(_ session: PostgresSession) throws {
        try session.transaction {
            try session.query("SELECT pg_advisory_xact_lock(\(lockSpace), 0)")
            for statement in schema { try session.query(PostgresQuery(unsafeSQL: statement)) }
        }
    }

    /// The document named `name`, or nil.
    static func document(named name: String, _ session: PostgresSession) throws -> Document? {
        let rows = try session.query("""
            SELECT id, store_identifier, model, model_hash, last_sequence, key_counters::text, group_counter
            FROM strata_documents WHERE name = \(name)
            """)
        guard let row = rows.first else { return nil }
        do {
            let (id, identifier, model, hash, last, counters, groups) = try row.decode((Int64, String, String, String, Int64, String, Int64).self)
            let keys = (try? JSONDecoder().decode([String: Int64].self, from: Data(counters.utf8))) ?? [:]
            return Document(id: id, remote: RemoteDocument(storeIdentifier: identifier, modelJSON: Data(model.utf8), modelHash: hash,
                                                           lastSequence: last),
                            keyCounters: keys, groupCounter: UInt64(max(groups, 0)))
        } catch {
            throw StrataError(.corruptDocument, "The row of document \(input: name) on \(session.location.server) is malformed: \(error)",
                              context: .init { $0.server = session.location.server; $0.document = name })
        }
    }

    /// Inserts the document's row (inside the caller's transaction).
    /// - Returns: nil when a document of that name exists (nothing is written).
    static func insert(named name: String, _ document: RemoteDocument, _ session: PostgresSession) throws -> Int64? {
        let model = String(decoding: document.modelJSON, as: UTF8.self)
        let rows = try session.query("""
            INSERT INTO strata_documents (name, store_identifier, model, model_hash)
            VALUES (\(name), \(document.storeIdentifier), \(model), \(document.modelHash))
            ON CONFLICT (name) DO NOTHING RETURNING id
            """)
        return try rows.first?.decode(Int64.self)
    }

    /// Takes the document's write lock until the transaction ends: one writer appends at
    /// a time, and the others wait here (not in a failed insert).
    static func lock(_ id: Int64, _ session: PostgresSession) throws {
        try session.query("SELECT pg_advisory_xact_lock(\(lockSpace), \(Int32(truncatingIfNeeded: id)))")
    }

    /// The document's last sequence and counters as committed (or as the caller's
    /// transaction sees them).
    static func head(_ id: Int64, _ session: PostgresSession) throws -> (last: Int64, keys: [String: Int64], groups: UInt64) {
        let rows = try session.query("SELECT last_sequence, key_counters::text, group_counter FROM strata_documents WHERE id = \(id)")
        guard let row = rows.first else {
            throw StrataError(.objectNotFound, "The document was deleted from \(session.location.server).",
                              context: .init { $0.server = session.location.server })
        }
        let (last, counters, groups) = try row.decode((Int64, String, Int64).self)
        let keys = (try? JSONDecoder().decode([String: Int64].self, from: Data(counters.utf8))) ?? [:]
        return (last, keys, UInt64(max(groups, 0)))
    }

    /// The segments after `sequence`, oldest first, at most `limit`.
    static func segments(_ id: Int64, after sequence: Int64, limit: Int = Int(Int32.max), _ session: PostgresSession) throws -> [RemoteSegment] {
        let rows = try session.query("""
            SELECT sequence, time, groups, operations, raw_size, body, replica FROM strata_segments
            WHERE document = \(id) AND sequence > \(sequence) ORDER BY sequence LIMIT \(Int64(limit))
            """)
        return try rows.map { row in
            let (sequence, time, groups, operations, rawSize, body, replica) = try row.decode((Int64, Double, Int64, Int64, Int64, Data, Int64).self)
            return RemoteSegment(sequence: sequence, time: Date(timeIntervalSince1970: time), groups: Int(groups),
                                 operations: Int(operations), rawSize: Int(rawSize), body: body, replica: Int(replica))
        }
    }

    /// Whether the document holds `segment`: its sequence with its very bytes (another
    /// writer's segment at that sequence is not it).
    static func holds(_ segment: RemoteSegment, document id: Int64, _ session: PostgresSession) throws -> Bool {
        let rows = try session.query("""
            SELECT body = \(segment.body) FROM strata_segments WHERE document = \(id) AND sequence = \(segment.sequence)
            """)
        return try rows.first?.decode(Bool.self) ?? false
    }

    /// Appends segments and moves the head (inside the caller's transaction, holding
    /// ``lock(_:_:)``); the unique (document, sequence) key refuses a duplicate even so.
    /// Tells listeners once the transaction commits (NOTIFY is delivered at COMMIT).
    static func append(_ segments: [RemoteSegment], to id: Int64, keys: [String: Int64], groups: UInt64,
                       _ session: PostgresSession) throws {
        guard let last = segments.last?.sequence else { return }
        for segment in segments {
            try session.query("""
                INSERT INTO strata_segments (document, sequence, time, groups, operations, raw_size, body, replica)
                VALUES (\(id), \(segment.sequence), \(segment.time.timeIntervalSince1970), \(Int64(segment.groups)),
                        \(Int64(segment.operations)), \(Int64(segment.rawSize)), \(segment.body), \(Int64(segment.replica)))
                """)
        }
        try raiseCounters(id, keys: keys, groups: groups, last: last, session)
        try session.query("SELECT pg_notify(\(channel(id)), \(String(last)))")
    }

    /// Raises the document's counters (never lowers them) and sets its last sequence.
    static func raiseCounters(_ id: Int64, keys: [String: Int64], groups: UInt64, last: Int64? = nil, _ session: PostgresSession) throws {
        let json = String(decoding: (try? JSONEncoder().encode(keys)) ?? Data("{}".utf8), as: UTF8.self)
        // jsonb_object_agg of the larger of each pair: a counter only ever grows.
        try session.query("""
            UPDATE strata_documents SET
              last_sequence = GREATEST(last_sequence, \(last ?? 0)),
              group_counter = GREATEST(group_counter, \(Int64(clamping: groups))),
              key_counters = (SELECT COALESCE(jsonb_object_agg(k, GREATEST(COALESCE((key_counters ->> k)::bigint, 0),
                                                                          COALESCE((\(json)::jsonb ->> k)::bigint, 0))), '{}'::jsonb)
                              FROM (SELECT jsonb_object_keys(key_counters) AS k
                                    UNION SELECT jsonb_object_keys(\(json)::jsonb)) AS names)
            WHERE id = \(id)
            """)
    }

    /// Hands out the next replica number of the document.
    static func registerReplica(_ id: Int64, _ session: PostgresSession) throws -> Int {
        let rows = try session.query("UPDATE strata_documents SET next_replica = next_replica + 1 WHERE id = \(id) RETURNING next_replica - 1")
        guard let replica = try rows.first?.decode(Int64.self) else {
            throw StrataError(.objectNotFound, "The document was deleted from \(session.location.server).",
                              context: .init { $0.server = session.location.server })
        }
        return Int(replica)
    }

    /// The NOTIFY channel of a document: its payload is the last sequence appended.
    static func channel(_ id: Int64) -> String { "strata_document_\(id)" }
}
