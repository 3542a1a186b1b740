import Foundation
import Strata

/// Settings the command-line tools share, read from the environment.
package enum ToolSettings {
    /// `STRATA_BUSY_TIMEOUT`: seconds to wait for a document another process holds before
    /// failing with "busy" (default: ``DocumentStore/Configuration/busyTimeout``, 5 s).
    package static var busyTimeout: TimeInterval {
        if let text = ProcessInfo.processInfo.environment["STRATA_BUSY_TIMEOUT"], let seconds = TimeInterval(text), seconds >= 0 {
            return seconds
        }
        return DocumentStore.Configuration().busyTimeout
    }

    /// How the tools open a document: no compaction on close, the busy timeout from the
    /// environment; read-only when the command does not write (the file's bytes stay as
    /// they were), and, when it writes, SQLite's quick check first so that a damaged
    /// document is refused instead of written to.
    package static func configuration(writes: Bool) -> DocumentStore.Configuration {
        var configuration = DocumentStore.Configuration()
        configuration.compactsOnClose = false
        configuration.busyTimeout = busyTimeout
        configuration.isReadOnly = !writes
        configuration.checksIntegrityOnOpen = writes
        return configuration
    }

    /// The warning for an error `DocumentStore.close()` threw after saves committed (a
    /// checkpoint a full disk stopped), or nil when the error means something else.
    package static func closeWarning(_ error: any Error) -> String? {
        guard let error = error as? StrataError, error.context["kind"] == "checkpointIncomplete" else { return nil }
        return error.message
    }
}
