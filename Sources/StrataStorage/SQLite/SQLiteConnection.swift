import CSQLite
import Foundation

/// One SQLite database connection: opens a file, runs SQL, caches prepared statements per
/// SQL text, runs closure-scoped transactions, registers custom SQL functions and traces
/// the SQL it runs.
///
/// The connection is not `Sendable`: its owner (the document store) keeps it behind a lock
/// and uses it from one thread at a time.
///
/// ```swift
/// let connection = try SQLiteConnection(path: url.path, flags: [.readWrite, .create])
/// try connection.execute("CREATE TABLE t(x INTEGER)")
/// try connection.transaction(.immediate) {
///     let insert = try connection.prepare("INSERT INTO t(x) VALUES (?)")
///     try insert.bind(.integer(1), at: 1)
///     _ = try insert.step()
/// }
/// ```
package final class SQLiteConnection {
    /// How to open the database file (`SQLITE_OPEN_*`).
    package struct OpenFlags: OptionSet, Sendable {
        /// The raw `SQLITE_OPEN_*` bits.
        package let rawValue: Int32
        /// Creates flags from raw bits.
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// Open for reading only; writes fail.
        package static let readOnly = OpenFlags(rawValue: SQLITE_OPEN_READONLY)
        /// Open for reading and writing.
        package static let readWrite = OpenFlags(rawValue: SQLITE_OPEN_READWRITE)
        /// Create the file when it does not exist (with `.readWrite`).
        package static let create = OpenFlags(rawValue: SQLITE_OPEN_CREATE)
        /// Interpret the path as a `file:` URI.
        package static let uri = OpenFlags(rawValue: SQLITE_OPEN_URI)
    }

    /// The raw `sqlite3*` handle; nil once closed.
    private(set) var handle: OpaquePointer?
    /// The path the connection was opened with.
    package let path: String
    var statementCache: [String: SQLiteStatement] = [:]
    /// Statements cached under their shape (``prepare(shape:sql:)``), not their text.
    var shapeCache: [SQLiteStatementShape: SQLiteStatement] = [:]
    var functionNames: Set<String> = []
    /// What a registered function threw in the statement running now (``takeFunctionError()``).
    var functionError: StrataError?
    var traceBox: Unmanaged<SQLiteTraceBox>?
    var savepointCounter = 0
    /// The busy timeout given at open, for code that lowers it for one call.
    let busyTimeoutMilliseconds: Int32

    /// Opens (and with `.create`, creates) a database.
    ///
    /// - Parameters:
    ///   - path: A file path, or `":memory:"` for a private in-memory database.
    ///   - flags: How to open; default `[.readWrite, .create]`.
    ///   - busyTimeout: How long a statement waits for another connection's lock before it
    ///     fails with `.documentBusy`; default 5 seconds.
    /// - Throws: ``StrataError`` `.sqlite` when the file cannot be opened; `.io` when the
    ///   path names a directory, FIFO, device or socket (``FileKind``).
    package init(path: String, flags: OpenFlags = [.readWrite, .create], busyTimeout: TimeInterval = 5) throws {
        self.path = path
        busyTimeoutMilliseconds = Int32(clamping: Int((max(0, busyTimeout) * 1000).rounded()))
        // Every file SQLite opens for Strata (documents, remotes, recovery's copies) is
        // checked here too: a FIFO would block SQLite's open or first read forever.
        if !flags.contains(.uri), !path.isEmpty, path != ":memory:" {
            try FileKind.requireRegularOrMissing(path, as: "a database file")
        }
        var database: OpaquePointer?
        // No mutex of SQLite's own: the connection and its statements are used by one thread
        // at a time, under their owner's lock (they are not `Sendable`), and the serialized
        // mode's lock is taken around every `sqlite3_column_*` call, a cost on each value
        // a fetch or an export reads (docs/BENCHMARKS.md, W13).
        let code = sqlite3_open_v2(path, &database, flags.rawValue | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let database else {
            let error = StrataError.sqlite(resultCode: code, database: database, sql: nil)
            sqlite3_close_v2(database)
            var context = error.context
            context.path = path
            throw StrataError(error.code, "Cannot open the database at \(path): \(error.message)", context: context)
        }
        handle = database
        sqlite3_busy_timeout(database, busyTimeoutMilliseconds)
    }

    deinit { close() }

    /// Whether the connection is open.
    package var isOpen: Bool { handle != nil }

    /// The live handle, or an error once closed.
    func liveHandle(for sql: String?) throws -> OpaquePointer {
        guard let handle else { throw StrataError.sqliteMisuse("the connection is closed", sql: sql) }
        return handle
    }

    /// Limits SQLite's page cache to about `bytes` (`PRAGMA cache_size` in KiB, at least 1).
    package func setPageCacheSize(_ bytes: Int) throws {
        try execute("PRAGMA cache_size=-\(max(bytes / 1024, 1))")
    }

    /// Runs `body` with the page cache limited to about `bytes` when its limit is larger,
    /// then puts the previous limit back (also when `body` throws).
    ///
    /// For writes whose pages are written once and not read again (a compaction's rows, a
    /// big segment): at a full cache they all stay in memory until the transaction ends;
    /// at a small one SQLite spills them to the log as it goes. Shrinking also drops clean
    /// pages the cache held, which later reads fetch again.
    package func withPageCacheLimited<Result>(to bytes: Int, _ body: () throws -> Result) throws -> Result {
        guard case .integer(let limit)? = try prepare("PRAGMA cache_size").rows().first?.first,
              case .integer(let pageSize)? = try prepare("PRAGMA page_size").rows().first?.first else { return try body() }
        // A negative limit is in KiB, a positive one in pages.
        let current = limit < 0 ? Int(-limit) * 1024 : Int(limit) * Int(pageSize)
        guard bytes < current else { return try body() }
        try setPageCacheSize(bytes)
        defer { try? execute("PRAGMA cache_size=\(limit)") }
        return try body()
    }

    /// Runs one or more SQL statements that return no rows of interest.
    ///
    /// ```swift
    /// try connection.execute("CREATE TABLE a(x); CREATE TABLE b(y)")
    /// ```
    /// - Throws: ``StrataError`` `.sqlite` (or `.documentBusy`) with the SQL in its context.
    package func execute(_ sql: String) throws {
        let database = try liveHandle(for: sql)
        let code = sqlite3_exec(database, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw StrataError.sqlite(resultCode: code, database: database, sql: sql) }
    }

    /// The prepared statement for `sql`, taken from the cache or prepared and cached.
    ///
    /// A cached statement is reset and its bindings cleared before it is returned, so a
    /// caller always starts fresh. Do not keep one while preparing the same SQL again.
    /// - Throws: ``StrataError`` `.sqlite` when the SQL does not compile.
    package func prepare(_ sql: String) throws -> SQLiteStatement {
        if let cached = statementCache[sql] {
            cached.resetQuietly()
            try cached.clearBindings()
            return cached
        }
        let statement = try makeStatement(sql)
        statementCache[sql] = statement
        return statement
    }

    /// A new prepared statement that is not cached (finalized when released or on close).
    /// - Throws: ``StrataError`` `.sqlite` when the SQL does not compile.
    package func makeStatement(_ sql: String) throws -> SQLiteStatement {
        let database = try liveHandle(for: sql)
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK else { throw StrataError.sqlite(resultCode: code, database: database, sql: sql) }
        guard let raw else {
            throw StrataError(.sqlite, "The SQL holds no statement (SQL: \(sql)).", context: .init { $0.sql = sql })
        }
        return SQLiteStatement(handle: raw, database: database, sql: sql)
    }

    /// The prepared statement of a shape: the one cached under `shape`, reset with its
    /// bindings cleared, or the one `sql` makes, cached under it.
    ///
    /// For statements run again and again whose text is derived from a few facts (which
    /// table, which relationship): the caller names the shape and the text is built only the
    /// first time, where ``prepare(_:)`` needs the text built and hashed on every call
    /// (docs/ARCHITECTURE.md, "Reads: one pass from SQL to objects"). A shape must always
    /// stand for the same SQL on one connection.
    /// - Throws: ``StrataError`` `.sqlite` when the SQL does not compile.
    package func prepare(shape: SQLiteStatementShape, sql: () -> String) throws -> SQLiteStatement {
        if let cached = shapeCache[shape] {
            cached.resetQuietly()
            try cached.clearBindings()
            return cached
        }
        let statement = try makeStatement(sql())
        shapeCache[shape] = statement
        return statement
    }

    /// The number of statements currently in the cache.
    package var cachedStatementCount: Int { statementCache.count + shapeCache.count }

    /// The row ID of the most recent successful INSERT on this connection.
    package var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// The number of rows the most recent INSERT, UPDATE or DELETE changed.
    package var changes: Int { handle.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// Whether no transaction is open (SQLite's autocommit mode).
    package var isAutocommit: Bool { handle.map { sqlite3_get_autocommit($0) != 0 } ?? true }

    /// Finalizes every cached statement, removes the trace hook and closes the connection.
    /// Calling it again does nothing. Statements from ``makeStatement(_:)`` still alive keep
    /// the database open until they are released (`sqlite3_close_v2`).
    package func close() {
        guard let database = handle else { return }
        for statement in statementCache.values { statement.finalize() }
        statementCache.removeAll()
        for statement in shapeCache.values { statement.finalize() }
        shapeCache.removeAll()
        sqlite3_trace_v2(database, 0, nil, nil)
        traceBox?.release()
        traceBox = nil
        sqlite3_close_v2(database)  // frees registered functions through their destructors
        handle = nil
    }
}

@available(*, unavailable, message: "SQLiteConnection is used by one thread at a time, under its owner's lock")
extension SQLiteConnection: Sendable {}
