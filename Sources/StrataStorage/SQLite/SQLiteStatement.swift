import CSQLite
import Foundation

/// A prepared SQL statement: bind parameters by index (1-based), step through rows, read
/// columns (0-based), reset and run again.
///
/// ```swift
/// let select = try connection.prepare("SELECT name, salary FROM employee WHERE id = ?")
/// try select.bind(.integer(7), at: 1)
/// while try select.step() == .row {
///     print(select.string(at: 0) ?? "-", select.int64(at: 1))
/// }
/// ```
package final class SQLiteStatement {
    /// What one call to ``step()`` produced.
    package enum StepResult: Sendable, Hashable {
        /// A row is ready to read.
        case row
        /// The statement has run to completion.
        case done
    }

    private(set) var handle: OpaquePointer?
    private let database: OpaquePointer
    /// The SQL text the statement was prepared from.
    package let sql: String

    init(handle: OpaquePointer, database: OpaquePointer, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit { finalize() }

    /// Finalizes the statement; any later use throws.
    func finalize() {
        if let handle { sqlite3_finalize(handle) }
        handle = nil
    }

    private func live() throws -> OpaquePointer {
        guard let handle else { throw StrataError.sqliteMisuse("the statement is finalized", sql: sql) }
        return handle
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw StrataError.sqlite(resultCode: code, database: database, sql: sql) }
    }

    // MARK: Binding

    /// The number of `?` parameters.
    package var parameterCount: Int { handle.map { Int(sqlite3_bind_parameter_count($0)) } ?? 0 }

    /// Binds a value to the parameter at `index` (1-based).
    /// - Throws: ``StrataError`` `.sqlite` for an index out of range (`SQLITE_RANGE`).
    package func bind(_ value: SQLiteValue, at index: Int) throws {
        let statement = try live()
        let position = Int32(clamping: index)
        switch value {
        case .null: try check(sqlite3_bind_null(statement, position))
        case .integer(let number): try check(sqlite3_bind_int64(statement, position, number))
        case .real(let number): try check(sqlite3_bind_double(statement, position, number))
        case .text(var text):
            // The byte count, not -1: a string may hold NUL characters. The string's own
            // UTF-8 (SQLite copies it): passing the String made a C string of it first, an
            // allocation per value (docs/ARCHITECTURE.md, "Compaction and retention").
            let code = text.withUTF8 { bytes -> Int32 in
                // A null pointer would bind NULL: an empty string binds "".
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(statement, position, "", 0, SQLITE_TRANSIENT_DESTRUCTOR)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(statement, position, $0, Int32(clamping: bytes.count), SQLITE_TRANSIENT_DESTRUCTOR)
                }
            }
            try check(code)
        case .blob(let bytes): try bind(bytes: bytes, at: index)
        }
    }

    /// Binds values to parameters 1, 2, 3...
    package func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    /// Binds an integer.
    package func bind(_ value: Int64, at index: Int) throws { try bind(.integer(value), at: index) }
    /// Binds an integer (also what an integer literal binds).
    package func bind(_ value: Int, at index: Int) throws { try bind(.integer(Int64(value)), at: index) }
    /// Binds a double.
    package func bind(_ value: Double, at index: Int) throws { try bind(.real(value), at: index) }
    /// Binds text.
    package func bind(_ value: String, at index: Int) throws { try bind(.text(value), at: index) }
    /// Binds NULL.
    package func bindNull(at index: Int) throws { try bind(.null, at: index) }
    /// Binds a blob from `Data`.
    package func bind(_ value: Data, at index: Int) throws { try bind(bytes: [UInt8](value), at: index) }

    /// Binds a blob (an empty array binds a zero-length blob, not NULL).
    package func bind(bytes: [UInt8], at index: Int) throws {
        let statement = try live()
        let position = Int32(clamping: index)
        if bytes.isEmpty { try check(sqlite3_bind_zeroblob(statement, position, 0)); return }
        let code = bytes.withUnsafeBytes { raw in
            sqlite3_bind_blob64(statement, position, raw.baseAddress, sqlite3_uint64(raw.count),
                                SQLITE_TRANSIENT_DESTRUCTOR)
        }
        try check(code)
    }

    /// Sets every parameter back to NULL.
    package func clearBindings() throws { try check(sqlite3_clear_bindings(try live())) }

    // MARK: Running

    /// Runs the statement to its next row or to completion.
    /// - Throws: ``StrataError`` `.sqlite`, or `.documentBusy` when a lock outlasts the busy
    ///   timeout; the context names the SQL and codes.
    package func step() throws -> StepResult {
        let code = sqlite3_step(try live())
        switch code {
        case SQLITE_ROW: return .row
        case SQLITE_DONE: return .done
        default:
            // Reset so the statement is usable again; the step's code is the one reported.
            sqlite3_reset(handle)
            throw StrataError.sqlite(resultCode: code, database: database, sql: sql)
        }
    }

    /// Rewinds the statement so it can run again; bindings are kept.
    package func reset() throws {
        let code = sqlite3_reset(try live())
        try check(code)
    }

    /// Rewinds without reporting the last run's error (used when handing out a cached one).
    package func resetQuietly() { if let handle { sqlite3_reset(handle) } }

    /// Binds `values`, runs the statement to completion and resets it.
    package func run(_ values: [SQLiteValue] = []) throws {
        try reset()
        try bind(values)
        while try step() == .row {}
        try reset()
    }

    /// Binds `values`, runs the statement and returns every row, then resets it.
    package func rows(_ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        try reset()
        try bind(values)
        var result: [[SQLiteValue]] = []
        while try step() == .row {
            result.append((0..<columnCount).map { value(at: $0) })
        }
        try reset()
        return result
    }

    // MARK: Columns

    /// The number of columns in a result row.
    package var columnCount: Int { handle.map { Int(sqlite3_column_count($0)) } ?? 0 }

    /// The name of the column at `index`.
    package func columnName(at index: Int) -> String {
        guard let handle, let name = sqlite3_column_name(handle, Int32(clamping: index)) else { return "" }
        return String(cString: name)
    }

    /// Whether the column at `index` of the current row is NULL.
    package func isNull(at index: Int) -> Bool {
        guard let handle else { return true }
        return sqlite3_column_type(handle, Int32(clamping: index)) == SQLITE_NULL
    }

    /// The column as an integer (0 for NULL).
    package func int64(at index: Int) -> Int64 {
        guard let handle else { return 0 }
        return sqlite3_column_int64(handle, Int32(clamping: index))
    }

    /// The column as a double (0 for NULL).
    package func double(at index: Int) -> Double {
        guard let handle else { return 0 }
        return sqlite3_column_double(handle, Int32(clamping: index))
    }

    /// The column as text, or nil for NULL.
    package func string(at index: Int) -> String? {
        guard let handle else { return nil }
        let column = Int32(clamping: index)
        guard sqlite3_column_type(handle, column) != SQLITE_NULL,
              let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as bytes (empty for NULL).
    package func bytes(at index: Int) -> [UInt8] {
        guard let handle else { return [] }
        let column = Int32(clamping: index)
        let raw = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let raw, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: raw, count: count))
    }

    /// The column as `Data` (empty for NULL).
    package func data(at index: Int) -> Data { Data(bytes(at: index)) }

    /// The column as a ``SQLiteValue`` of its stored type.
    package func value(at index: Int) -> SQLiteValue {
        guard let handle else { return .null }
        switch sqlite3_column_type(handle, Int32(clamping: index)) {
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(double(at: index))
        case SQLITE_TEXT: return .text(string(at: index) ?? "")
        case SQLITE_BLOB: return .blob(bytes(at: index))
        default: return .null
        }
    }
}

@available(*, unavailable, message: "SQLiteStatement belongs to its connection's thread")
extension SQLiteStatement: Sendable {}
