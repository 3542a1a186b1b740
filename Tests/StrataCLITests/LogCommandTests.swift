import Foundation
import Testing

@Suite("strata-log")
struct LogCommandTests {
    /// A document with four saves: two inserts, an update, a delete.
    func history(_ sandbox: TemporaryDirectory) throws -> String {
        let document = try sandbox.employees()
        let research = try sandbox.insert(document, "Department", "name=Research")
        let ada = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "salary=100", "department=@\(research)")
        #expect(try CLI.strata("update", document, ada, "salary=200").status == 0)
        _ = try sandbox.insert(document, "Employee", "firstName=Alan", "lastName=Turing")
        return document
    }

    /// Flips one byte in the middle of a stored segment body.
    func corrupt(_ document: String, segment: Int) throws {
        let result = try CLI.run("/usr/bin/sqlite3", [document, """
            UPDATE strata_segment
            SET body = CAST(substr(body, 1, length(body) / 2) || x'FF' || substr(body, length(body) / 2 + 2) AS BLOB)
            WHERE seq = \(segment);
            """])
        try #require(result.status == 0, "sqlite3 failed: \(result.stderr)")
    }

    @Test("dump shows segments, groups and operations as text and JSON")
    func dump() throws {
        let sandbox = try TemporaryDirectory()
        let document = try history(sandbox)
        let text = try CLI.strataLog("dump", document)
        #expect(text.status == 0)
        #expect(text.stdout.contains("segment 3"))
        #expect(text.stdout.contains("\"Update Employee\""))
        #expect(text.stdout.contains("update Employee/p1  salary: 100 → 200"))
        #expect(text.stdout.contains("relate Department/p1.employees  +Employee/p1"))
        let segments = try #require(try CLI.strataLog("dump", document, "--from", "2", "--to", "3", "--json").json() as? [[String: Any]])
        #expect(segments.map { $0["sequence"] as? Int } == [2, 3])
        let group = try #require((segments[1]["groups"] as? [[String: Any]])?.first)
        #expect(group["action"] as? String == "Update Employee")
        #expect(group["kind"] as? String == "user")
        let operation = try #require((group["operations"] as? [[String: Any]])?.first)
        #expect(operation["op"] as? String == "update")
        #expect(operation["entity"] as? String == "Employee")
        #expect((operation["object"] as? String)?.hasSuffix("/Employee/p1") == true)
        let change = try #require((operation["changes"] as? [[String: Any]])?.first)
        #expect(change["key"] as? String == "salary" && change["old"] as? Int == 100 && change["new"] as? Int == 200)
    }

    @Test("verify fails on a corrupted segment, recover backs up, drops it and the document verifies again")
    func verifyAndRecover() throws {
        let sandbox = try TemporaryDirectory()
        let document = try history(sandbox)
        let healthy = try CLI.strataLog("verify", document)
        #expect(healthy.status == 0, "\(healthy.stdout)\(healthy.stderr)")
        #expect(healthy.stdout.contains("replaying 4 segments"))

        try corrupt(document, segment: 4)
        let corrupted = try sandbox.bytes("staff.strata")
        let failed = try CLI.strataLog("verify", document)
        // Damaged data: EX_DATAERR (README.md, "Command line"), was 1.
        #expect(failed.status == 65)
        #expect(failed.stdout.contains("Segment 4"))
        expectFailure(failed, tool: "strata-log", mentions: ["failed verification"])
        let info = try CLI.strata("info", document)
        expectFailure(info, mentions: ["Segment 4"])
        #expect(info.status == 65, "\(info.stderr)")
        #expect(try sandbox.bytes("staff.strata") == corrupted, "failed commands changed the damaged file")

        let recovered = try CLI.strataLog("recover", document)
        #expect(recovered.status == 0, "\(recovered.stderr)")
        #expect(recovered.stdout.contains("dropped segment 4"))
        let backups = try FileManager.default.contentsOfDirectory(atPath: sandbox.url.path).filter { $0.hasPrefix("staff.strata.bak-") }
        #expect(backups.count == 1)
        #expect(try sandbox.bytes(backups[0]) == corrupted)
        #expect(try CLI.strataLog("verify", document).status == 0)
        #expect(try CLI.strata("fetch", document, "Employee", "--count").stdout == "1\n")
        #expect(try CLI.strataLog("recover", document).stdout.contains("Nothing to recover"))
    }

    @Test("replay --to writes the document as it was after that segment")
    func replayTo() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let research = try sandbox.insert(document, "Department", "name=Research")
        let ada = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "salary=100", "department=@\(research)")
        let atTwo = try CLI.strata("export", document).json()
        #expect(try CLI.strata("update", document, ada, "salary=200").status == 0)
        #expect(try CLI.strata("delete", document, research).status == 0)
        _ = try sandbox.insert(document, "Project", "name=Engine")

        let out = sandbox.path("at-2.strata")
        let replay = try CLI.strataLog("replay", document, "--to", "2", "--out", out)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(withoutStoreIdentifiers(try CLI.strata("export", out).json()) == withoutStoreIdentifiers(atTwo))
        #expect(try CLI.strataLog("verify", out).status == 0)
        let history = try #require(try CLI.strata("history", out, "--json").json() as? [[String: Any]])
        #expect(history.map { $0["action"] as? String } == ["Insert Department", "Insert Employee"])
        #expect(try CLI.strata("undo", out).status == 0, "the replayed history is undoable")

        expectFailure(try CLI.strataLog("replay", document, "--to", "2", "--out", out), tool: "strata-log", mentions: ["already exists"])
        expectFailure(try CLI.strataLog("replay", document, "--to", "9", "--out", sandbox.path("x.strata")), tool: "strata-log", mentions: ["9"])
        let now = try CLI.strataLog("replay", document, "--at", "2999-01-01T00:00:00Z", "--out", sandbox.path("now.strata"))
        #expect(now.status == 0 && now.stdout.contains("after segment 5"))
        expectFailure(try CLI.strataLog("replay", document, "--at", "1999-01-01", "--out", sandbox.path("y.strata")), tool: "strata-log", mentions: ["1999-01-01"])
    }

    @Test("compact folds the log, keeps the requested history, and replay then needs full history")
    func compactWithRetention() throws {
        let sandbox = try TemporaryDirectory()
        let document = try history(sandbox)
        let before = try CLI.strata("export", document).json()
        let compact = try CLI.strataLog("compact", document, "--retain", "1")
        #expect(compact.status == 0, "\(compact.stderr)")
        #expect(compact.stdout.contains("Compacted 4 segments"))
        #expect(compact.stdout.contains("3 segments dropped"))
        let info = try #require(try CLI.strata("info", document, "--json").json() as? [String: Any])
        #expect((info["segments"] as? [String: Any])?["compactedThrough"] as? Int == 4)
        #expect((info["history"] as? [String: Any])?["firstRetainedSegment"] as? Int == 4)
        #expect(withoutStoreIdentifiers(try CLI.strata("export", document).json()) == withoutStoreIdentifiers(before))
        #expect(try CLI.strataLog("verify", document).status == 0)
        expectFailure(try CLI.strataLog("replay", document, "--to", "2", "--out", sandbox.path("old.strata")), tool: "strata-log",
                      mentions: ["full history"])
        expectFailure(try CLI.strataLog("compact", document, "--retain", "some"), tool: "strata-log", mentions: ["some"])
    }

    @Test("export writes each segment as SEQ.lz4 readable by lz4 -d and SEQ.json beside it")
    func exportSegments() throws {
        let sandbox = try TemporaryDirectory()
        let document = try history(sandbox)
        let folder = sandbox.path("segments")
        #expect(try CLI.strataLog("export", document, "--out", folder).status == 0)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        #expect(names == Set((1...4).flatMap { ["\($0).lz4", "\($0).json"] }))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/3.json"))) as? [String: Any])
        #expect(json["sequence"] as? Int == 3)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/lz4") {
            let decoded = try CLI.run("/usr/bin/lz4", ["-d", "-f", folder + "/3.lz4", folder + "/3.bin"])
            #expect(decoded.status == 0, "\(decoded.stderr)")
            let raw = try Data(contentsOf: URL(fileURLWithPath: folder + "/3.bin"))
            #expect(raw.prefix(4) == Data("STRS".utf8))
            #expect(raw.count == json["rawBytes"] as? Int)
        }
    }

    @Test("stats counts operations, groups and bytes per entity")
    func stats() throws {
        let sandbox = try TemporaryDirectory()
        let document = try history(sandbox)
        let stats = try #require(try CLI.strataLog("stats", document, "--json").json() as? [String: Any])
        #expect(stats["segments"] as? Int == 4)
        #expect(stats["groups"] as? Int == 4)
        #expect((stats["groupsByKind"] as? [String: Any])?["user"] as? Int == 4)
        #expect(stats["operations"] as? Int == 5)
        #expect((stats["rawBytes"] as? Int ?? 0) > 0 && (stats["compressedBytes"] as? Int ?? 0) > 0)
        let entities = try #require(stats["entities"] as? [[String: Any]])
        let employee = try #require(entities.first { $0["entity"] as? String == "Employee" })
        #expect(employee["inserts"] as? Int == 2 && employee["updates"] as? Int == 1)
        let department = try #require(entities.first { $0["entity"] as? String == "Department" })
        #expect(department["inserts"] as? Int == 1 && department["relates"] as? Int == 1)
        let text = try CLI.strataLog("stats", document)
        #expect(text.stdout.contains("Operations   5") && text.stdout.contains("Employee"))
    }
}
