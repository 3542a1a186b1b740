import Foundation

/// Drops the secondary indexes of snapshot tables that a compaction is about to fill with
/// more new rows than they hold, and creates them again once the rows are in.
///
/// Why: SQLite maintains every index row by row, one B-tree descent per index and row in
/// key order that is random for the index (names, salaries). `CREATE INDEX` over the filled
/// table sorts once and writes each index page once, which costs far less when most rows are
/// new (a bulk import folded into an empty snapshot). It runs inside the compaction's
/// transaction: a failure or kill leaves the indexes as they were. Tables that already hold
/// more rows than are written keep their indexes (rebuilding would read them all).
struct SnapshotIndexRebuild {
    /// Only folds of at least this many rows into one table consider rebuilding.
    static let minimumRows = 20_000

    private let connection: SQLiteConnection
    /// The `CREATE INDEX` statements dropped, to run again.
    private(set) var dropped: [String] = []

    /// Drops the indexes of every table in `rowsByTable` that receives at least
    /// `minimumRows` rows and at least as many as it holds, except those named in `keeping`.
    init(connection: SQLiteConnection, rowsByTable: [String: Int], minimumRows: Int = Self.minimumRows,
         keeping: Set<String> = []) throws {
        self.connection = connection
        for (table, rows) in rowsByTable.sorted(by: { $0.key < $1.key }) where rows >= max(1, minimumRows) {
            let quoted = SnapshotSchema.quote(table)
            guard case .integer(let held)? = try connection.prepare("SELECT count(*) FROM \(quoted)").rows().first?.first,
                  held <= Int64(rows) else { continue }
            // Only the indexes the snapshot schema made (`sql` is NULL for the automatic ones
            // behind UNIQUE or PRIMARY KEY constraints, which cannot be dropped).
            let indexes = try connection.prepare(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name")
                .rows([.text(table)])
            for row in indexes {
                guard case .text(let name) = row[0], case .text(let sql) = row[1], !keeping.contains(name) else { continue }
                try connection.execute("DROP INDEX \(SnapshotSchema.quote(name))")
                dropped.append(sql)
            }
        }
    }

    /// Creates the dropped indexes again.
    func restore() throws {
        for sql in dropped {
            do {
                try connection.execute(sql)
            } catch where SnapshotSchema.isUniqueViolation(error) && sql.hasPrefix("CREATE UNIQUE INDEX") {
                // A constraint index whose records a batch request made clash: kept
                // non-unique (`strata-log verify` names the records), not a failed write.
                try connection.execute("CREATE INDEX" + sql.dropFirst("CREATE UNIQUE INDEX".count))
            }
        }
    }
}
