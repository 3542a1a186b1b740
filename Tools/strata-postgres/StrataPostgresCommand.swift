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

            \(ToolExitStatus.helpText)
            """,
        version: ToolVersion.line(tool: "strata-postgres"),
        subcommands: [PushCommand.self, PullCommand.self, SyncCommand.self, CloneCommand.self])

    /// Serves postgres:// remotes here, then runs the command line as `strata` does: one
    /// `strata-postgres: error: …` line and the exit status of its kind on failure.
    static func main() {
        SegmentRemotes.register(schemes: ["postgres", "postgresql"]) { location, _ in
            // postgres://USER@HOST:PORT/DATABASE/DOCUMENT: the document is the URL's last part.
            try PostgresSegmentRemote(location: PostgresLocation(documentURL: location))
        }
        ToolRunner.main(StrataPostgresCommand.self, tool: "strata-postgres")
    }
}
