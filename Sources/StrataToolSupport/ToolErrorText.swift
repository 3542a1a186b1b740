import Foundation
import Strata

/// The line a tool prints for a Strata error, and what it prints besides with
/// `STRATA_VERBOSE=1` (issue 32, item 8: no raw engine message, no SQL, no driver
/// internals on the error line).
package enum ToolErrorText {
    /// The error's message, except that SQLite's own failures (`.sqlite`) are said by what
    /// a user can do about them: the cause SQLite's result and `errno` name (disk full,
    /// permission, damage, input/output), else an unexpected storage failure with its code.
    package static func line(for error: StrataError) -> String {
        guard error.code == .sqlite else { return error.description }
        let code = error.context.sqliteResultCode.map { " (SQLite result code \($0))" } ?? ""
        let document = error.context.path ?? "DOC"
        let file = error.context.path.map { " \($0)" } ?? ""
        switch SQLiteFailureCause.of(error) {
        case .diskFull?:
            return "The disk is full (writing\(file)): nothing was changed. Free some space and run the command again."
        case .permission?:
            return "The file\(file) cannot be opened: permission denied (this user may not read or write it or its directory)."
        case .corrupt?:
            return "The document\(file) is damaged\(code): run `strata-log verify \(document)` to see where, then `strata-log recover \(document)`."
        case .io?:
            return "An input/output error stopped the command on\(file.isEmpty ? " the document" : file)\(code): check the disk and the file system, then run it again."
        case .busy?, nil:
            return "The storage of\(file.isEmpty ? " the document" : file) refused the command\(code), which Strata did not expect: run `strata-log verify \(document)`; STRATA_VERBOSE=1 prints SQLite's own words."
        }
    }

    /// The lines `STRATA_VERBOSE=1` adds before the error line: SQLite's message, the SQL
    /// that failed and a driver's own description, each cut at 4,000 characters.
    package static func verboseLines(for error: StrataError, tool: String) -> [String] {
        guard ProcessInfo.processInfo.environment["STRATA_VERBOSE"] == "1" else { return [] }
        let details = [("sqliteMessage", error.context.sqliteMessage), ("sql", error.context.sql),
                       ("driverDetail", error.context.driverDetail)]
        return details.compactMap { name, text in
            text.map { "\(tool): detail: \(name): \($0.count > 4000 ? $0.prefix(4000) + "…" : $0)" }
        }
    }
}
