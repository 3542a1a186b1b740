import Foundation
import Testing
import Strata

/// `strata push`, `pull`, `sync` and `clone` as real processes over real files, including
/// processes killed at each step of a push or pull (docs/SYNC.md, "Interruptions").
@Suite struct SyncCommandTests {
    /// Two replicas of one employees document and the remote file between them.
    struct Replicas {
        let directory: TemporaryDirectory
        let a: String
        let b: String
        let hub: String

        init() throws {
            directory = try TemporaryDirectory()
            a = try directory.employees("a.strata")
            hub = directory.path("hub.strata-remote")
            b = directory.path("b.strata")
            _ = try directory.insert(a, "Department", "name=Research")
            let push = try CLI.strata("push", a, hub)
            #expect(push.status == 0, "\(push.stderr)")
            #expect(push.stdout.contains("created the remote document"), "\(push.stdout)")
            let clone = try CLI.strata("clone", hub, b)
            #expect(clone.status == 0, "\(clone.stderr)")
        }

        /// The remote's segments.
        func remoteSegments() throws -> Int64 { try FileSegmentRemote(url: URL(fileURLWithPath: hub)).document()?.lastSequence ?? -1 }

        /// The departments a document holds, by name.
        func departments(_ document: String) throws -> [String] {
            let result = try CLI.strata("fetch", document, "Department", "--sort", "name", "--format", "json")
            #expect(result.status == 0, "\(result.stderr)")
            let rows = try result.json() as? [[String: Any]] ?? []
            return rows.compactMap { $0["name"] as? String }
        }

        func verify(_ documents: String...) throws {
            for document in documents {
                let result = try CLI.strataLog("verify", document)
                #expect(result.status == 0, "\(document): \(result.stdout) \(result.stderr)")
            }
        }
    }

    @Test func pushCloneAndSyncExchangeSavesAndRememberTheRemote() throws {
        let replicas = try Replicas()
        #expect(try replicas.departments(replicas.b) == ["Research"])
        _ = try replicas.directory.insert(replicas.b, "Department", "name=Sales")
        _ = try replicas.directory.insert(replicas.a, "Department", "name=Marketing")
        let fromB = try CLI.run("strata", ["sync", replicas.b, "--json"])
        #expect(fromB.status == 0, "\(fromB.stderr)")
        let report = try fromB.json() as? [String: Any]
        #expect(report?["sent"] as? Int == 1 && report?["received"] as? Int == 0 && report?["replica"] as? Int == 2)
        let fromA = try CLI.strata("sync", replicas.a)
        #expect(fromA.status == 0 && fromA.stdout.contains("sent 1 segment, received 1"), "\(fromA.stdout) \(fromA.stderr)")
        #expect(try CLI.strata("pull", replicas.b).status == 0)
        #expect(try replicas.departments(replicas.a) == ["Marketing", "Research", "Sales"])
        #expect(try replicas.departments(replicas.b) == ["Marketing", "Research", "Sales"])
        #expect(try replicas.remoteSegments() == 3)
        try replicas.verify(replicas.a, replicas.b)
    }

    @Test func conflictsStopUnderTheErrorPolicyAndResolveUnderAnother() throws {
        let replicas = try Replicas()
        #expect(try CLI.strata("update", replicas.a, "Department/p1", "budget=100").status == 0)
        #expect(try CLI.strata("update", replicas.b, "Department/p1", "budget=200").status == 0)
        #expect(try CLI.strata("sync", replicas.a).status == 0)
        expectFailure(try CLI.strata("sync", replicas.b), mentions: ["Department/p1", "budget", "--merge-policy", "Nothing was changed"])
        let resolved = try CLI.run("strata", ["sync", replicas.b, "--merge-policy", "objectTrump"])
        #expect(resolved.status == 0 && resolved.stdout.contains("resolved 1 conflict"), "\(resolved.stdout) \(resolved.stderr)")
        #expect(try CLI.strata("sync", replicas.a).status == 0)
        for document in [replicas.a, replicas.b] {
            let budget = try CLI.strata("get", document, "Department/p1")
            #expect(budget.stdout.contains("200"), "\(document): \(budget.stdout)")
        }
        expectFailure(try CLI.run("strata", ["pull", replicas.b, "--merge-policy", "maybe"]), mentions: ["--merge-policy"])
        try replicas.verify(replicas.a, replicas.b)
    }

