import Foundation

/// What a document that syncs records about its remote, in its own file (docs/FORMAT.md,
/// "Sync records"): three `strata_meta` keys and the table `strata_sync_segment`, created
/// when the document is first attached. A document that never synced has none of them.
///
/// - `sync.remote`: where the remote is (text, as given to `strata push`).
/// - `sync.replica`: this document's replica number on the remote (its key range).
/// - `sync.remoteSequence`: the last remote segment taken in (pulled, or recognised as
///   this replica's own).
/// - `strata_sync_segment`: one row per local segment that came from, or went to, the
///   remote: its local sequence, its remote sequence, the replica that wrote it, a checksum
///   of the remote body, and its state (pulled, sending, sent).
enum SyncRecords {
    static let table = "strata_sync_segment"
    static let tableSQL = """
        CREATE TABLE IF NOT EXISTS strata_sync_segment (seq INTEGER PRIMARY KEY, remote_seq INTEGER NOT NULL,
        replica INTEGER NOT NULL, checksum INTEGER NOT NULL, state INTEGER NOT NULL)
        """

    /// The state of a local segment with respect to the remote.
    enum State: Int64 {
        /// Taken in from the remote (another replica's save): never pushed back, never undone here.
        case pulled = 0
        /// About to be appended (written before the append, so an interrupted push can
        /// recognise its own segments on the remote by replica and checksum).
        case sending = 1
        /// On the remote.
        case sent = 2
    }

    /// The meta keys.
    static let remoteKey = "sync.remote"
    static let replicaKey = "sync.replica"
    static let remoteSequenceKey = "sync.remoteSequence"

    /// What a document records about its remote.
    struct Attachment: Equatable {
        var location: String
        /// Nil until the remote registered this document as a replica.
        var replica: Int?
        var remoteSequence: Int64
    }

    static func hasTable(_ connection: SQLiteConnection) throws -> Bool {
        !(try connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").rows([.text(table)])).isEmpty
    }

    /// The attachment, or nil when the document never synced.
    static func attachment(_ connection: SQLiteConnection) throws -> Attachment? {
        let rows = try connection.prepare("SELECT key, value FROM strata_meta WHERE key >= 'sync.' AND key < 'sync/'").rows()
        var location: String?
        var replica: Int?
        var sequence: Int64 = 0
        for row in rows where row.count == 2 {
            switch (row[0], row[1]) {
            case (.text(remoteKey), .text(let text)): location = text
            case (.text(replicaKey), .integer(let value)): replica = Int(value)
            case (.text(remoteSequenceKey), .integer(let value)): sequence = value
            default: continue
            }
        }
        guard let location else { return nil }
        return Attachment(location: location, replica: replica, remoteSequence: sequence)
    }

    /// The primary keys and group ids the document hands out, when it is a replica.
    static func replicaKeyRange(_ connection: SQLiteConnection) throws -> Range<Int64>? {
        let rows = try connection.prepare("SELECT value FROM strata_meta WHERE key = ?").rows([.text(replicaKey)])
        guard case .integer(let replica)? = rows.first?.first, replica >= 1 else { return nil }
        return RemoteDocument.keyRange(forReplica: Int(replica))
    }

    static func write(_ connection: SQLiteConnection, _ attachment: Attachment) throws {
        try connection.execute(tableSQL)
        try DocumentFile.writeMeta(connection, key: remoteKey, .text(attachment.location))
        if let replica = attachment.replica { try DocumentFile.writeMeta(connection, key: replicaKey, .integer(Int64(replica))) }
        try DocumentFile.writeMeta(connection, key: remoteSequenceKey, .integer(attachment.remoteSequence))
    }

    /// Records a local segment's state.
    static func record(_ connection: SQLiteConnection, local: UInt64, remote: Int64, replica: Int, checksum: UInt64, state: State) throws {
        try connection.prepare("INSERT OR REPLACE INTO strata_sync_segment (seq, remote_seq, replica, checksum, state) VALUES (?, ?, ?, ?, ?)")
            .run([.integer(Int64(local)), .integer(remote), .integer(Int64(replica)), .integer(Int64(bitPattern: checksum)), .integer(state.rawValue)])
    }

    /// The local sequences in a state.
    static func sequences(_ connection: SQLiteConnection, in states: [State]) throws -> Set<UInt64> {
        guard try hasTable(connection) else { return [] }
        let list = states.map { String($0.rawValue) }.joined(separator: ", ")
        return Set(try connection.prepare("SELECT seq FROM strata_sync_segment WHERE state IN (\(list))").rows().compactMap { row in
            if case .integer(let seq)? = row.first, seq >= 0 { UInt64(seq) } else { nil }
        })
    }

    /// The local segment waiting as `sending` at remote sequence `remote` with `checksum`, if any.
    static func sending(_ connection: SQLiteConnection, remote: Int64, checksum: UInt64) throws -> UInt64? {
        let rows = try connection.prepare("SELECT seq FROM strata_sync_segment WHERE state = ? AND remote_seq = ? AND checksum = ?")
            .rows([.integer(State.sending.rawValue), .integer(remote), .integer(Int64(bitPattern: checksum))])
        if case .integer(let seq)? = rows.first?.first { return UInt64(seq) }
        return nil
    }

    /// FNV-1a, 64 bits: tells this replica's own bodies on the remote from any other
    /// (a body names its sequence, so two different saves never share one by accident).
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
