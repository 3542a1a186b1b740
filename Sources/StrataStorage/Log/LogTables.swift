import Foundation

/// The log tables of a document and every statement on them: `strata_segment` (one row per
/// segment: sequence, time, counts, raw size, LZ4 body), `strata_group` (each segment's
/// undo groups) and, in documents of format 3, `strata_group_run` (a segment's consecutive
/// undo groups of one kind and action name as one row, docs/FORMAT.md §20). The store,
/// compaction, verification, recovery and the tools all go through here, and read rows one
/// way: a malformed row is an error naming it, never a value made up to stand in for it
/// (docs/FORMAT.md, "The document file").
package enum LogTables {
    /// The `CREATE TABLE` statements, in the order `DocumentFile.ownTables` (in Strata) creates them.
    package static let segmentTable = (name: "strata_segment", sql: """
        CREATE TABLE strata_segment (seq INTEGER PRIMARY KEY, time REAL NOT NULL, groups INTEGER NOT NULL,
        operations INTEGER NOT NULL, raw_size INTEGER NOT NULL, body BLOB NOT NULL)
        """)
    package static let groupTable = (name: "strata_group", sql: """
        CREATE TABLE strata_group (seq INTEGER NOT NULL, id INTEGER NOT NULL, kind INTEGER NOT NULL,
        reverts INTEGER, action TEXT NOT NULL, PRIMARY KEY (seq, id)) WITHOUT ROWID
        """)

    /// Runs of groups (docs/FORMAT.md §20): a row stands for the groups `id` … `id + count − 1`
    /// of segment `seq`, all of `kind`, none reverting another, all named `action`. Made by
    /// the first save that writes one; a document without it has none.
    package static let groupRunTable = (name: "strata_group_run", sql: """
        CREATE TABLE strata_group_run (seq INTEGER NOT NULL, id INTEGER NOT NULL, count INTEGER NOT NULL,
        kind INTEGER NOT NULL, action TEXT NOT NULL, PRIMARY KEY (seq, id)) WITHOUT ROWID
        """)

    /// The fewest consecutive groups written as a run: one row for two is already smaller.
    package static let shortestGroupRun = 2

    /// The `strata_segment` columns a record is read from, in the order ``record(_:compactedThrough:)`` expects.
    private static let columns = "seq, time, groups, operations, raw_size, body"

    // MARK: Reading segments

    /// The stored segments with sequence in `range`, oldest first, not decoded.
    /// - Throws: `.corruptSegment` naming the first malformed row; SQLite errors.
    package static func records(_ connection: SQLiteConnection, in range: ClosedRange<UInt64> = 0...UInt64(Int64.max),
                        compactedThrough: UInt64) throws -> [SegmentRecord] {
        try connection.prepare("SELECT \(columns) FROM strata_segment WHERE seq BETWEEN ? AND ? ORDER BY seq")
            .rows([.integer(Int64(min(range.lowerBound, UInt64(Int64.max)))), .integer(Int64(min(range.upperBound, UInt64(Int64.max))))])
            .map { try record($0, compactedThrough: compactedThrough) }
    }

    /// The sequence numbers of the stored segments, oldest first (read from the table's
    /// key alone, so damage to the rows' other columns does not hide them).
    package static func sequences(_ connection: SQLiteConnection) throws -> [UInt64] {
        try connection.prepare("SELECT seq FROM strata_segment ORDER BY seq").rows().compactMap { row in
            if case .integer(let sequence)? = row.first, sequence >= 0 { UInt64(sequence) } else { nil }
        }
    }

    /// The sequence, decoded size (`raw_size`) and stored body of every segment after
    /// `sequence`, oldest first: what a catch-up decodes and counts.
    /// - Throws: `.corruptSegment` naming a malformed row.
    package static func bodies(_ connection: SQLiteConnection, after sequence: UInt64,
                       through last: UInt64 = UInt64(Int64.max)) throws -> [(sequence: UInt64, rawSize: Int, body: [UInt8])] {
        try connection.prepare("SELECT seq, raw_size, body FROM strata_segment WHERE seq > ? AND seq <= ? ORDER BY seq")
            .rows([.integer(Int64(sequence)), .integer(Int64(min(last, UInt64(Int64.max))))]).map { row in
                guard case .integer(let seq) = row[0], seq >= 0, case .integer(let raw) = row[1], case .blob(let body) = row[2]
                else { throw malformed(row[0]) }
                return (UInt64(seq), Int(raw), body)
            }
    }

    /// A record from a row of ``columns``.
    /// - Throws: `.corruptSegment` naming the row when a column has the wrong type.
    private static func record(_ row: [SQLiteValue], compactedThrough: UInt64) throws -> SegmentRecord {
        guard case .integer(let seq) = row[0], seq >= 0, case .real(let time) = row[1], case .integer(let groups) = row[2],
              case .integer(let operations) = row[3], case .integer(let raw) = row[4], case .blob(let body) = row[5]
        else { throw malformed(row[0]) }
        return SegmentRecord(sequence: UInt64(seq), timestamp: Date(timeIntervalSince1970: time), groupCount: Int(groups),
                             operationCount: Int(operations), rawSize: Int(raw), body: body, isCompacted: UInt64(seq) <= compactedThrough)
    }

    private static func malformed(_ key: SQLiteValue) -> StrataError {
        let name = if case .integer(let seq) = key { "\(seq)" } else { "\(key)" }
        return StrataError(.corruptSegment, "The log row of segment \(name) is malformed.", context: .init { $0.segment = key.sequenceNumber })
    }

    // MARK: Reading groups

    /// The group rows of a segment, by id.
    /// - Throws: `.corruptSegment` naming a malformed row.
    package static func groups(_ connection: SQLiteConnection, of sequence: UInt64) throws -> [ChangeGroupInfo] {
        var groups = try connection.prepare("SELECT seq, id, kind, reverts, action FROM strata_group WHERE seq = ? ORDER BY id")
            .rows([.integer(Int64(sequence))]).map { try group($0).info }
        if try hasGroupRuns(connection) {
            let runs = try connection.prepare("SELECT seq, id, count, kind, action FROM strata_group_run WHERE seq = ?")
                .rows([.integer(Int64(sequence))])
            for row in runs { groups += try groupRun(row).groups }
            groups.sort { $0.id < $1.id }
        }
        return groups
    }

    /// The sequences of the segments holding a group, oldest first.
    package static func sequences(_ connection: SQLiteConnection, ofGroup id: UInt64) throws -> [UInt64] {
        let key = SQLiteValue.integer(Int64(bitPattern: id))
        let rows: [[SQLiteValue]]
        if try hasGroupRuns(connection) {
            rows = try connection.prepare("""
                SELECT seq FROM strata_group WHERE id = ? UNION SELECT seq FROM strata_group_run WHERE id <= ? AND id + count > ?
                ORDER BY seq
                """).rows([key, key, key])
        } else {
            rows = try connection.prepare("SELECT seq FROM strata_group WHERE id = ? ORDER BY seq").rows([key])
        }
        return rows.compactMap { row in
            if case .integer(let sequence)? = row.first, sequence >= 0 { UInt64(sequence) } else { nil }
        }
    }

    /// Every group with the time of its segment, oldest first (a run read as its groups).
    /// - Throws: `.corruptSegment` naming a malformed row.
    package static func groupRecords(_ connection: SQLiteConnection) throws -> [GroupRecord] {
        var records = try connection.prepare("""
            SELECT g.seq, g.id, g.kind, g.reverts, g.action, s.time FROM strata_group g
            JOIN strata_segment s ON s.seq = g.seq ORDER BY g.seq, g.id
            """).rows().map { row in
                let (sequence, info) = try group(row)
                guard case .real(let time) = row[5] else { throw malformed(row[0]) }
                return GroupRecord(sequence: sequence, timestamp: Date(timeIntervalSince1970: time), info: info)
            }
        guard try hasGroupRuns(connection) else { return records }
        let runs = try connection.prepare("""
            SELECT r.seq, r.id, r.count, r.kind, r.action, s.time FROM strata_group_run r
            JOIN strata_segment s ON s.seq = r.seq ORDER BY r.seq, r.id
            """).rows()
        for row in runs {
            let (sequence, groups) = try groupRun(row)
            guard case .real(let time) = row[5] else { throw malformed(row[0]) }
            for info in groups { records.append(GroupRecord(sequence: sequence, timestamp: Date(timeIntervalSince1970: time), info: info)) }
        }
        records.sort { ($0.sequence, $0.info.id) < ($1.sequence, $1.info.id) }
        return records
    }

    /// Whether the document has the table of group runs (format 3, docs/FORMAT.md §20).
    package static func hasGroupRuns(_ connection: SQLiteConnection) throws -> Bool {
        try !connection.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?")
            .rows([.text(groupRunTable.name)]).isEmpty
    }

    /// The groups of a row of `seq, id, count, kind, action`.
    /// - Throws: `.corruptSegment` naming the row's segment when a column is out of range.
    private static func groupRun(_ row: [SQLiteValue]) throws -> (sequence: UInt64, groups: [ChangeGroupInfo]) {
        guard case .integer(let seq) = row[0], seq >= 0, case .integer(let id) = row[1], id >= 0,
              case .integer(let count) = row[2], count >= Int64(shortestGroupRun), count <= Int64(Int32.max), id <= Int64.max - count,
              case .integer(let kind) = row[3], kind >= 0, kind <= 255,
              let groupKind = ChangeGroupKind(rawValue: UInt8(kind)), case .text(let action) = row[4]
        else {
            throw StrataError(.corruptSegment, "A group run row of segment \(row[0]) is malformed.", context: .init { $0.segment = row[0].sequenceNumber })
        }
        let groups = (0..<count).map { ChangeGroupInfo(id: UInt64(id + $0), kind: groupKind, revertsGroup: nil, actionName: action) }
        return (UInt64(seq), groups)
    }

    /// The first group that reverts group `id` (an undo or redo group naming it), with the
    /// segment that holds it; nil when no stored group reverts it.
    ///
    /// - Complexity: one pass over the group table (it has no index on `reverts`; a table
    ///   of a million groups is read in tens of milliseconds, once per undo or redo saved).
    package static func reverter(of id: UInt64, _ connection: SQLiteConnection) throws -> (sequence: UInt64, group: UInt64)? {
        let kinds = "\(ChangeGroupKind.undo.rawValue), \(ChangeGroupKind.redo.rawValue)"
        let row = try connection.prepare("SELECT seq, id FROM strata_group WHERE reverts = ? AND kind IN (\(kinds)) ORDER BY seq LIMIT 1")
            .rows([.integer(Int64(bitPattern: id))]).first
        guard let row, case .integer(let seq) = row[0], seq >= 0, case .integer(let group) = row[1], group >= 0 else { return nil }
        return (UInt64(seq), UInt64(group))
    }

    /// The largest group id recorded within `range` (0 when none).
    package static func largestGroupID(_ connection: SQLiteConnection, in range: Range<Int64> = Int64.min..<Int64.max) throws -> UInt64 {
        var largest: Int64 = 0
        let bounds: [SQLiteValue] = [.integer(range.lowerBound), .integer(range.upperBound)]
        if case .integer(let group)? = try connection.prepare("SELECT MAX(id) FROM strata_group WHERE id >= ? AND id < ?")
            .rows(bounds).first?.first {
            largest = max(largest, group)
        }
        // A run's largest id in the range: its last, or the range's last when it runs past.
        if try hasGroupRuns(connection), case .integer(let group)? = try connection.prepare(
            "SELECT MAX(MIN(id + count - 1, ?2 - 1)) FROM strata_group_run WHERE id + count - 1 >= ?1 AND id < ?2"
        ).rows(bounds).first?.first {
            largest = max(largest, group)
        }
        return UInt64(max(largest, 0))
    }

    /// A group from a row of `seq, id, kind, reverts, action`.
    private static func group(_ row: [SQLiteValue]) throws -> (sequence: UInt64, info: ChangeGroupInfo) {
        guard case .integer(let seq) = row[0], seq >= 0, case .integer(let id) = row[1], id >= 0, case .integer(let kind) = row[2],
              let groupKind = ChangeGroupKind(rawValue: UInt8(truncatingIfNeeded: kind)), case .text(let action) = row[4]
        else {
            throw StrataError(.corruptSegment, "A group row of segment \(row[0]) is malformed.", context: .init { $0.segment = row[0].sequenceNumber })
        }
        var reverts: UInt64?
        switch row[3] {
        case .null: reverts = nil
        case .integer(let value) where value >= 0: reverts = UInt64(value)
        default: throw StrataError(.corruptSegment, "A group row of segment \(seq) is malformed.", context: .init { $0.segment = UInt64(seq) })
        }
        return (UInt64(seq), ChangeGroupInfo(id: UInt64(id), kind: groupKind, revertsGroup: reverts, actionName: action))
    }

    // MARK: Sizes

    /// What the log tables hold, for Strata's `DocumentStore.info()`.
    package static func totals(_ connection: SQLiteConnection) throws -> (segments: Int, bytes: Int, rawBytes: Int, first: UInt64, groups: Int) {
        func integer(_ sql: String) throws -> Int {
            if case .integer(let value)? = try connection.prepare(sql).rows().first?.first { return Int(value) }
            return 0
        }
        var runGroups = 0
        if try hasGroupRuns(connection) { runGroups = try integer("SELECT COALESCE(SUM(count), 0) FROM strata_group_run") }
        return (try integer("SELECT COUNT(*) FROM strata_segment"),
                try integer("SELECT COALESCE(SUM(LENGTH(body)), 0) FROM strata_segment"),
                try integer("SELECT COALESCE(SUM(raw_size), 0) FROM strata_segment"),
                UInt64(max(0, try integer("SELECT COALESCE(MIN(seq), 0) FROM strata_segment"))),
                try integer("SELECT COUNT(*) FROM strata_group") + runGroups)
    }

    // MARK: Writing

    /// The page cache a segment's body larger than this is written with, when the cache is
    /// larger (SQLite's default size): enough for the pages being filled, not the body.
    package static let segmentWritePageCacheSize = 2 << 20

    /// Appends one segment's row and its groups' rows (inside the caller's transaction); with
    /// `runs`, consecutive groups of one kind and action name that revert nothing go into
    /// one `strata_group_run` row (docs/FORMAT.md §20), which only a document of format 3
    /// may hold. Returns whether it wrote such a row.
    @discardableResult
    package static func append(_ connection: SQLiteConnection, _ record: SegmentRecord, groups: [ChangeGroupInfo],
                               runs: Bool = false) throws -> Bool {
        // The body goes in through incremental blob I/O: bound, SQLite would first copy the
        // whole row, body included, into one record buffer (writeBlob says why that matters).
        try connection.prepare(
            "INSERT INTO strata_segment (seq, time, groups, operations, raw_size, body) VALUES (?, ?, ?, ?, ?, zeroblob(?))"
        ).run([
            .integer(Int64(record.sequence)), .real(record.timestamp.timeIntervalSince1970), .integer(Int64(record.groupCount)),
            .integer(Int64(record.operationCount)), .integer(Int64(record.rawSize)), .integer(Int64(record.body.count)),
        ])
        func writeBody() throws {
            try connection.writeBlob(record.body, table: "strata_segment", column: "body", row: Int64(record.sequence))
        }
        // A big body's pages are written once and not read in this transaction: at a full
        // page cache a bulk save's segment stayed in memory beside the context's objects.
        if record.body.count > segmentWritePageCacheSize {
            try connection.withPageCacheLimited(to: segmentWritePageCacheSize, writeBody)
        } else {
            try writeBody()
        }
        let groupInsert = try connection.prepare("INSERT OR REPLACE INTO strata_group (seq, id, kind, reverts, action) VALUES (?, ?, ?, ?, ?)")
        var single = groups
        var grouped: [(first: ChangeGroupInfo, count: Int)] = []
        if runs { (single, grouped) = groupRuns(groups) }
        for group in single {
            try groupInsert.run([
                .integer(Int64(record.sequence)), .integer(Int64(group.id)), .integer(Int64(group.kind.rawValue)),
                group.revertsGroup.map { .integer(Int64($0)) } ?? .null, .text(group.actionName),
            ])
        }
        guard !grouped.isEmpty else { return false }
        try connection.execute(groupRunTable.sql.replacingOccurrences(of: "CREATE TABLE", with: "CREATE TABLE IF NOT EXISTS"))
        let runInsert = try connection.prepare("INSERT INTO strata_group_run (seq, id, count, kind, action) VALUES (?, ?, ?, ?, ?)")
        for run in grouped {
            try runInsert.run([
                .integer(Int64(record.sequence)), .integer(Int64(run.first.id)), .integer(Int64(run.count)),
                .integer(Int64(run.first.kind.rawValue)), .text(run.first.actionName),
            ])
        }
        return true
    }

    /// A segment's groups as rows: one per id (the last group of an id that recurs wins, as
    /// `INSERT OR REPLACE` had it), and runs of at least ``shortestGroupRun`` consecutive ids
    /// of one kind and action name that revert nothing.
    static func groupRuns(_ groups: [ChangeGroupInfo]) -> (single: [ChangeGroupInfo], runs: [(first: ChangeGroupInfo, count: Int)]) {
        var byID: [UInt64: ChangeGroupInfo] = [:]
        for group in groups { byID[group.id] = group }
        let ordered = byID.values.sorted { $0.id < $1.id }
        var single: [ChangeGroupInfo] = []
        var runs: [(first: ChangeGroupInfo, count: Int)] = []
        var index = 0
        while index < ordered.count {
            let first = ordered[index]
            var end = index + 1
            if first.revertsGroup == nil {
                while end < ordered.count, ordered[end].id == ordered[end - 1].id &+ 1, ordered[end].id <= UInt64(Int64.max),
                      ordered[end].kind == first.kind, ordered[end].revertsGroup == nil, ordered[end].actionName == first.actionName {
                    end += 1
                }
            }
            if end - index >= shortestGroupRun {
                runs.append((first, end - index))
            } else {
                single.append(contentsOf: ordered[index..<end])
            }
            index = end
        }
        return (single, runs)
    }

    /// Deletes the segments (and their groups) up to `sequence`; returns how many segments.
    package static func delete(_ connection: SQLiteConnection, through sequence: Int64) throws -> Int {
        try connection.prepare("DELETE FROM strata_group WHERE seq <= ?").run([.integer(sequence)])
        if try hasGroupRuns(connection) {
            try connection.prepare("DELETE FROM strata_group_run WHERE seq <= ?").run([.integer(sequence)])
        }
        try connection.prepare("DELETE FROM strata_segment WHERE seq <= ?").run([.integer(sequence)])
        return connection.changes
    }
}
