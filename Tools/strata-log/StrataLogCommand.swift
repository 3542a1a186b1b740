import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata-log`: read, check, compact, replay and repair a document's log.
@main
struct StrataLogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-log",
        abstract: "Read, verify, compact, replay and repair a Strata document's log.",
        discussion: """
            Each save appends one segment (an LZ4 frame holding undo groups of operations) to \
            the document's log; compaction folds segments into snapshot tables and keeps them \
            as history as the retention policy says. These commands work on that log.

            Examples:
              strata-log dump staff.strata --from 3
              strata-log verify staff.strata
              strata-log compact staff.strata --retain 100
              strata-log replay staff.strata --to 5 --out staff-at-5.strata
              strata-log stats staff.strata --json

            \(ToolExitStatus.helpText)
            """,
        version: ToolVersion.line(tool: "strata-log"),
        subcommands: [DumpCommand.self, VerifyCommand.self, CompactCommand.self, ReplayCommand.self,
                      ExportCommand.self, RecoverCommand.self, StatsCommand.self])

    /// Runs the command line; a failure is one `strata-log: error: ...` line on standard
    /// error and the exit status of its kind (``ToolExitStatus``).
    static func main() {
        ToolRunner.main(StrataLogCommand.self, tool: "strata-log")
    }
}

/// Opens a document's store for a command and closes it; read-only unless the command
/// writes, so that reading leaves the bytes unchanged.
enum LogSession {
    static func withStore<T>(_ path: String, writes: Bool, configuration: DocumentStore.Configuration? = nil,
                             _ body: (DocumentStore) throws -> T) throws -> T {
        let configuration = configuration ?? ToolSettings.configuration(writes: writes)
        let url = URL(fileURLWithPath: path)
        let store = try DocumentStore(openingAt: url, configuration: configuration)
        let result: T
        do {
            result = try body(store)
        } catch {
            try? store.close()
            throw error
        }
        do {
            try store.close()
        } catch {
            // The work committed; only folding the WAL back failed (a full disk).
            guard let warning = ToolSettings.closeWarning(error) else { throw error }
            FileHandle.standardError.write(Data(("strata-log: warning: " + warning + "\n").utf8))
        }
        return result
    }

    static func bytes(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1024 * 1024 { return String(format: "%.1f KB", Double(count) / 1024) }
        return String(format: "%.1f MB", Double(count) / 1024 / 1024)
    }

    static func printJSON(_ value: JSONValue) {
        print(value.rendered(pretty: true))
    }
}
