import Foundation

/// What `PRAGMA integrity_check` adds to `PRAGMA quick_check`, checked in passes that read
/// each table and each index once in its own order (check 1 of ``DocumentWriteCheck``;
/// docs/RELIABILITY.md, "What a write checks").
///
/// Why not SQLite's own: `integrity_check` walks a table in key order and looks each row
/// up in every index of it. An index on a column whose order is not the key's (names,
/// salaries) is then read at random, one descent per row: at 1,000,000 rows its pages
/// no longer fit the processor's caches, and the two such indexes of W8's table cost about
/// three seconds — nine times their cost at 200,000 rows, and two fifths of an undo of an
/// import (docs/ARCHITECTURE.md, "Undo"). Reading the table and each index in its own
/// order costs about a quarter of that.
///
/// What is checked, for every index of a table with a rowid whose key columns are plain
/// columns compared as bytes (every index Strata makes):
/// - it holds exactly the table's rows: the number of entries, and an order-independent
///   digest of every entry — its key columns' values and its row's rowid — against the
///   same digest of the table's rows (a missing, extra or changed entry changes the sum but
///   by a 2⁻⁶⁴ chance);
/// - its entries are in its order (what makes each findable: SQLite's check finds a
///   misplaced entry when its search for it fails);
/// - a UNIQUE index holds no key twice (its equal keys are next to each other).
/// The rightmost column of every table's every record is decoded (SQLite's record header
/// check). An index of another kind (an expression, a collation, a partial index, a table
/// without rowid) has its table checked by `PRAGMA integrity_check(table)`.
enum DocumentIndexCheck {
    /// One index checked by digest.
    private struct Index {
        let name: String
        let table: String
        let columns: [String]
        /// Per key column, whether the index sorts it descending.
        let descending: [Bool]
        let isUnique: Bool
    }

    /// What a table's pass found: its rows, and each index's digest of them.
    private struct Tally: Equatable {
        var count: Int64 = 0
        var sum: UInt64 = 0
    }

    /// Runs the check. Returns what is wrong, in words, or nil.
    static func problem(_ connection: SQLiteConnection) throws -> String? {
        let tables = try connection.prepare("""
            SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name
            """).rows().compactMap { row -> String? in
            guard case .text(let name)? = row.first else { return nil }
            if case .text(let sql)? = row.last, sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE") { return nil }
            return name
        }
        for table in tables {
            var digested: [Index] = []
            var fallBack = false
            for row in try connection.prepare("PRAGMA index_list(\(SnapshotSchema.quote(table)))").rows() {
                guard row.count >= 5, case .text(let name) = row[1] else { continue }
                if let index = try digestible(name, table: table, row: row, connection) {
                    digested.append(index)
                } else {
                    fallBack = true
                }
            }
            if fallBack {
                let lines = try connection.prepare("PRAGMA integrity_check(\(SnapshotSchema.quote(table)))").rows()
                    .compactMap { row -> String? in if case .text(let text)? = row.first { text } else { nil } }
                if lines != ["ok"] { return lines.prefix(5).joined(separator: "; ") }
                continue
            }
            if let problem = try check(table, digested, connection) { return problem }
        }
        return nil
    }

    /// The index as the digest checks it, or nil when it is of another kind.
    private static func digestible(_ name: String, table: String, row: [SQLiteValue], _ connection: SQLiteConnection) throws -> Index? {
        guard case .integer(0) = row[4] else { return nil }   // partial
        var columns: [String] = []
        var descending: [Bool] = []
        var rowid = false
        for column in try connection.prepare("PRAGMA index_xinfo(\(SnapshotSchema.quote(name)))").rows() {
            guard column.count >= 6, case .integer(let cid) = column[1], case .integer(let key) = column[5] else { return nil }
            if key == 1 {
                guard cid >= 0, case .text(let columnName) = column[2], case .text(let collation) = column[4],
                      collation.uppercased() == "BINARY" else { return nil }
                columns.append(columnName)
                if case .integer(let desc) = column[3] { descending.append(desc != 0) } else { descending.append(false) }
            } else {
                guard cid == -1, !rowid else { return nil }   // a table without rowid
                rowid = true
            }
        }
        guard rowid, !columns.isEmpty else { return nil }
        let isUnique: Bool
        if case .integer(let unique) = row[2] { isUnique = unique != 0 } else { isUnique = false }
        return Index(name: name, table: table, columns: columns, descending: descending, isUnique: isUnique)
    }

    /// The table's pass (every row, its rightmost column decoded, each index's digest) and
    /// each index's pass, compared.
    private static func check(_ table: String, _ indexes: [Index], _ connection: SQLiteConnection) throws -> String? {
        let names = try connection.prepare("PRAGMA table_info(\(SnapshotSchema.quote(table)))").rows()
            .compactMap { row -> String? in if row.count > 1, case .text(let name) = row[1] { name } else { nil } }
        guard let last = names.last else { return nil }
        var selected: [String] = []
        var position: [String: Int] = [:]
        for index in indexes {
            for column in index.columns where position[column] == nil {
                position[column] = selected.count + 2
                selected.append(column)
            }
        }
        let list = (["rowid", "typeof(\(SnapshotSchema.quote(last)))"] + selected.map(SnapshotSchema.quote)).joined(separator: ", ")
        let scan = try connection.prepare("SELECT \(list) FROM \(SnapshotSchema.quote(table)) NOT INDEXED")
        defer { scan.resetQuietly() }
        let columnsOf = indexes.map { index in index.columns.map { position[$0] ?? 0 } }
        var expected = [Tally](repeating: Tally(), count: indexes.count)
        while try scan.step() == .row {
            let rowid = UInt64(bitPattern: scan.int64(at: 0))
            for (slot, columns) in columnsOf.enumerated() {
                var digest: UInt64 = 0
                for column in columns { digest = SQLiteStatement.mix(digest, scan.fingerprint(at: column)) }
                expected[slot].count += 1
                expected[slot].sum &+= SQLiteStatement.mix(digest, rowid)
            }
        }
        for (slot, index) in indexes.enumerated() {
            let keys = index.columns.map(SnapshotSchema.quote).joined(separator: ", ")
            let read = try connection.prepare("SELECT \(keys), rowid FROM \(SnapshotSchema.quote(table)) INDEXED BY \(SnapshotSchema.quote(index.name))")
            defer { read.resetQuietly() }
            var found = Tally()
            var previous: UInt64?
            var order = SQLiteIndexOrder(descending: index.descending)
            let rowidColumn = index.columns.count
            while try read.step() == .row {
                // Out of order, an entry is not where a search for it looks.
                guard order.follows(read) else { return "the index \(index.name) holds entries out of order" }
                var digest: UInt64 = 0
                var hasNull = false
                for column in 0..<rowidColumn {
                    let value = read.fingerprint(at: column)
                    if value == SQLiteStatement.nullFingerprint { hasNull = true }
                    digest = SQLiteStatement.mix(digest, value)
                }
                if index.isUnique, !hasNull, previous == digest {
                    return "its unique index \(index.name) holds one key twice"
                }
                previous = hasNull ? nil : digest
                found.count += 1
                found.sum &+= SQLiteStatement.mix(digest, UInt64(bitPattern: read.int64(at: rowidColumn)))
            }
            if found != expected[slot] {
                return found.count == expected[slot].count
                    ? "the index \(index.name) does not hold the values of the rows of \(table)"
                    : "the index \(index.name) holds \(found.count) entries for the \(expected[slot].count) rows of \(table)"
            }
        }
        return nil
    }
}
