import Foundation
import Strata
import StrataInspectorCore
import StrataTestSupport
import Testing

/// The timeline's kinds beyond the groups' (sync, migration) and the undo view of one
/// context's stacks.
@Suite struct InspectorKindsTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    private func kinds(_ api: InspectorAPI, _ parameters: [String: String] = [:]) throws -> [Int: [String]] {
        let answer = try api.get("/api/timeline", parameters)
        #expect(answer.status == 200, "\(answer.error ?? "")")
        let saves = try #require(answer.json["saves"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: saves.map { ($0["sequence"] as! Int, $0["kinds"] as! [String]) })
    }

    @Test func aSaveTakenInFromASyncRemoteIsOfKindSync() throws {
        let remote = try FileSegmentRemote(url: directory.file("hub.strata-remote"))
        let a = try DocumentStack.create(directory.file("a.strata"))
        let department = try a.context.insertObject(forEntityName: "Department")
        try department.setValue("Research", forKey: "name")
        try a.context.save()
        _ = try DocumentSync(store: a.store, remote: remote).push()
        try a.store.close()
        let (clone, _) = try DocumentSync.clone(remote, to: directory.file("b.strata"))
        try clone.close()
        let b = try DocumentStack.open(directory.file("b.strata"))
        let sales = try b.context.insertObject(forEntityName: "Department")
        try sales.setValue("Sales", forKey: "name")
        try b.context.save()
        try b.store.close()

        let document = try InspectorDocument(path: directory.file("b.strata").path)
        defer { document.close() }
        let api = InspectorAPI(document: document)
        let all = try kinds(api)
        #expect(all[1]?.contains("sync") == true)
        #expect(all[2]?.contains("sync") == false)
        #expect(Array(try kinds(api, ["kind": "sync"]).keys) == [1])
        #expect(try api.get("/api/save", ["sequence": "1"]).json["kinds"] as? [String] == all[1])
    }

    @Test func theFirstSaveAfterAMigrationIsOfKindMigration() throws {
        let (v1, v2) = try InspectorFixture.itemModels()
        let url = directory.file("items.strata")
        for (model, name) in [(v1, "first"), (v1, "second")] {
            let stack = name == "first" ? try DocumentStack.create(url, model: model) : try DocumentStack.open(url, model: model)
            let item = try stack.context.insertObject(forEntityName: "Item")
            try item.setValue(.string(name), forKey: "name")
            try stack.context.save()
            try stack.store.close()
        }
        try DocumentStore.migrate(at: url, to: v2)
        let stack = try DocumentStack.open(url, model: v2)
        let item = try stack.context.insertObject(forEntityName: "Item")
        try item.setValue("third", forKey: "name")
        try stack.context.save()
        try stack.store.close()

        let document = try InspectorDocument(path: url.path)
        defer { document.close() }
        let api = InspectorAPI(document: document)
        let all = try kinds(api)
        #expect(all.keys.sorted() == [1, 2, 3])
        #expect(all[3]?.contains("migration") == true)
        #expect(all[2]?.contains("migration") == false)
        #expect(Array(try kinds(api, ["kind": "migration"]).keys) == [3])
        #expect(try api.get("/api/timeline", ["kind": "teleport"]).status == 400)
    }

    @Test func theUndoViewShowsOneContextsStacksByName() throws {
        let url = directory.file("contexts.strata")
        let stack = try DocumentStack.create(url)
        let editor = stack.context
        editor.name = "editor"
        let importer = stack.newContext()
        importer.name = "importer"
        for (context, action) in [(editor, "Found Research"), (importer, "Import Sales"), (editor, "Found Legal"), (importer, "Import Ops")] {
            let department = try context.insertObject(forEntityName: "Department")
            try department.setValue(.string(action), forKey: "name")
            context.processPendingChanges()
            context.undoManager?.setActionName(action)
            try context.save()
        }
        try stack.store.close()

        let document = try InspectorDocument(path: url.path)
        defer { document.close() }
        let api = InspectorAPI(document: document)
        let whole = try api.get("/api/undo")
        #expect(whole.json["undoActionName"] as? String == "Import Ops")
        #expect(whole.json["contexts"] as? [String] == ["editor", "importer"])
        let editorStacks = try api.get("/api/undo", ["context": "editor"])
        #expect(editorStacks.status == 200)
        #expect(editorStacks.json["context"] as? String == "editor")
        #expect(editorStacks.json["undoActionName"] as? String == "Found Legal")
        let groups = try #require(editorStacks.json["groups"] as? [[String: Any]])
        #expect(groups.map { $0["action"] as? String } == ["Found Legal", "Found Research"])
        #expect(try api.get("/api/undo", ["context": "importer"]).json["undoActionName"] as? String == "Import Ops")
        let nobody = try api.get("/api/undo", ["context": "nobody"])
        #expect(nobody.json["canUndo"] as? Bool == false)
    }
}
