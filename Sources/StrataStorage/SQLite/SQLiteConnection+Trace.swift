import CSQLite
import Foundation

/// The Swift closure behind the trace hook; the connection owns one retain on it.
final class SQLiteTraceBox {
    let handler: (String) -> Void
    init(handler: @escaping (String) -> Void) { self.handler = handler }
}

/// The C trace callback: for each statement started, passes its SQL text (with `?`
/// placeholders, not bound values) to the handler.
private let sqliteTraceEntry: @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = {
    event, context, _, detail in
    guard event == UInt32(SQLITE_TRACE_STMT), let context, let detail else { return 0 }
    let box = Unmanaged<SQLiteTraceBox>.fromOpaque(context).takeUnretainedValue()
    let text = String(cString: detail.assumingMemoryBound(to: CChar.self))
    // Trigger bodies arrive as "-- comment" lines; report only statements.
    if !text.hasPrefix("--") { box.handler(text) }
    return 0
}

extension SQLiteConnection {
    /// Calls `handler` with the SQL text of every statement as it starts (placeholders, not
    /// values), or removes the hook when `handler` is nil. Tests use it to assert the SQL a
    /// feature runs.
    ///
    /// ```swift
    /// var log: [String] = []
    /// connection.setTrace { log.append($0) }
    /// try connection.transaction { ... }
    /// #expect(log.first == "BEGIN DEFERRED TRANSACTION")
    /// ```
    package func setTrace(_ handler: ((String) -> Void)?) {
        guard let database = handle else { return }
        sqlite3_trace_v2(database, 0, nil, nil)
        traceBox?.release()
        traceBox = nil
        guard let handler else { return }
        let box = Unmanaged.passRetained(SQLiteTraceBox(handler: handler))
        traceBox = box
        sqlite3_trace_v2(database, UInt32(SQLITE_TRACE_STMT), sqliteTraceEntry, box.toOpaque())
    }
}
