import Foundation
import Strata
import StrataTestSupport
import Testing

/// The default `strata` compiles no PostgreSQL client: a postgres:// remote is handed to
/// `strata-postgres` beside it or on PATH, or refused with what to build
/// (docs/POSTGRES.md, "The strata-postgres tool").
@Suite("postgres:// remotes are handed to strata-postgres")
struct PostgresHandOffTests {
    /// A copy of `strata` alone in a directory, so no `strata-postgres` is beside it.
    private func loneStrata(in sandbox: TemporaryDirectory) throws -> String {
        let directory = sandbox.url.appendingPathComponent("bin-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent("strata")
        try FileManager.default.copyItem(at: builtExecutable("strata"), to: copy)
        return copy.path
    }

    @Test("without strata-postgres: one error saying what to build, exit 1, the document untouched")
    func missingToolIsNamed() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let before = try Data(contentsOf: URL(fileURLWithPath: document))
        let strata = try loneStrata(in: sandbox)
        for arguments in [["push", document, "postgres://alice@127.0.0.1:1/app/plans"],
                          ["clone", "postgresql://alice@127.0.0.1:1/app/plans", sandbox.path("new.strata")]] {
            let result = try CLI.run(strata, arguments, environment: ["PATH": "/usr/bin:/bin"])
            #expect(result.status == 1, "\(arguments[0]): status \(result.status)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("strata: error: A postgres:// remote is synced by the strata-postgres tool"), "\(result.stderr)")
            #expect(result.stderr.contains("STRATA_POSTGRES=1 swift build -c release --product strata-postgres"), "\(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: document)) == before)
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("new.strata")))
    }

    @Test("with strata-postgres on PATH: it runs in strata's place with the same arguments, also for a remembered remote")
    func toolOnPathRunsInstead() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let strata = try loneStrata(in: sandbox)
        // A stand-in that prints what it was given, to show the hand-off itself.
        let tools = sandbox.url.appendingPathComponent("tools")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
        let standIn = tools.appendingPathComponent("strata-postgres")
        try "#!/bin/sh\necho \"strata-postgres $*\"\nexit 7\n".write(to: standIn, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: standIn.path)
        let environment = ["PATH": tools.path + ":/usr/bin:/bin"]
        let remote = "postgres://alice@127.0.0.1:1/app/plans"
        let push = try CLI.run(strata, ["push", document, remote, "--json"], environment: environment)
        #expect(push.status == 7, "\(push.stderr)")
        #expect(push.stdout == "strata-postgres push \(document) \(remote) --json\n")
        let clone = try CLI.run(strata, ["clone", remote, sandbox.path("b.strata")], environment: environment)
        #expect(clone.stdout == "strata-postgres clone \(remote) \(sandbox.path("b.strata"))\n")
        // A document that remembers a PostgreSQL remote: a file push makes it remember
        // one, which is then pointed at the server (what a push through strata-postgres
        // would have recorded; docs/SYNC.md).
        let hub = sandbox.path("hub.strata-remote")
        #expect(try CLI.run(strata, ["push", document, hub], environment: environment).status == 0)
        let edit = try CLI.run("/usr/bin/sqlite3", [document, "UPDATE strata_meta SET value = '\(remote)' WHERE key = 'sync.remote'"])
        #expect(edit.status == 0, "\(edit.stderr)")
        let store = try DocumentStore(openingAt: URL(fileURLWithPath: document))
        #expect(try store.syncRemoteLocation == remote)
        try store.close()
        let sync = try CLI.run(strata, ["sync", document], environment: environment)
        #expect(sync.status == 7 && sync.stdout == "strata-postgres sync \(document)\n", "\(sync.stdout) \(sync.stderr)")
    }
}
