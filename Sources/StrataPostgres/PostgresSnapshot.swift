import Foundation
import PostgresNIO
import Strata

/// A document's snapshot on the server (docs/POSTGRES.md, "Snapshot tables"): its rows,
/// folded through one segment, in real tables of a schema of its own,
/// `strata_doc_<document id>`, one table per table of the local snapshot (same names and
/// columns, PostgreSQL types); `strata_snapshots` records which schema holds it, through
/// which sequence, and in which layout. Every statement on them is here.
enum PostgresSnapshot {
    /// The table recording each document's snapshot (part of ``PostgresLog/schema``).
    static let recordTable = """
        CREATE TABLE IF NOT EXISTS strata_snapshots (
            document BIGINT PRIMARY KEY REFERENCES strata_documents (id) ON DELETE CASCADE,
            schema_name TEXT NOT NULL,
            sequence BIGINT NOT NULL,
            layout INTEGER NOT NULL,
            model_hash TEXT NOT NULL,
            row_count BIGINT NOT NULL,
            compacted_at TIMESTAMPTZ NOT NULL DEFAULT now())
        """

    /// The first key of the compaction lock (`'Sc'`): not the writers' (`'St'`), so a
    /// compaction never waits for a save nor a save for a compaction.
    static let lockSpace: Int32 = 0x5363

    /// PostgreSQL cuts identifiers to 63 bytes: a longer name would silently become another.
    static let longestName = 63

    /// What `strata_snapshots` says of a document's snapshot.
    struct Record {
        var schema: String
        var sequence: Int64
        var layout: Int
        var rows: Int64
    }

    /// How one compaction on the server ended.
    enum Outcome {
        case written(rows: Int, tables: Int)
        /// Another compactor holds the lock: this one wrote nothing.
        case anotherCompactor
        /// The server's snapshot is already folded through `sequence` (at least as far).
        case upToDate(sequence: Int64)
    }

    /// The schema of a document's snapshot tables.
    static func schemaName(_ id: Int64) -> String { "strata_doc_\(id)" }

    static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// The document's snapshot record, or nil when it has no snapshot yet.
    static func record(_ id: Int64, _ session: PostgresSession) throws -> Record? {
        let rows = try session.query("SELECT schema_name, sequence, layout, row_count FROM strata_snapshots WHERE document = \(id)")
        guard let row = rows.first else { return nil }
        let (schema, sequence, layout, count) = try row.decode((String, Int64, Int32, Int64).self)
        return Record(schema: schema, sequence: sequence, layout: Int(layout), rows: count)
    }

    /// The document's snapshot as rows, or nil when it has none (or one in a layout this
    /// Strata does not write: the whole log is replayed instead). Read in one
    /// REPEATABLE READ transaction, so a compaction committing meanwhile is not half seen.
    /// - Throws: `.server` naming the server; `.corruptDocument` naming the table when a
    ///   table or value does not fit the model's snapshot.
    static func read(_ id: Int64, model: ManagedObjectModel, _ session: PostgresSession) throws -> SnapshotTables? {
        try session.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        defer { _ = try? session.query("ROLLBACK") }
        guard let record = try record(id, session), record.layout == SnapshotTables.layoutVersion else { return nil }
        var tables = try SnapshotTables.layout(of: model)
        try requireColumns(of: tables, in: record.schema, session)
        for index in tables.indices {
            let table = tables[index]
            let columns = table.columns.map { quote($0.name) }.joined(separator: ", ")
            let order = table.primaryKey.map(quote).joined(separator: ", ")
            let rows = try session.query(PostgresQuery(unsafeSQL: "SELECT \(columns) FROM \(quote(record.schema)).\(quote(table.name)) ORDER BY \(order)"))
            tables[index].rows.reserveCapacity(rows.count)
            for row in rows {
                var values: [SQLiteValue] = []
                values.reserveCapacity(table.columns.count)
                for (cell, column) in zip(row, table.columns) {
                    values.append(try value(cell, column, table: table.name, server: session.location.server))
                }
                tables[index].rows.append(values)
            }
        }
        return SnapshotTables(through: record.sequence, tables: tables)
    }

