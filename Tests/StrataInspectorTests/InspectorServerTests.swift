import Foundation
import StrataTestSupport
import Testing

/// The `strata-inspector` tool as a real process: what it binds, what it serves, what it
/// refuses, and the live event stream when another process saves.
@Suite struct InspectorServerTests {
    @Test func itServesTheWebAppAndTheAPIOnLoopbackWithSafeHeaders() throws {
        let fixture = try InspectorFixture()
        let inspector = try InspectorProcess(document: fixture.url)
        let page = try inspector.request("/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(page.body.contains("<script src=\"/app.js\""))
        #expect(page.headers["content-security-policy"]?.contains("script-src 'self'") == true)
        #expect(page.headers["x-content-type-options"] == "nosniff")
        let script = try inspector.request("/app.js")
        #expect(script.status == 200)
        #expect(script.headers["content-type"]?.hasPrefix("text/javascript") == true)
        #expect(!script.body.contains(".innerHTML"))
        #expect(try inspector.request("/style.css").status == 200)

        let objects = try inspector.request("/api/objects?entity=Employee&where=salary+%3E+100000&sort=salary:desc")
        #expect(objects.status == 200)
        #expect(objects.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(objects.json?["total"] as? Int == 2)
    }

    @Test func hostileRequestsAreAnsweredWith4xxAndTheServerKeepsServing() throws {
        let fixture = try InspectorFixture()
        let inspector = try InspectorProcess(document: fixture.url)
        let cases: [(target: String, method: String, host: String?, status: Int)] = [
            ("/api/objects?entity=Employee&where=%3Cscript%3E", "GET", nil, 400),
            ("/api/objects?entity=Employee&limit=1000000", "GET", nil, 400),
            ("/api/objects?entity=%3Cscript%3Ealert(1)%3C%2Fscript%3E", "GET", nil, 404),
            ("/api/object?id=Employee%2Fp424242", "GET", nil, 404),
            ("/api/save?sequence=%00", "GET", nil, 400),
            ("/api/compare?from=1&to=999999999999999999999", "GET", nil, 400),
            ("/../../etc/passwd", "GET", nil, 404),
            ("/api/document", "POST", nil, 405),
            ("/api/document", "DELETE", nil, 405),
            ("/api/document", "GET", "evil.example:80", 403),
        ]
        for item in cases {
            let answer = try inspector.request(item.target, method: item.method, host: item.host)
            #expect(answer.status == item.status, "\(item.method) \(item.target)")
            #expect((answer.json?["error"] as? String)?.isEmpty == false, "\(item.method) \(item.target)")
        }
        // A value holding markup comes back as a JSON string, never as markup.
        let hostile = try inspector.request("/api/objects?entity=Employee&at=3&where=firstName+%3D%3D+%27Mallory%27")
        #expect(hostile.status == 200)
        #expect(hostile.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(hostile.body.contains("<script>alert('x')</script>"))
        #expect(try inspector.request("/api/document").status == 200)
    }

    @Test func aSaveByAnotherProcessReachesTheEventStreamWithinASecond() throws {
        let fixture = try InspectorFixture()
        let inspector = try InspectorProcess(document: fixture.url)
        var savedAt = Date()
        var sawAt = Date.distantFuture
        let events = try inspector.events(timeout: 30, until: { events in
            if events.count >= 2, sawAt == .distantFuture { sawAt = Date() }
            return events.count >= 2
        }, meanwhile: {
            let result = try CLI.run("strata", ["insert", fixture.url.path, "Department", "name=Sales"])
            #expect(result.status == 0, "\(result.stderr)")
            savedAt = Date()
        })
        #expect(events.first == "{\"lastSequence\":5}")
        #expect(events.dropFirst().first == "{\"lastSequence\":6}")
        #expect(sawAt.timeIntervalSince(savedAt) < 1.5)
        let answer = try inspector.request("/api/objects?entity=Department&sort=name")
        #expect(answer.json?["total"] as? Int == 2)
    }

    @Test func sigtermClosesTheDocumentAndRemovesTheTimeTravelScratchFolder() throws {
        let fixture = try InspectorFixture()
        let scratch = try TemporaryDirectory()
        let inspector = try InspectorProcess(document: fixture.url, environment: ["TMPDIR": scratch.url.path])
        #expect(try inspector.request("/api/objects?entity=Employee&at=2").status == 200)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).count == 1)
        let events = try inspector.events(timeout: 10, until: { !$0.isEmpty }, meanwhile: {})
        #expect(events == ["{\"lastSequence\":5}"])
        #expect(inspector.terminate() == .exited(0))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }

    @Test func aDamagedDocumentIsRefusedWithTheCLIsMessage() throws {
        let directory = try TemporaryDirectory()
        let damaged = directory.file("damaged.strata")
        try Data(repeating: 0x5A, count: 8192).write(to: damaged)
        let cli = try CLI.run("strata", ["info", damaged.path])
        let inspector = try CLI.run("strata-inspector", [damaged.path])
        #expect(inspector.status == cli.status)
        #expect(inspector.status != 0)
        #expect(inspector.stderr.replacingOccurrences(of: "strata-inspector:", with: "strata:") == cli.stderr)
        let missing = try CLI.run("strata-inspector", [directory.path("missing.strata")])
        #expect(missing.status != 0)
        #expect(missing.stderr.hasPrefix("strata-inspector: error: "))
    }

    @Test func anOutOfRangePortIsAUsageError() throws {
        let fixture = try InspectorFixture()
        let result = try CLI.run("strata-inspector", [fixture.url.path, "--port", "70000"])
        #expect(result.status == 64 || result.status == 2)
        #expect(result.stderr.contains("--port"))
    }
}
