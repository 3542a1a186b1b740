import Foundation
import Testing
import Strata
import StrataPostgres
import StrataTestSupport

/// `strata push`, `clone`, `sync` and `pull` with a PostgreSQL document as the remote: two
/// local files that work offline and share their saves through one server (docs/SYNC.md).
@Suite("PostgreSQL document: local files sync through it with the strata tool")
struct PostgresSyncCommandTests {
    /// The departments a document holds, by name.
    func departments(_ document: String) throws -> [String] {
        let result = try CLI.strata("fetch", document, "Department", "--sort", "name", "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try result.json() as? [[String: Any]] ?? []
        return rows.compactMap { $0["name"] as? String }
    }

    func insertDepartment(_ document: String, _ name: String) throws {
        let result = try CLI.strata("insert", document, "Department", "name=\(name)")
        #expect(result.status == 0, "strata insert failed: \(result.stderr)")
    }

    /// Two files sharing a new server document: `a`, the example document with department
    /// Research, pushed (which creates the document), and `b`, cloned from it.
    struct SharedFiles {
        let directory: TemporaryDirectory
        let name: String, a: String, b: String

        init(_ prefix: String, _ suite: PostgresSyncCommandTests) throws {
            directory = try TemporaryDirectory()
            name = uniqueDocumentName(prefix)
            let remote = try PostgresTestServer.url + "/" + name
            a = directory.path("a.strata")
            b = directory.path("b.strata")
            #expect(try CLI.strata("new", a, "--example", "employees").status == 0)
            try suite.insertDepartment(a, "Research")
            let push = try CLI.strata("push", a, remote)
            #expect(push.status == 0 && push.stdout.contains("created the remote document"), "\(push.stdout) \(push.stderr)")
            let clone = try CLI.strata("clone", remote, b)
            #expect(clone.status == 0, "\(clone.stderr)")
            #expect(try suite.departments(b) == ["Research"])
        }
    }

    @Test func twoFilesShareTheirSavesThroughOneServerAndResolveAConflictByPolicy() throws {
        let shared = try SharedFiles("cli-sync", self)
        defer { withExtendedLifetime(shared) {} }  // its directory holds the files
        let (name, a, b) = (shared.name, shared.a, shared.b)

        // A live store on the same server document reads what the push sent; its save gets a
        // key no replica holds and reaches the files with their next pull.
        let live = try PostgresStack(name, create: false, listens: false)
        defer { live.close() }
        let names = try live.context.fetch(FetchRequest(entityName: "Department")).map { try $0.string("name") ?? "?" }
        #expect(names == ["Research"])
        _ = try department("Live", live.context)
        try live.context.save()
        #expect(try CLI.strata("pull", a).status == 0)
        #expect(try departments(a) == ["Live", "Research"])

        // Offline work on both sides, then both sync (each remembers the remote).
        try insertDepartment(a, "Marketing")
        try insertDepartment(b, "Sales")
        let fromB = try CLI.run("strata", ["sync", b, "--json"])
        #expect(fromB.status == 0, "\(fromB.stderr)")
        let report = try fromB.json() as? [String: Any]
        #expect(report?["sent"] as? Int == 1 && report?["received"] as? Int == 1, "B sends Sales and takes in Live")
        #expect(try CLI.strata("sync", a).status == 0)
        #expect(try CLI.strata("pull", b).status == 0)
        #expect(try departments(a) == ["Live", "Marketing", "Research", "Sales"])
        #expect(try departments(b) == ["Live", "Marketing", "Research", "Sales"])

        // The same key changed on both sides: .error refuses and changes nothing; the
        // remote's value wins under storeTrump, and both files end up agreeing.
        #expect(try CLI.strata("update", a, "Department/p1", "budget=100").status == 0)
        #expect(try CLI.strata("update", b, "Department/p1", "budget=200").status == 0)
        #expect(try CLI.strata("sync", a).status == 0)
        let refused = try CLI.strata("sync", b)
        #expect(refused.status != 0 && refused.stderr.contains("budget"), "\(refused.stdout) \(refused.stderr)")
        let resolved = try CLI.strata("sync", b, "--merge-policy", "storeTrump")
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(try CLI.strata("pull", a).status == 0)
        for document in [a, b] {
            let budget = try CLI.strata("get", document, "Department/p1")
            #expect(budget.stdout.contains("100") && !budget.stdout.contains("200"), "\(document): \(budget.stdout)")
            let verify = try CLI.strataLog("verify", document)
            #expect(verify.status == 0, "\(document): \(verify.stdout) \(verify.stderr)")
        }
    }

    @Test func aBadPostgresRemoteIsAClearErrorAndTheFileIsUntouched() throws {
        let directory = try TemporaryDirectory()
        let a = directory.path("a.strata")
        #expect(try CLI.strata("new", a, "--example", "employees").status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: a))
        let noDocument = try CLI.strata("push", a, PostgresTestServer.url)
        #expect(noDocument.status != 0 && noDocument.stderr.contains("DOCUMENT"), "\(noDocument.stderr)")
        let noServer = try CLI.strata("push", a, "postgres://strata:secret@127.0.0.1:1/postgres/plans")
        #expect(noServer.status != 0 && !noServer.stderr.contains("secret"), "\(noServer.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == before)
    }

    /// The server side of a sync ended midway: `strata sync` pauses at `point`
    /// (`STRATA_SYNC_PAUSE`), the test ends every server process of that `strata` process
    /// (found by its `PGAPPNAME`), and the sync goes on over a dead connection. Between
    /// transactions it finishes over a new connection; inside the append's transaction it
    /// fails saying the append did not happen. Either way the next sync finishes the job, and
    /// every save is on the server exactly once and in both files.
    @Test(arguments: ["push-recorded", "push-committing", "push-appended", "pull-fetched"])
    func aSyncWhoseServerConnectionIsEndedMidwayIsFinishedByTheNext(point: String) throws {
        let shared = try SharedFiles("cli-ended", self)
        defer { withExtendedLifetime(shared) {} }  // its directory holds the files
        let (directory, name, a, b) = (shared.directory, shared.name, shared.a, shared.b)
        try insertDepartment(a, "Alpha")
        #expect(try CLI.strata("sync", a).status == 0)
        try insertDepartment(b, "Beta")

        let pauseFile = directory.path("paused")
        let application = "strata-test-\(name)"
        let outcome = Locked<CommandResult?>(nil)
        let sync = Thread {
            let result = try? CLI.run("strata", ["sync", b],
                                      environment: ["STRATA_SYNC_PAUSE": "\(point):\(pauseFile)", "PGAPPNAME": application])
            outcome.withLock { $0 = result }
        }
        sync.start()
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: pauseFile), Date() < deadline { usleep(20_000) }
        try #require(FileManager.default.fileExists(atPath: pauseFile), "strata sync never reached \(point)")
        let admin = try adminSession()
        defer { admin.close() }
        let ended = try admin.rows("""
            SELECT pg_terminate_backend(pid, 10000)::text FROM pg_stat_activity WHERE application_name = '\(application)'
            """).compactMap { $0.first ?? nil }
        #expect(!ended.isEmpty && ended.allSatisfy { $0 == "true" }, "the sync's server processes: \(ended)")
        try FileManager.default.removeItem(atPath: pauseFile)
        while outcome.withLock({ $0 }) == nil, Date() < deadline { usleep(20_000) }
        let first = try #require(outcome.withLock { $0 }, "strata sync did not finish")
        print("strata sync with its server connection ended at \(point): exit \(first.status); "
              + (first.status == 0 ? first.stdout : first.stderr).split(separator: "\n").prefix(2).joined(separator: " / "))
        if point == "push-committing" {
            // Inside the append's transaction: its COMMIT cannot succeed, and the sync says so.
            #expect(first.status != 0 && first.stderr.contains("did not happen") && first.stderr.contains("127.0.0.1"),
                    "\(first.stderr)")
        } else {
            // Between transactions: the remote connects again and the sync finishes.
            #expect(first.status == 0, "\(first.stderr)")
        }

        let resumed = try CLI.strata("sync", b)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try CLI.strata("sync", a).status == 0)
        let id = try documentID(name, admin)
        #expect(try scalar(admin, "SELECT count(*)::text FROM strata_segments WHERE document = \(id)") == "3",
                "Research, Alpha, Beta: each once")
        #expect(try departments(a) == ["Alpha", "Beta", "Research"])
        #expect(try departments(b) == ["Alpha", "Beta", "Research"])
        for document in [a, b] {
            let verify = try CLI.strataLog("verify", document)
            #expect(verify.status == 0, "\(document): \(verify.stdout) \(verify.stderr)")
        }
    }
}
