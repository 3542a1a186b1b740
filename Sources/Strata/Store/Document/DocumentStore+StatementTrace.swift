import Foundation

extension DocumentStore {
    /// Calls `handler` with the SQL text of every statement the store's connection starts
    /// (placeholders, not values; SQLite's `SQLITE_TRACE_STMT`), or stops when nil.
    ///
    /// A test hook: the read path's tests count the statements a fetch or a batch of faults
    /// runs, so that reading in one pass cannot quietly go back to a statement per record
    /// (docs/ARCHITECTURE.md, "Reads: one pass from SQL to objects"). The handler runs on
    /// the thread running the statement, inside the store's lock: it must not call the store.
    ///
    /// ```swift
    /// let statements = Locked<[String]>([])
    /// try store.traceStatements { sql in statements.withLock { $0.append(sql) } }
    /// _ = try context.fetch(request)
    /// try store.traceStatements(nil)
    /// ```
    /// - Throws: `.invalidArgument` when the store is closed.
    package func traceStatements(_ handler: (@Sendable (String) -> Void)?) throws {
        try withOpenState { state in state.connection.setTrace(handler) }
    }
}
