#if STRATA_INSPECTOR_POSTGRES
import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// `strata-inspector postgres://…/DOC` against a real PostgreSQL server (Tools/postgres-server,
/// or `STRATA_POSTGRES_URL`): the same endpoints as a file, and a save another writer pushes
/// to the server reaching the event stream. Declared when the package has the PostgreSQL
/// stack (STRATA_POSTGRES=1 beside STRATA_INSPECTOR=1).
@Suite(.serialized) struct InspectorPostgresTests {
    /// The repository's Tools/postgres-server.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/postgres-server")

    /// A server for this suite: the environment's, or one started now and stopped at the end.
    final class Server: @unchecked Sendable {
        let url: String
        private let started: Bool

        init() throws {
            if let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"], !url.isEmpty {
                self.url = url
                started = false
                return
            }
            let result = try CLI.run("/bin/bash", [InspectorPostgresTests.script.path])
            let printed = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            guard result.status == 0, printed.hasPrefix("postgres://") else {
                throw StrataError(.io, "Tools/postgres-server failed (status \(result.status)): \(result.stdout) \(result.stderr)")
            }
            url = printed
            started = true
        }

        deinit {
            if started { _ = try? CLI.run("/bin/bash", [InspectorPostgresTests.script.path, "stop", url]) }
        }
    }

    @Test func aPostgresDocumentIsServedLikeAFileAndFollowsAnotherWritersSave() throws {
        let server = try Server()
        let fixture = try InspectorFixture()
        let name = "inspected-\(UUID().uuidString.prefix(8))"
        let remote = "\(server.url)/\(name)"
        let push = try CLI.run("strata", ["push", fixture.url.path, remote])
        try #require(push.status == 0, "\(push.stdout) \(push.stderr)")

        let inspector = try InspectorProcess(argument: remote)
        let summary = try inspector.request("/api/document")
        #expect(summary.status == 200)
        #expect(summary.json?["name"] as? String == name)
        #expect(summary.json?["lastSequence"] as? Int == 5)
        let entities = try #require(summary.json?["entities"] as? [[String: Any]])
        #expect(entities.first { $0["name"] as? String == "Employee" }?["objects"] as? Int == 32)
        let page = try inspector.request("/api/objects?entity=Employee&sort=salary:desc&limit=10")
        #expect(page.json?["total"] as? Int == 32)
        let next = try #require(page.json?["next"] as? String)
        let second = try inspector.request("/api/objects?entity=Employee&sort=salary:desc&limit=10&offset=10&after=\(next)")
        #expect((second.json?["rows"] as? [Any])?.count == 10)
        let timeline = try inspector.request("/api/timeline")
        #expect((timeline.json?["saves"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [5, 4, 3, 2, 1])
        #expect(try inspector.request("/api/save?sequence=2").status == 200)
        #expect(try inspector.request("/api/objects?entity=Employee&at=2").json?["total"] as? Int == 2)
        // Hostile input is answered as for a file.
        #expect(try inspector.request("/api/objects?entity=Employee&where=salary%20%3E%3E").status == 400)

        // Another writer: the file pushes one more save to the server.
        let events = try inspector.events(timeout: 60, until: { $0.count >= 2 }, meanwhile: {
            let insert = try CLI.run("strata", ["insert", fixture.url.path, "Department", "name=Sales"])
            #expect(insert.status == 0, "\(insert.stderr)")
            let pushed = try CLI.run("strata", ["push", fixture.url.path, remote])
            #expect(pushed.status == 0, "\(pushed.stdout) \(pushed.stderr)")
        })
        #expect(events.first == "{\"lastSequence\":5}")
        #expect(events.dropFirst().first == "{\"lastSequence\":6}")
        #expect(try inspector.request("/api/objects?entity=Department").json?["total"] as? Int == 2)
        // Nothing was written to the server by the inspector: the server's log is the file's.
        _ = inspector.terminate()
    }

    @Test func aCompactedPostgresDocumentShowsItsWholeHistoryUnlessOpenedFromTheServersSnapshot() throws {
        let server = try Server()
        let fixture = try InspectorFixture()
        let remote = "\(server.url)/compacted-\(UUID().uuidString.prefix(8))"
        let push = try CLI.run("strata", ["push", fixture.url.path, remote])
        try #require(push.status == 0, "\(push.stdout) \(push.stderr)")
        // Fold every save into the server's snapshot.
        let model = try DocumentStore.storedModel(at: fixture.url)
        var configuration = PostgresDocumentStore.Configuration()
        configuration.listensForRemoteChanges = false
        configuration.serverCompactionThreshold = 0
        let writer = try PostgresDocumentStore(location: try PostgresLocation(documentURL: remote), model: model,
                                               configuration: configuration)
        #expect(try writer.compact().outcome == .compacted)
        try writer.close()

        // By default the inspector replays the whole history: the timeline and time travel
        // reach the first save.
        let inspector = try InspectorProcess(argument: remote)
        let timeline = try inspector.request("/api/timeline")
        #expect((timeline.json?["saves"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [5, 4, 3, 2, 1])
        #expect(try inspector.request("/api/objects?entity=Employee&at=2").json?["total"] as? Int == 2)
        #expect(try inspector.request("/api/objects?entity=Employee").json?["total"] as? Int == 32)
        _ = inspector.terminate()

        // From the server's snapshot: the present only, and no history before it to travel to.
        let recent = try InspectorProcess(argument: remote, options: ["--from-server-snapshot"])
        #expect(try recent.request("/api/objects?entity=Employee").json?["total"] as? Int == 32)
        #expect((try recent.request("/api/timeline").json?["saves"] as? [[String: Any]])?.isEmpty == true)
        #expect(try recent.request("/api/objects?entity=Employee&at=2").status == 400)
        _ = recent.terminate()

        // The flag means nothing for a file, and says so.
        let refused = try CLI.run("strata-inspector", [fixture.url.path, "--from-server-snapshot"])
        #expect(refused.status != 0 && refused.stderr.contains("applies to a postgres:// document"))
    }

    @Test func aMissingPostgresDocumentIsRefusedBeforeServing() throws {
        let server = try Server()
        let result = try CLI.run("strata-inspector", ["\(server.url)/no-such-\(UUID().uuidString.prefix(8))"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("There is no document"))
        #expect(result.stdout.isEmpty)
    }
}
#endif
