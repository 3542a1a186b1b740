import Foundation
import Testing

/// A replica migrated to a new model and the remote it shared (docs/SYNC.md, "Limits"): the
/// remote keeps its model, so push, pull and sync refuse, saying what to do instead and
/// changing nothing; the other replicas keep syncing; the way the message gives works.
@Suite struct SyncAfterMigrationTests {
    @Test func aMigratedReplicaIsToldItsRemoteKeepsTheOldModelAndHowToShareItAgain() throws {
        let sandbox = try TemporaryDirectory()
        let a = try sandbox.employees("a.strata")
        let hub = sandbox.path("hub.strata-remote"), b = sandbox.path("b.strata")
        _ = try sandbox.insert(a, "Department", "name=Research")
        #expect(try CLI.strata("push", a, hub).status == 0)
        #expect(try CLI.strata("clone", hub, b).status == 0)

        // Version 2 of the model: Department gains an optional `floor`.
        var model = try #require(try CLI.strata("model", a, "--format", "json").json() as? [String: Any])
        var entities = try #require(model["entities"] as? [[String: Any]])
        let index = try #require(entities.firstIndex { $0["name"] as? String == "Department" })
        entities[index]["attributes"] = (entities[index]["attributes"] as? [[String: Any]] ?? [])
            + [["name": "floor", "type": "integer64", "optional": true]]
        model["entities"] = entities
        model["versionIdentifier"] = "employees-2"
        let v2 = sandbox.path("v2.json")
        try JSONSerialization.data(withJSONObject: model).write(to: URL(fileURLWithPath: v2))
        let migrated = try CLI.strata("migrate", a, "--model", v2)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        _ = try sandbox.insert(a, "Department", "name=Sales", "floor=3")

        let before = try Data(contentsOf: URL(fileURLWithPath: hub))
        for verb in ["push", "pull", "sync"] {
            let refused = try CLI.strata(verb, a)
            expectFailure(refused, mentions: ["another model", "cannot be migrated", "strata export DOC | strata import NEW -"])
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: hub)) == before, "a refused sync changed the remote")

        // The replica on the old model still shares through the remote.
        _ = try sandbox.insert(b, "Department", "name=Marketing")
        #expect(try CLI.strata("sync", b).status == 0)

        // The way out the message gives: a new document with the records, on a new remote.
        let records = try CLI.strata("export", a, "-o", sandbox.path("a.json"))
        #expect(records.status == 0, "\(records.stderr)")
        let fresh = sandbox.path("a2.strata")
        #expect(try CLI.strata("new", fresh, "--model", v2).status == 0)
        let imported = try CLI.strata("import", fresh, sandbox.path("a.json"))
        #expect(imported.status == 0, "\(imported.stderr)")
        let hub2 = sandbox.path("hub2.strata-remote"), c = sandbox.path("c.strata")
        #expect(try CLI.strata("push", fresh, hub2).status == 0)
        #expect(try CLI.strata("clone", hub2, c).status == 0)
        let floors = try CLI.strata("fetch", c, "Department", "--where", "floor == 3", "--count")
        #expect(floors.stdout == "1\n", "\(floors.stderr)")
        #expect(try CLI.strataLog("verify", c).status == 0)
    }
}
