import ArgumentParser
import Foundation
import Strata
import StrataInspector
import StrataInspectorCore
import StrataToolSupport

/// `strata-inspector DOC [--port N]`: serves a local web app that shows a document.
///
/// It is a synchronous command so that ``ToolRunner`` reports a document that cannot be
/// opened (missing, foreign, damaged) with the same line and exit status as `strata`; the
/// server then runs on Swift's executors while the main thread waits for it.
struct StrataInspectorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-inspector",
        abstract: "Look inside a Strata document in a web browser: objects, history, time travel, live.",
        discussion: """
            Opens DOC read-only and serves a web app on 127.0.0.1 (never another interface): \
            every entity with its objects (sort, pages, a predicate box), each object with \
            its links and history, a timeline of every save with its old and new values, \
            the document as of any save and the difference between two saves, what Undo and \
            Redo would do next, and the file's segments and model versions. Views update \
            within a second when another process saves. Nothing is ever written to DOC.

            It prints the address and serves until stopped (Ctrl-C). Without --port it takes \
            a free port. docs/INSPECTOR.md describes the views and the JSON endpoints.

            DOC may also be a PostgreSQL document, postgres://USER@HOST:PORT/DATABASE/DOCUMENT \
            (when built with STRATA_POSTGRES=1): its views follow the other writers' saves.

            Examples:
              strata-inspector staff.strata
              strata-inspector staff.strata --port 8088
              strata-inspector postgres://alice@db.example:5432/app/plans

            \(ToolExitStatus.helpText)
            """,
        version: ToolVersion.line(tool: "strata-inspector"))

    @OptionGroup var target: DocumentArgument

    @Option(help: "The port to serve on, on 127.0.0.1 (default: a free one).")
    var port: Int = 0

    @Flag(help: "For a postgres:// document: open from the server's snapshot, which is faster on a long log, but the timeline and time travel then start at that snapshot (default: replay the whole history).")
    var fromServerSnapshot = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0 to 65535; got \(port).") }
        if fromServerSnapshot, !InspectorPostgresDocument.isPostgresURL(target.document) {
            throw ValidationError("--from-server-snapshot applies to a postgres:// document; \(target.document) is a file, whose whole history is always shown.")
        }
    }

    func run() throws {
        let document = InspectorPostgresDocument.isPostgresURL(target.document)
            ? try InspectorPostgresDocument.open(target.document, fromServerSnapshot: fromServerSnapshot)
            : try InspectorDocument(path: target.document)
        defer { document.close() }
        document.prepareTimeTravelInBackground()
        let server = try InspectorServer(document: document)
        let outcome = ServerOutcome()
        let finished = DispatchSemaphore(value: 0)
        let port = port
        Task {
            do {
                try await server.run(port: port) { bound in
                    // Written at once, unbuffered: a script waits for this line to learn the port.
                    let line = "strata-inspector: serving \(document.name) read-only at http://127.0.0.1:\(bound)/\n"
                    FileHandle.standardOutput.write(Data(line.utf8))
                }
            } catch {
                outcome.failure = error
            }
            finished.signal()
        }
        // Ctrl-C or SIGTERM: end the event streams, close the document (removing the time
        // travel scratch folder) and exit; nothing was written, so nothing needs finishing.
        let stops = [SIGINT, SIGTERM].map { (number: Int32) -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                server.stop()
                document.close()
                Foundation.exit(0)
            }
            source.resume()
            return source
        }
        withExtendedLifetime(stops) { finished.wait() }
        if let failure = outcome.failure {
            throw StrataError(.io, "The inspector could not serve on 127.0.0.1:\(port): \(failure)")
        }
    }
}

/// What the server task ended with, read by the main thread once the task has signalled.
private final class ServerOutcome: @unchecked Sendable {
    var failure: (any Error)?
}
