import Foundation

/// Folding the WAL back into the main file when a document closes, and checking a file's
/// pages before it is written to.
enum DocumentCheckpoint {
    /// The size of `DOC-wal`, 0 when there is none.
    static func walBytes(_ path: String) -> Int64 {
        var info = stat()
        return stat(path + "-wal", &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Runs `wal_checkpoint(TRUNCATE)`. Returns nil when the file is whole again, or when
    /// another connection still reads it (its close finishes the job, as SQLite's last
    /// close always checkpoints); returns the error to report when SQLite failed to
    /// checkpoint (a full disk, an I/O error): the commits are safe in the WAL, but the
    /// main file alone is not the document.
    static func finish(_ connection: SQLiteConnection, path: String) -> StrataError? {
        do {
            _ = try connection.prepare("PRAGMA wal_checkpoint(TRUNCATE)").rows()
            return nil
        } catch let error as StrataError {
            if error.code == .documentBusy || SQLiteFailureCause.of(error) == .busy { return nil }
            guard walBytes(path) > 0 else { return nil }
            let why = SQLiteFailureCause.of(error) == .diskFull
                ? "the disk is full" : "SQLite could not write it (\(error.message))"
            var context = error.context
            context.path = path
            context.kind = .checkpointIncomplete
            return StrataError(
                .io,
                "Saved, but \(path) could not be made whole again: \(why). The changes are safe in \(path)-wal (keep it beside the document); free some space and open the document again, even only to read it, to finish.",
                context: context)
        } catch {
            return nil
        }
    }

    /// SQLite's `PRAGMA quick_check`: refuses a file whose pages are damaged.
    /// - Throws: `.corruptDocument` ("damaged … run strata-log verify, then recover").
    static func quickCheck(_ connection: SQLiteConnection, path: String) throws {
        let rows: [[SQLiteValue]]
        do {
            rows = try connection.prepare("PRAGMA quick_check(5)").rows()
        } catch let error as StrataError where SQLiteFailureCause.of(error) == .corrupt {
            throw DocumentOpenFailure.damaged(path, "SQLite's integrity check cannot read it (\(error.message))")
        }
        let lines = rows.compactMap { row -> String? in if case .text(let text)? = row.first { text } else { nil } }
        guard lines == ["ok"] else {
            throw DocumentOpenFailure.damaged(path, "SQLite's integrity check found: \(lines.joined(separator: "; "))")
        }
    }
}