    /// Checks that the schema has every table and column of the snapshot, each of its type
    /// (a decoder would read a text column changed to `bytea` as text, say, without a word).
    /// - Throws: `.corruptDocument` naming the table and column.
    private static func requireColumns(of tables: [SnapshotTables.Table], in schema: String, _ session: PostgresSession) throws {
        let server = session.location.server
        var found: [String: String] = [:]
        for row in try session.query("SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = \(schema)") {
            let (table, column, type) = try row.decode((String, String, String).self)
            found["\(table)\u{0}\(column)"] = type
        }
        for table in tables {
            for column in table.columns {
                guard let type = found["\(table.name)\u{0}\(column.name)"] else {
                    throw StrataError(.corruptDocument,
                                      "The snapshot table '\(table.name)' in schema \(schema) on \(server) has no column '\(column.name)'.",
                                      context: .init { $0.table = table.name; $0.columnName = column.name; $0.server = server })
                }
                guard type.lowercased() == Self.type(column.type).lowercased() else {
                    throw StrataError(.corruptDocument,
                                      "Column '\(column.name)' of the snapshot table '\(table.name)' in schema \(schema) on \(server) is \(type), not \(Self.type(column.type).lowercased()).",
                                      context: .init { $0.table = table.name; $0.columnName = column.name; $0.server = server })
                }
            }
        }
    }

