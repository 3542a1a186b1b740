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

    @Test func twoFilesShareTheirSavesThroughOneServerAndResolveAConflictByPolicy() throws {
        let directory = try TemporaryDirectory()
        let name = uniqueDocumentName("cli-sync")
        let remote = try PostgresTestServer.url + "/" + name
        let a = directory.path("a.strata"), b = directory.path("b.strata")
        #expect(try CLI.strata("new", a, "--example", "employees").status == 0)
        try insertDepartment(a, "Research")

        let push = try CLI.strata("push", a, remote)
        #expect(push.status == 0 && push.stdout.contains("created the remote document"), "\(push.stdout) \(push.stderr)")
        let clone = try CLI.strata("clone", remote, b)
        #expect(clone.status == 0, "\(clone.stderr)")
        #expect(try departments(b) == ["Research"])

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
}