    @Test func commandsWithoutARemoteSayWhatToDo() throws {
        let directory = try TemporaryDirectory()
        let lone = try directory.employees("lone.strata")
        expectFailure(try CLI.strata("pull", lone), mentions: ["does not sync with a remote", "strata push"])
        expectFailure(try CLI.strata("clone", directory.path("empty.strata-remote"), directory.path("c.strata")),
                      mentions: ["no remote at", "strata push"])
        #expect(!FileManager.default.fileExists(atPath: directory.path("empty.strata-remote")), "a clone makes no remote file")
        let help = try CLI.strata("push", "--help")
        #expect(help.stdout.contains("--merge-policy") && help.stdout.contains("strata push staff.strata hub.strata-remote"))
    }

    /// Kills `strata sync` at each step of a push or a pull, then runs it again: every save
    /// ends up on the remote exactly once and in both replicas.
    @Test(arguments: ["push-recorded", "push-appended", "pull-fetched"])
    func aSyncKilledAtAnyStepIsFinishedByTheNextWithNothingLostOrDuplicated(point: String) throws {
        let replicas = try Replicas()
        _ = try replicas.directory.insert(replicas.a, "Department", "name=Alpha")
        _ = try replicas.directory.insert(replicas.b, "Department", "name=Beta")
        #expect(try CLI.strata("sync", replicas.a).status == 0)
        let killed = try CLI.run("strata", ["sync", replicas.b], environment: ["STRATA_SYNC_FAULT": point])
        #expect(killed.status != 0, "killed at \(point)")
        let resumed = try CLI.strata("sync", replicas.b)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try CLI.strata("sync", replicas.a).status == 0)
        #expect(try replicas.remoteSegments() == 3, "Research, Alpha, Beta: each once")
        #expect(try replicas.departments(replicas.a) == ["Alpha", "Beta", "Research"])
        #expect(try replicas.departments(replicas.b) == ["Alpha", "Beta", "Research"])
        try replicas.verify(replicas.a, replicas.b)
    }

    @Test(arguments: ["create-recorded", "create-appended"])
    func aFirstPushKilledMidwayIsFinishedByTheNext(point: String) throws {
        let directory = try TemporaryDirectory()
        let a = try directory.employees("a.strata")
        _ = try directory.insert(a, "Department", "name=Research")
        let hub = directory.path("hub.strata-remote")
        #expect(try CLI.run("strata", ["push", a, hub], environment: ["STRATA_SYNC_FAULT": point]).status != 0)
        let resumed = try CLI.strata("push", a, hub)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try FileSegmentRemote(url: URL(fileURLWithPath: hub)).document()?.lastSequence == 1)
        #expect(try CLI.strata("clone", hub, directory.path("b.strata")).status == 0)
        #expect(try CLI.strataLog("verify", directory.path("b.strata")).status == 0)
    }

    @Test func undoStaysLocal() throws {
        let replicas = try Replicas()
        _ = try replicas.directory.insert(replicas.a, "Department", "name=FromA")
        #expect(try CLI.strata("sync", replicas.a).status == 0)
        #expect(try CLI.strata("sync", replicas.b).status == 0)
        // b saved nothing itself: there is nothing for it to undo.
        expectFailure(try CLI.strata("undo", replicas.b), tool: "strata", mentions: ["Nothing to undo"])
        #expect(try replicas.departments(replicas.b) == ["FromA", "Research"])
    }
}