    /// Replaces the document's server snapshot with `snapshot`, in one transaction holding
    /// the compaction lock (``lockSpace``), taken with `pg_try_advisory_xact_lock`: when
    /// another compactor holds it, nothing is written. Writers are never waited for and
    /// never wait: the lock is not theirs, the rows written are only the snapshot's, and
    /// readers of the old snapshot keep reading it (MVCC) until the commit.
    /// - Throws: `.server` naming the server; `.invalidArgument` when a table or column
    ///   name is longer than PostgreSQL keeps; `.corruptDocument` when a value does not fit
    ///   its column.
    /// - Parameter beforeCommit: a test seam, run inside the transaction just before COMMIT.
    static func write(_ snapshot: SnapshotTables, document id: Int64, modelHash: String,
                      _ session: PostgresSession, beforeCommit: () -> Void = {}) throws -> Outcome {
        let server = session.location.server
        for table in snapshot.tables {
            for name in [table.name] + table.columns.map(\.name) where name.utf8.count > longestName {
                throw StrataError(.invalidArgument,
                                  "The snapshot table or column '\(name)' is longer than PostgreSQL's \(longestName)-byte names; the document cannot have a snapshot on \(server).",
                                  context: .init { $0.table = table.name; $0.server = server })
            }
        }
        return try session.transaction {
            let locked = try session.query("SELECT pg_try_advisory_xact_lock(\(lockSpace), \(Int32(truncatingIfNeeded: id)))")
            guard try locked.first?.decode(Bool.self) == true else { return .anotherCompactor }
            if let existing = try record(id, session), existing.layout == SnapshotTables.layoutVersion,
               existing.sequence >= snapshot.through {
                return .upToDate(sequence: existing.sequence)
            }
            let schema = schemaName(id)
            try session.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(quote(schema))"))
            var count = 0
            for table in snapshot.tables {
                let name = "\(quote(schema)).\(quote(table.name))"
                let columns = table.columns.map { "\(quote($0.name)) \(type($0.type))\($0.isNullable ? "" : " NOT NULL")" }
                let key = table.primaryKey.map(quote).joined(separator: ", ")
                try session.query(PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(name) (\(columns.joined(separator: ", ")), PRIMARY KEY (\(key)))"))
                // The whole table is rewritten: DELETE (not TRUNCATE, whose lock would make
                // a store opening the document wait) keeps the old rows readable until COMMIT.
                try session.query(PostgresQuery(unsafeSQL: "DELETE FROM \(name)"))
                try insert(table, into: name, session)
                count += table.rows.count
            }
            try session.query("""
                INSERT INTO strata_snapshots (document, schema_name, sequence, layout, model_hash, row_count, compacted_at)
                VALUES (\(id), \(schema), \(snapshot.through), \(Int32(SnapshotTables.layoutVersion)), \(modelHash), \(Int64(count)), now())
                ON CONFLICT (document) DO UPDATE SET schema_name = excluded.schema_name, sequence = excluded.sequence,
                  layout = excluded.layout, model_hash = excluded.model_hash, row_count = excluded.row_count,
                  compacted_at = excluded.compacted_at
                """)
            beforeCommit()
            return .written(rows: count, tables: snapshot.tables.count)
        }
    }

    /// Multi-row INSERTs of a table's rows, as many rows a statement as stay well under
    /// PostgreSQL's 65,535 parameters. Every parameter is cast to its column's type: a
    /// VALUES list whose column holds only NULLs would otherwise be typed text.
    private static func insert(_ table: SnapshotTables.Table, into name: String, _ session: PostgresSession) throws {
        let width = table.columns.count
        let perStatement = max(1, 30_000 / max(width, 1))
        let columns = table.columns.map { quote($0.name) }.joined(separator: ", ")
        var start = 0
        while start < table.rows.count {
            let chunk = table.rows[start..<min(start + perStatement, table.rows.count)]
            var binds = PostgresBindings(capacity: chunk.count * width)
            var tuples: [String] = []
            tuples.reserveCapacity(chunk.count)
            for row in chunk {
                var marks: [String] = []
                marks.reserveCapacity(width)
                for (value, column) in zip(row, table.columns) {
                    try bind(value, column, table: table.name, into: &binds)
                    marks.append("$\(binds.count)::\(type(column.type))")
                }
                tuples.append("(\(marks.joined(separator: ", ")))")
            }
            try session.query(PostgresQuery(unsafeSQL: "INSERT INTO \(name) (\(columns)) VALUES \(tuples.joined(separator: ", "))", binds: binds))
            start += chunk.count
        }
    }

    /// The PostgreSQL type of a column of a storage class.
    private static func type(_ type: SnapshotTables.ColumnType) -> String {
        switch type {
        case .integer: "BIGINT"
        case .real: "DOUBLE PRECISION"
        case .text: "TEXT"
        case .blob: "BYTEA"
        }
    }

    private static func bind(_ value: SQLiteValue, _ column: SnapshotTables.Column, table: String,
                             into binds: inout PostgresBindings) throws {
        switch (value, column.type) {
        case (.null, _): binds.appendNull()
        case (.integer(let number), .integer): binds.append(number)
        // SQLite keeps a whole number stored in a REAL column as an integer on disk.
        case (.integer(let number), .real): binds.append(Double(number))
        case (.real(let number), .real): binds.append(number)
        case (.text(let text), .text): binds.append(text)
        case (.blob(let bytes), .blob): binds.append(ByteBuffer(bytes: bytes))
        default:
            throw StrataError(.corruptDocument,
                              "Column '\(column.name)' of snapshot table '\(table)' holds \(value), which is not of its type (\(column.type.rawValue)).",
                              context: .init { $0.table = table; $0.columnName = column.name })
        }
    }

    private static func value(_ cell: PostgresCell, _ column: SnapshotTables.Column, table: String, server: String) throws -> SQLiteValue {
        do {
            switch column.type {
            case .integer: return try cell.decode(Int64?.self).map(SQLiteValue.integer) ?? .null
            case .real: return try cell.decode(Double?.self).map(SQLiteValue.real) ?? .null
            case .text: return try cell.decode(String?.self).map(SQLiteValue.text) ?? .null
            case .blob: return try cell.decode(ByteBuffer?.self).map { .blob(Array($0.readableBytesView)) } ?? .null
            }
        } catch {
            throw StrataError(.corruptDocument,
                              "Column '\(column.name)' of the snapshot table '\(table)' on \(server) does not hold \(column.type.rawValue) values: \(error)",
                              context: .init { $0.table = table; $0.columnName = column.name; $0.server = server })
        }
    }

    /// The rows in each snapshot table on the server, by table name (empty without a snapshot).
    static func rowCounts(_ id: Int64, model: ManagedObjectModel, _ session: PostgresSession) throws -> [String: Int] {
        guard let record = try record(id, session) else { return [:] }
        var counts: [String: Int] = [:]
        for table in try SnapshotTables.layout(of: model) {
            let rows = try session.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(quote(record.schema)).\(quote(table.name))"))
            counts[table.name] = Int(try rows.first?.decode(Int64.self) ?? 0)
        }
        return counts
    }
}
