import CSQLite
import Foundation

extension StrataError {
    /// The error for a failed SQLite call.
    ///
    /// `SQLITE_BUSY` and `SQLITE_LOCKED` become `.documentBusy` ("the document is busy"):
    /// another connection or process holds a lock longer than the busy timeout. Every other
    /// code becomes `.sqlite`. The context carries the SQL, SQLite's primary and
    /// extended result codes, its message, `errno` and the cause; the message never quotes
    /// the SQL (it may hold a user's input, and a statement is not what a user can act on):
    /// `context.sql` keeps it, and the tools print it with `STRATA_VERBOSE=1`.
    ///
    /// - Parameters:
    ///   - resultCode: The code the failing call returned.
    ///   - database: The connection handle, to read the message and extended code from.
    ///   - sql: The statement text, when there is one.
    static func sqlite(resultCode: Int32, database: OpaquePointer?, sql: String?) -> StrataError {
        let primary = resultCode & 0xFF
        let extended = database.map { sqlite3_extended_errcode($0) } ?? resultCode
        // The connection's message belongs to the last failing call; fall back to the code's
        // generic text when the handle is gone or the message is about something else.
        var detail = String(cString: sqlite3_errstr(resultCode))
        if let database, let text = sqlite3_errmsg(database), (sqlite3_errcode(database) & 0xFF) == primary {
            detail = String(cString: text)
        }
        let systemErrno = database.map { sqlite3_system_errno($0) } ?? 0
        var context = Context { $0.sql = sql; $0.sqliteResultCode = primary; $0.sqliteExtendedCode = extended; $0.sqliteMessage = detail; $0.errno = systemErrno != 0 ? systemErrno : nil }
        let cause = SQLiteFailureCause(primary: primary, systemErrno: systemErrno)
        if let cause {
            context.cause = cause
            detail += " — " + cause.explanation
        }
        if let database, let name = sqlite3_db_filename(database, "main"), name.pointee != 0 {
            context.path = String(cString: name)
        }
        let suffix = ""
        if primary == SQLITE_BUSY || primary == SQLITE_LOCKED {
            // Name the file and, when the system says, the process holding it.
            var document = "The document"
            var holder = "another connection holds a lock on it"
            if let database, let name = sqlite3_db_filename(database, "main"), name.pointee != 0 {
                let path = String(cString: name)
                document = "The document \(path)"
                context.path = path
                if let pid = DocumentLockHolder.holder(of: path) {
                    holder = "process \(pid) holds a lock on it"
                    context.processID = pid
                }
            }
            return StrataError(.documentBusy, "\(document) is busy: \(holder) (SQLite: \(detail))\(suffix).", context: context)
        }
        return StrataError(.sqlite, "SQLite error \(primary): \(detail)\(suffix).", context: context)
    }

    /// The error for using a connection or statement after it was closed or finalized.
    static func sqliteMisuse(_ what: String, sql: String?) -> StrataError {
        StrataError(.sqlite, "SQLite misuse: \(what).",
                    context: .init { $0.sql = sql; $0.sqliteResultCode = SQLITE_MISUSE; $0.sqliteExtendedCode = SQLITE_MISUSE })
    }
}
