import Foundation
import Strata

/// The exit status of each kind of failure, the same in `strata`, `strata-log` and
/// `strata-postgres`, so a script can tell "no such document" from "busy, try again".
/// The numbers are BSD's `sysexits.h` (`EX_USAGE`, `EX_DATAERR`, ...), as git, sqlite3
/// and the mail tools use them; README.md, "Command line", lists them.
package enum ToolExitStatus {
    /// Any other failure: a bad value, an unknown entity or key, a validation error.
    package static let failure: Int32 = 1
    /// `EX_USAGE`: the command line is wrong (a missing argument, an unknown option).
    package static let usage: Int32 = 64
    /// `EX_DATAERR`: the document (or its log) is damaged or is not a Strata document.
    package static let dataError: Int32 = 65
    /// `EX_NOINPUT`: no such document or file (or it is a FIFO, device or directory).
    package static let noInput: Int32 = 66
    /// `EX_IOERR`: reading or writing failed: a full disk, an I/O error, permission denied.
    package static let ioError: Int32 = 74
    /// `EX_TEMPFAIL`: the document is busy or a save conflicted; running again may succeed.
    package static let tryAgain: Int32 = 75

    /// The status for a Strata error, by its code and the cause its context names.
    package static func status(for error: StrataError) -> Int32 {
        let kind = error.context.kind
        if kind == .notRegularFile { return noInput }
        if kind == .busy { return tryAgain }
        switch error.code {
        case .documentBusy, .mergeConflict:
            return tryAgain
        case .corruptDocument, .corruptSegment:
            return dataError
        case .io:
            if let code = error.context.errno, code == ENOENT || code == ENOTDIR { return noInput }
            if kind == .exists { return failure }
            return ioError
        case .sqlite:
            switch SQLiteFailureCause.of(error) {
            case .diskFull?, .io?, .permission?: return ioError
            case .corrupt?: return dataError
            case .busy?: return tryAgain
            case nil: return failure
            }
        case .modelFile:
            // A model file that is not there; one that does not parse is a plain failure.
            guard let file = error.context.path, !FileManager.default.fileExists(atPath: file) else { return failure }
            return noInput
        default:
            return failure
        }
    }

    /// The statuses for a tool's `--help` discussion.
    package static let helpText = """
        Exit status: 0 success; 1 other failures (a bad value, an unknown name, \
        validation); 64 usage (a wrong command line); 65 damaged data (a damaged document \
        or log, or not a Strata document); 66 no such document or file; 74 I/O error, disk \
        full or permission denied; 75 busy or conflicting save (try again).
        """
}
