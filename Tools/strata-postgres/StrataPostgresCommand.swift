import ArgumentParser
import Foundation
import Strata
import StrataPostgres
import StrataToolSupport

/// `strata-postgres`: `push`, `pull`, `sync` and `clone` with PostgreSQL documents as
/// remotes. Its own program so the default `strata` compiles no SwiftNIO, TLS or PostgresNIO;
/// `strata` hands a postgres:// remote to it (docs/POSTGRES.md, "The strata-postgres tool").
@main
struct StrataPostgresCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-postgres",
        abstract: "Sync Strata documents with PostgreSQL documents (and remote files).",
        discussion: """
            The same push, pull, sync and clone as `strata`, with postgres:// remotes as well as \
            remote files. `strata push DOC postgres://…` runs this program when it is beside \
            strata or on PATH, so it rarely needs to be called by name.

            A PostgreSQL document is postgres://USER@HOST:PORT/DATABASE/DOCUMENT; the password \
            comes from PGPASSWORD (never stored in the document).

            Examples:
              strata-postgres push staff.strata postgres://alice@db.example:5432/app/plans
              strata-postgres clone postgres://bob@db.example:5432/app/plans mine.strata
              strata-postgres sync mine.strata
            """,
        subcommands: [PushCommand.self, PullCommand.self, SyncCommand.self, CloneCommand.self])

    /// Serves postgres:// remotes here, then runs the command line as `strata` does: one
    /// `strata-postgres: error: …` line and a non-zero exit status on failure.
    static func main() {
        SegmentRemotes.register(schemes: ["postgres", "postgresql"]) { location, _ in
            // postgres://USER@HOST:PORT/DATABASE/DOCUMENT: the document is the URL's last part.
            try PostgresSegmentRemote(location: PostgresLocation(documentURL: location))
        }
        do {
            var command = try parseAsRoot()
            for warning in try ToolSettings.apply() {
                FileHandle.standardError.write(Data(("strata-postgres: warning: " + warning + "\n").utf8))
            }
            try command.run()
        } catch let error as StrataError {
            for line in ToolErrorText.verboseLines(for: error, tool: "strata-postgres") { fail(line, exit: nil) }
            fail("strata-postgres: error: " + ToolErrorText.line(for: error), exit: 1)
        } catch let error as ExitCode {
            Foundation.exit(error.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }
            let message = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            fail("strata-postgres: error: " + message, exit: code.rawValue)
        }
    }

    /// Writes a line to standard error, then exits with `status` when one is given.
    private static func fail(_ line: String, exit status: Int32?) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
        if let status { Foundation.exit(status) }
    }
}
