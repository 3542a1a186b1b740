import Foundation

/// The errors opening a document can end in, each naming its real cause: no file, not an
/// SQLite file, SQLite without Strata metadata, a damaged document (with the advice to run
/// `strata-log verify` and `strata-log recover`), a full disk, a permission problem, or a
/// busy document (naming the process that holds it when the system says).
///
/// "There is no document" is said only when `stat` answers `ENOENT`: under contention a
/// file that exists must never be reported missing.
enum DocumentOpenFailure {
    /// The advice every damaged-document error ends with.
    static let advice = "run `strata-log verify` to see the damage, then `strata-log recover` to repair it"

    /// The error for a document that is recognisably Strata's but damaged.
    static func damaged(_ path: String, _ why: String, advice: Bool = true, context: StrataError.Context = .init()) -> StrataError {
        StrataError(.corruptDocument, "\(path) is a damaged Strata document: \(why)" + (advice ? "; \(Self.advice)." : "."),
                    context: context.with { $0.path = path; $0.kind = .damaged })
    }

    /// Fails unless `path` names an existing regular file (or a symbolic link to one); the
    /// error names the cause: missing, unreadable, or a directory, FIFO, device or socket.
    static func requireFile(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw StrataError(.io, "There is no document at \(path).", context: .init { $0.path = path; $0.errno = code })
            }
            let cause = code == EACCES || code == EPERM ? "permission denied" : String(cString: strerror(code))
            throw StrataError(.io, "Cannot open \(path): \(cause) (errno \(code)).",
                              context: .init { $0.path = path; $0.errno = code; $0.cause = code == EACCES || code == EPERM ? .permission : .io })
        }
        // A FIFO would block SQLite's open or first read forever, a device never end, a
        // directory or socket fail with SQLite's own words: refused before SQLite sees them.
        try FileKind.requireRegularOrMissing(path, as: "a Strata document", code: .corruptDocument)
        // SQLite opens the files beside it too: a FIFO there would block just the same.
        for (suffix, role) in [("-wal", "a document's write-ahead log"), ("-shm", "a document's shared memory file"),
                               ("-journal", "a document's rollback journal")] {
            try FileKind.requireRegularOrMissing(path + suffix, as: role, code: .corruptDocument)
        }
    }

    /// What the file at `path` looks like from its bytes, for telling "not a document"
    /// from "a damaged document" when SQLite cannot read it.
    enum Kind { case notSQLite, sqlite, strata }

    /// Reads the header and the first pages: a file whose schema mentions `strata_meta` is
    /// a Strata document, whatever else is damaged.
    static func kind(of path: String) -> Kind {
        guard let handle = FileHandle(forReadingAtPath: path) else { return .sqlite }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 256 << 10)) ?? Data())
        guard head.starts(with: Array("SQLite format 3\0".utf8)) else {
            // The 16-byte magic itself may be what a flipped byte hit.
            return containsStrataMeta(head) ? .strata : .notSQLite
        }
        return containsStrataMeta(head) ? .strata : .sqlite
    }

    private static func containsStrataMeta(_ bytes: [UInt8]) -> Bool {
        let needle = Array("strata_meta".utf8)
        guard bytes.count >= needle.count else { return false }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0], Array(bytes[index..<index + needle.count]) == needle { return true }
            index += 1
        }
        return false
    }

    /// Turns an SQLite failure while opening or first reading `path` into the error a user
    /// can act on.
    static func describe(_ error: any Error, path: String, busyTimeout: TimeInterval? = nil) -> StrataError {
        guard let error = error as? StrataError else {
            return StrataError(.io, "Cannot open \(path): \(error)", context: .init { $0.path = path })
        }
        if error.context.kind != nil { return error }   // already described
        var context = error.context
        context.path = path
        let sqliteDetail = error.message
        if error.code == .documentBusy || SQLiteFailureCause.of(error) == .busy {
            return busy(path, busyTimeout: busyTimeout, context: context)
        }
        switch SQLiteFailureCause.of(error) {
        case .diskFull?:
            return StrataError(.io, "Cannot use \(path): the disk is full (no space left on the device); free some space and try again.",
                               context: context.with { $0.kind = .diskFull })
        case .permission?:
            return StrataError(.io, "Cannot open \(path): permission denied (the file or its directory is not readable or writable by this user; SQLite error \(context.sqliteResultCode.map(String.init) ?? "?"), errno \(context.errno.map(String.init) ?? "-")).",
                               context: context.with { $0.kind = .permission })
        case .corrupt?:
            return fromKind(path, detail: sqliteDetail, context: context)
        default:
            if sqliteDetail.contains("no such table: strata_meta") {
                return StrataError(.corruptDocument, "\(path) is not a Strata document: it is an SQLite database without Strata metadata.",
                                   context: context.with { $0.kind = .notStrata })
            }
            // A damaged schema entry can rename a column of Strata's own tables.
            if sqliteDetail.contains("no such table") || sqliteDetail.contains("no such column") || sqliteDetail.contains("malformed") {
                return fromKind(path, detail: sqliteDetail, context: context)
            }
            return StrataError(error.code == .corruptDocument ? .corruptDocument : .io,
                               "Cannot open \(path): \(sqliteDetail)", context: context.with { $0.kind = .io })
        }
    }

    /// What SQLite said, without the "SQLite error N:" prefix and the statement: the
    /// engine's words inside Strata's own sentence, never its raw error.
    static func engineDetail(_ message: String) -> String {
        var detail = message
        if detail.hasPrefix("SQLite error"), let colon = detail.range(of: ": ") { detail = String(detail[colon.upperBound...]) }
        if let statement = detail.range(of: " (SQL: ") { detail = String(detail[..<statement.lowerBound]) }
        while detail.hasSuffix(".") { detail.removeLast() }
        return detail.count > 160 ? String(detail.prefix(160)) + "…" : detail
    }

    private static func fromKind(_ path: String, detail rawDetail: String, context: StrataError.Context) -> StrataError {
        let detail = engineDetail(rawDetail)
        switch kind(of: path) {
        case .notSQLite:
            return StrataError(.corruptDocument, "\(path) is not a Strata document: it is not an SQLite file.",
                               context: context.with { $0.kind = .notSQLite })
        case .sqlite:
            // A cut or flip in the first page can take the schema with it: nothing left says
            // whether it was a Strata document, so recover is worth a try.
            return StrataError(.corruptDocument, "\(path) is a damaged SQLite file without readable Strata metadata (\(detail)); if it is a Strata document, run `strata-log recover \(path)` to rebuild what its pages still hold.",
                               context: context.with { $0.kind = .notStrata })
        case .strata:
            return damaged(path, "SQLite cannot read it (\(detail))", context: context)
        }
    }

    /// The busy error, naming the process holding the lock when the system says.
    static func busy(_ path: String, busyTimeout: TimeInterval?, context: StrataError.Context = .init()) -> StrataError {
        var context = context
        context.path = path
        context.kind = .busy
        var holder = "another process holds a lock on it"
        if let pid = DocumentLockHolder.holder(of: path) {
            holder = "process \(pid) holds a lock on it"
            context.processID = pid
        }
        let waited = busyTimeout.map { " (waited \(String(format: "%g", $0)) s; the tools wait longer with STRATA_BUSY_TIMEOUT=SECONDS)" } ?? ""
        return StrataError(.documentBusy, "\(path) is busy: \(holder)\(waited).", context: context)
    }
}
