import Foundation

/// What an open to write checks before anything is written, when
/// ``DocumentStore/Configuration/checksIntegrityOnOpen`` is on (every CLI command that
/// writes): damage found here refuses the write with "… is a damaged Strata document: …;
/// run `strata-log verify` …, then `strata-log recover` …", and nothing is written
/// (docs/RELIABILITY.md, "Damaged documents", "What a write checks").
///
/// Each check costs about one pass over what it reads, like SQLite's own:
/// 1. what `PRAGMA integrity_check` checks: every page, every record, and every index
///    entry against its table (`quick_check` skips the indexes, so a missing index row — a
///    uniqueness constraint that no longer sees a duplicate — went unnoticed), as
///    `quick_check` and ``DocumentIndexCheck`` (each index read in its own order, not
///    looked up once per row);
/// 2. the schema entries of Strata's own four tables, word for word (a damaged byte can
///    rename a column and still parse);
/// 3. every stored segment's LZ4 frame and content checksum, and the sequence, size and
///    group count its body starts with against its log row and its group rows (no
///    operation is decoded: that is `strata-log verify`'s replay);
/// 4. once the model is read, every snapshot table's columns against the layout the
///    document's format gives the model (a damaged schema entry can rename a column of a
///    snapshot table as well as of Strata's own).
///
/// What is left to `strata-log verify`: a changed value inside an intact snapshot record
/// or group row (found by replaying the whole log), and relationships and keys that
/// disagree across records.
enum DocumentWriteCheck {
    /// Runs the checks on an open connection.
    /// - Throws: `.corruptDocument` ("damaged … strata-log recover") naming what is wrong.
    static func check(_ connection: SQLiteConnection, path: String, maxSegmentSize: Int) throws {
        try pages(connection, path: path)
        try ownSchema(connection, path: path)
        try segments(connection, path: path, maxSegmentSize: maxSegmentSize)
    }

    /// Check 4, run by the open once the model and its ``SnapshotSchema`` are known.
    static func checkSnapshotLayout(_ schema: SnapshotSchema, _ connection: SQLiteConnection, path: String, formatVersion: Int) throws {
        if let problem = try schema.layoutProblems(connection, formatVersion: formatVersion).first {
            throw DocumentOpenFailure.damaged(path, problem.hasSuffix(".") ? String(problem.dropLast()) : problem)
        }
    }

    private static func pages(_ connection: SQLiteConnection, path: String) throws {
        do {
            // `quick_check` is `integrity_check` without comparing indexes with their
            // tables, which ``DocumentIndexCheck`` does reading each in its own order.
            let rows = try connection.prepare("PRAGMA quick_check(5)").rows()
            let lines = rows.compactMap { row -> String? in if case .text(let text)? = row.first { text } else { nil } }
            guard lines == ["ok"] else {
                throw DocumentOpenFailure.damaged(path, "SQLite's integrity check found: \(lines.joined(separator: "; ").prefix(400))")
            }
            if let problem = try DocumentIndexCheck.problem(connection) {
                throw DocumentOpenFailure.damaged(path, "its integrity check found: \(problem.prefix(400))")
            }
        } catch let error as StrataError where SQLiteFailureCause.of(error) == .corrupt {
            throw DocumentOpenFailure.damaged(path, "SQLite's integrity check cannot read it (\(DocumentOpenFailure.engineDetail(error.message)))")
        }
    }

    private static func ownSchema(_ connection: SQLiteConnection, path: String) throws {
        let stored = try connection.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name IN ('strata_meta', 'strata_segment', 'strata_group', 'strata_entity')").rows()
        var byName: [String: String] = [:]
        for row in stored where row.count == 2 {
            if case .text(let name) = row[0], case .text(let sql) = row[1] { byName[name] = sql }
        }
        for table in DocumentFile.ownTables where byName[table.name] != table.sql {
            throw DocumentOpenFailure.damaged(path, "the schema entry of its table \(table.name) is not the one Strata writes")
        }
    }

    private static func segments(_ connection: SQLiteConnection, path: String, maxSegmentSize: Int) throws {
        func damaged(_ sequence: Int64, _ why: String) -> StrataError {
            DocumentOpenFailure.damaged(path, "segment \(sequence) \(why)", context: .init { $0.segment = UInt64(exactly: sequence) })
        }
        // One row at a time: a retained history can be far larger than memory. A run row
        // (format 3, docs/FORMAT.md §20) stands for its groups.
        let runGroups = try LogTables.hasGroupRuns(connection)
            ? " + (SELECT COALESCE(SUM(r.count), 0) FROM strata_group_run r WHERE r.seq = s.seq)" : ""
        let statement = try connection.prepare("""
            SELECT s.seq, s.groups, s.raw_size, s.body, (SELECT count(*) FROM strata_group g WHERE g.seq = s.seq)\(runGroups)
            FROM strata_segment s ORDER BY s.seq
            """)
        defer { statement.resetQuietly() }
        while try statement.step() == .row {
            let sequence = statement.int64(at: 0)
            let raw: [UInt8]
            do {
                raw = try LZ4Frame.decompress(statement.bytes(at: 3), maxContentSize: maxSegmentSize)
            } catch let error as StrataError {
                throw damaged(sequence, "fails its checksum (\(error.message))")
            }
            var reader = ByteReader(raw)
            guard (try? reader.readRaw(count: SegmentFormat.magic.count)) == SegmentFormat.magic, let version = try? reader.readVarint(),
                  let bodySequence = try? reader.readVarint(), (try? reader.readZigzag()) != nil,
                  (try? Self.skipMetadata(of: version, in: &reader)) != nil, let groups = try? reader.readVarint()
            else { throw damaged(sequence, "has a body that does not start as a segment's does") }
            guard bodySequence == UInt64(bitPattern: sequence) else { throw damaged(sequence, "has a body saying sequence \(bodySequence)") }
            guard Int64(raw.count) == statement.int64(at: 2) else {
                throw damaged(sequence, "has a body of \(raw.count) bytes where its log row says \(statement.int64(at: 2))")
            }
            // A group id can recur within a save; its rows are one per id (LogTables.append).
            let groupRows = statement.int64(at: 4)
            guard Int64(groups) == statement.int64(at: 1), groupRows <= Int64(groups), (groups == 0) == (groupRows == 0) else {
                throw damaged(sequence, "holds \(groups) undo groups where its log row says \(statement.int64(at: 1)) and it has \(statement.int64(at: 4)) group rows")
            }
        }
        let runOrphans = try LogTables.hasGroupRuns(connection)
            ? " + (SELECT count(*) FROM strata_group_run WHERE seq NOT IN (SELECT seq FROM strata_segment))" : ""
        let orphans = try connection.prepare("SELECT (SELECT count(*) FROM strata_group WHERE seq NOT IN (SELECT seq FROM strata_segment))\(runOrphans)").rows()
        if case .integer(let count)? = orphans.first?.first, count > 0 {
            throw DocumentOpenFailure.damaged(path, "\(count) undo group rows belong to no stored segment")
        }
    }

    /// Skips the author and context name a body of version 3 or later holds after its
    /// timestamp (docs/FORMAT.md §15.1).
    private static func skipMetadata(of version: UInt64, in reader: inout ByteReader) throws {
        guard version >= SegmentFormat.metadataVersion else { return }
        for _ in 0..<2 where try reader.readByte() == 1 { _ = try reader.readString() }
    }
}
