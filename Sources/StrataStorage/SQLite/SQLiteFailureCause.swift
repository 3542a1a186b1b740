import CSQLite
import Foundation

/// The name the storage layer's code uses for ``StrataError/Context/Cause``.
package typealias SQLiteFailureCause = StrataError.Context.Cause

extension StrataError.Context {
    /// The real reason behind a failed SQLite call, as users need to hear it: SQLite's own
    /// words ("disk I/O error", "unable to open database file") name a symptom, and the
    /// operating system's `errno` (`sqlite3_system_errno`) or the primary code name the cause.
    ///
    /// Errors carry it as ``StrataError/Context/cause`` (from a file's own `errno` too), so
    /// callers can tell a full disk from a damaged file without parsing messages.
    public enum Cause: String, Sendable, Hashable, CaseIterable {
        /// No space left on the device (`SQLITE_FULL`, or an I/O error with `ENOSPC`/`EDQUOT`).
        case diskFull
        /// The file or its directory may not be read or written (`EACCES`, `EPERM`,
        /// `SQLITE_READONLY`, `SQLITE_PERM`, `EROFS`).
        case permission
        /// The file is damaged (`SQLITE_CORRUPT`) or not a database (`SQLITE_NOTADB`).
        case corrupt
        /// Another connection holds a lock (`SQLITE_BUSY`, `SQLITE_LOCKED`).
        case busy
        /// Some other input/output failure (`SQLITE_IOERR`, `SQLITE_CANTOPEN` without a clearer `errno`).
        case io

        /// Classifies a primary result code and the `errno` SQLite saw (0 when none).
        package init?(primary: Int32, systemErrno: Int32) {
            if systemErrno == ENOSPC || systemErrno == EDQUOT || primary == SQLITE_FULL {
                self = .diskFull
            } else if systemErrno == EACCES || systemErrno == EPERM || systemErrno == EROFS
                        || primary == SQLITE_READONLY || primary == SQLITE_PERM || primary == SQLITE_AUTH {
                self = .permission
            } else if primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB {
                self = .corrupt
            } else if primary == SQLITE_BUSY || primary == SQLITE_LOCKED {
                self = .busy
            } else if primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN {
                self = .io
            } else {
                return nil
            }
        }

        /// A short clause for messages.
        package var explanation: String {
            switch self {
            case .diskFull: return "the disk is full (no space left on the device)"
            case .permission: return "permission denied (the file or its directory is not writable or readable by this user)"
            case .corrupt: return "the file is damaged"
            case .busy: return "another process holds a lock on it"
            case .io: return "an input/output error"
            }
        }

        /// The cause an error carries, if any.
        package static func of(_ error: any Error) -> Cause? {
            (error as? StrataError)?.context.cause
        }
    }
}
