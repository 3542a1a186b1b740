import CSQLiteBench
import Foundation
import Strata

/// A minimal handle over the SQLite C API for the raw-SQLite peer: prepared statements,
/// explicit transactions, nothing cached behind the caller's back.
final class RawSQLite {
    private(set) var handle: OpaquePointer?
    let path: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String) throws {
        self.path = path
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw Failure(description: "cannot open \(path): \(message)")
        }
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(error)
            throw Failure(description: "\(sql): \(message)")
        }
    }

    func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement
        else { throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(handle)))") }
        return Statement(statement, connection: self)
    }

    /// The single integer a query returns.
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }

    /// The WAL + synchronous setting every peer uses unless stated (Strata's default), and
    /// Strata's page cache size, so that no subject has a larger cache than another.
    func useDocumentDurability() throws {
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA cache_size=\(RawSQLite.cacheSizePragma)")
    }

    /// `cache_size` in KiB (negative), from Strata's `DocumentStore.Configuration`.
    static let cacheSizePragma = -max(DocumentStore.Configuration().pageCacheSize / 1024, 1)

    final class Statement {
        let pointer: OpaquePointer
        unowned let connection: RawSQLite

        init(_ pointer: OpaquePointer, connection: RawSQLite) {
            self.pointer = pointer
            self.connection = connection
        }

        deinit { sqlite3_finalize(pointer) }

        func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(pointer, index, value) }
        func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(pointer, index, value) }
        func bind(_ index: Int32, _ value: String) {
            var value = value
            value.withUTF8 { bytes in
                _ = sqlite3_bind_text(pointer, index, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self),
                                      Int32(bytes.count), RawSQLite.transient)
            }
        }

        /// Steps once; true while a row is available.
        @discardableResult
        func step() throws -> Bool {
            switch sqlite3_step(pointer) {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            default: throw Failure(description: String(cString: sqlite3_errmsg(connection.handle)))
            }
        }

        func reset() {
            sqlite3_reset(pointer)
            sqlite3_clear_bindings(pointer)
        }

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(pointer, column) }
        func double(_ column: Int32) -> Double { sqlite3_column_double(pointer, column) }
        func text(_ column: Int32) -> String {
            guard let bytes = sqlite3_column_text(pointer, column) else { return "" }
            return String(cString: bytes)
        }
    }

    /// W7's size figures of the database at `url` holding `count` objects, measured on a
    /// vacuumed copy at `copy` (removed afterwards): `W7.snapshot_bytes_per_object` (the
    /// file), `W7.table_bytes_per_object` and `W7.data_bytes_per_object` (see below).
    static func sizeFigures(of url: URL, copy: URL, count: Int) throws -> [String: Double] {
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: url, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let sizes = try vacuumedSizes(of: copy, table: "Employee")
        var figures = ["W7.snapshot_bytes_per_object": Double(sizes.file) / Double(count)]
        if let table = sizes.table { figures["W7.table_bytes_per_object"] = Double(table) / Double(count) }
        if let data = sizes.data { figures["W7.data_bytes_per_object"] = Double(data) / Double(count) }
        return figures
    }

    /// The sizes of a database after VACUUM (the copy is changed): the file; the pages of
    /// `table` alone without its indexes; and the pages of the data, every table and index
    /// except SQLite's own and each engine's bookkeeping tables (`strata_*`: the log and
    /// document metadata; `grdb_*`: migrations). The two page figures come from `dbstat`
    /// (nil when SQLite lacks it).
    static func vacuumedSizes(of url: URL, table: String) throws -> (file: Int, table: Int?, data: Int?) {
        var tableBytes: Int?
        var dataBytes: Int?
        do {
            let connection = try RawSQLite(path: url.path)
            try connection.execute("PRAGMA journal_mode=DELETE")
            try connection.execute("VACUUM")
            if let statement = try? connection.prepare("SELECT SUM(pgsize) FROM dbstat WHERE name = ?") {
                statement.bind(1, table)
                if try statement.step() { tableBytes = Int(statement.int64(0)) }
            }
            let data = """
                SELECT SUM(d.pgsize) FROM dbstat d JOIN sqlite_schema s ON s.name = d.name
                WHERE s.tbl_name NOT LIKE 'strata\\_%' ESCAPE '\\' AND s.tbl_name NOT LIKE 'grdb\\_%' ESCAPE '\\'
                  AND s.tbl_name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                """
            if let statement = try? connection.prepare(data), try statement.step() { dataBytes = Int(statement.int64(0)) }
        }
        return (fileSize(url), tableBytes, dataBytes)
    }
}
