import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Ten versions of a small model, each one inferable change from the one before
/// (docs/MIGRATION.md, "What is inferred"), as JSON model files.
enum ItemModelVersions {
    static let last = 10
    /// What each version changes.
    static let changes = [
        2: "adds the optional attribute Item.color",
        3: "adds Item.priority, required with a default",
        4: "removes the attribute Item.oldNote",
        5: "renames Item.name to title (renaming identifier)",
        6: "adds the entity Shelf",
        7: "removes the entity Gone",
        8: "adds the relationship Item.shelf and its inverse Shelf.items",
        9: "makes Item.code required with a default and widens Item.qty to integer 64",
        10: "renames the entity Box to Crate (renaming identifier)",
    ]

    /// The name of the entity holding boxes in `version`.
    static func boxEntity(_ version: Int) -> String { version >= 10 ? "Crate" : "Box" }
    /// The name of Item's title attribute in `version`.
    static func titleKey(_ version: Int) -> String { version >= 5 ? "title" : "name" }

    static func model(_ version: Int) -> [String: Any] {
        let box = boxEntity(version)
        var itemAttributes: [[String: Any]] = [
            version >= 9 ? ["name": "code", "type": "string", "optional": false, "default": "none"] : ["name": "code", "type": "string"],
            version >= 5 ? ["name": "title", "type": "string", "renamingIdentifier": "name"] : ["name": "name", "type": "string"],
            ["name": "qty", "type": version >= 9 ? "integer64" : "integer16"],
        ]
        if version < 4 { itemAttributes.append(["name": "oldNote", "type": "string"]) }
        if version >= 2 { itemAttributes.append(["name": "color", "type": "string"]) }
        if version >= 3 { itemAttributes.append(["name": "priority", "type": "integer32", "optional": false, "default": 3]) }
        var itemRelationships: [[String: Any]] = [["name": "box", "destination": box, "inverse": "items"]]
        if version >= 8 { itemRelationships.append(["name": "shelf", "destination": "Shelf", "inverse": "items"]) }
        var boxEntity: [String: Any] = [
            "name": box, "attributes": [["name": "label", "type": "string"]],
            "relationships": [["name": "items", "destination": "Item", "inverse": "box", "toMany": true]],
        ]
        if version >= 10 { boxEntity["renamingIdentifier"] = "Box" }
        var entities: [[String: Any]] = [
            ["name": "Item", "attributes": itemAttributes, "relationships": itemRelationships],
            boxEntity,
        ]
        if version < 7 { entities.append(["name": "Gone", "attributes": [["name": "what", "type": "string"]]]) }
        if version >= 6 {
            var shelf: [String: Any] = ["name": "Shelf", "attributes": [["name": "place", "type": "string"]]]
            if version >= 8 { shelf["relationships"] = [["name": "items", "destination": "Item", "inverse": "shelf", "toMany": true]] }
            entities.append(shelf)
        }
        return ["format": "strata-model", "formatVersion": 1, "entities": entities, "versionIdentifier": "items-\(version)"]
    }

    /// Writes version `version` to `path`.
    static func write(_ version: Int, to path: String) throws {
        try JSONSerialization.data(withJSONObject: model(version), options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
    }
}

/// Every reader of old segments decodes each with the model version it was written with
/// (issue 32, item 3; docs/MIGRATION.md, "History"): a document migrated through each
/// inferable change, with saves in every version, then every log command run on it as a
/// process.
@Suite struct OldSegmentCommandTests {
    @Test("the reproduction: strata history after a migration that adds an attribute")
    func historyAfterAddingAnAttribute() throws {
        let sandbox = try TemporaryDirectory()
        let v1 = sandbox.path("v1.json"), v2 = sandbox.path("v2.json")
        try ItemModelVersions.write(1, to: v1)
        try ItemModelVersions.write(2, to: v2)
        let document = sandbox.path("m.strata")
        #expect(try CLI.strata("new", document, "--model", v1).status == 0)
        _ = try sandbox.insert(document, "Item", "code=a", "name=Alpha")
        let migrated = try CLI.strata("migrate", document, "--model", v2)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let history = try CLI.strata("history", document)
        #expect(history.status == 0, "\(history.stderr)")
        #expect(!history.stderr.contains("corrupt"), "\(history.stderr)")
        #expect(history.stdout.contains("Insert Item"), "\(history.stdout)")
    }

    @Test("after migrating through every inferable change, every log command reads every version's segments")
    func everyLogCommandAfterEveryInferableChange() throws {
        let sandbox = try TemporaryDirectory()
        let document = sandbox.path("items.strata")
        var models: [Int: String] = [:]
        for version in 1...ItemModelVersions.last {
            models[version] = sandbox.path("v\(version).json")
            try ItemModelVersions.write(version, to: models[version]!)
        }
        #expect(try CLI.strata("new", document, "--model", models[1]!).status == 0)
        // Version 1: a box, three items (one deleted, one updated), a record of the entity v7 removes.
        let box = try sandbox.insert(document, "Box", "label=B1")
        let alpha = try sandbox.insert(document, "Item", "code=a", "name=Alpha", "qty=1", "oldNote=old", "box=@\(box)")
        let beta = try sandbox.insert(document, "Item", "code=b", "name=Beta", "qty=2")
        _ = try sandbox.insert(document, "Gone", "what=soon")
        #expect(try CLI.strata("update", document, alpha, "qty=5", "oldNote=older").status == 0)
        #expect(try CLI.strata("delete", document, beta).status == 0)
        var expectedItems = 1
        var segmentsOfVersion: [Int: UInt64] = [1: 6]
        var lastSegment: UInt64 = 6
        for version in 2...ItemModelVersions.last {
            let migrated = try CLI.strata("migrate", document, "--model", models[version]!)
            #expect(migrated.status == 0, "v\(version) (\(ItemModelVersions.changes[version]!)): \(migrated.stderr)")
            // A save in each version: an item using what the version has, and an update of Alpha.
            var values = ["code=c\(version)", "\(ItemModelVersions.titleKey(version))=Item \(version)", "qty=\(version)"]
            if version >= 2 { values.append("color=red\(version)") }
            if version >= 3 { values.append("priority=\(version)") }
            if version >= 8 {
                let shelf = try sandbox.insert(document, "Shelf", "place=P\(version)")
                values.append("shelf=@\(shelf)")
                lastSegment += 1
            }
            let inserted = try CLI.run("strata", ["insert", document, "Item"] + values)
            #expect(inserted.status == 0, "v\(version): \(inserted.stderr)")
            expectedItems += 1
            let updated = try CLI.strata("update", document, alpha, "qty=\(10 * version)")
            #expect(updated.status == 0, "v\(version): \(updated.stderr)")
            lastSegment += 2
            segmentsOfVersion[version] = lastSegment
        }
        let current = try ManagedObjectModel(jsonData: Data(contentsOf: URL(fileURLWithPath: models[ItemModelVersions.last]!)))

        // strata history: every group of every version, none reported corrupt.
        let history = try CLI.strata("history", document, "--json")
        #expect(history.status == 0, "\(history.stderr)")
        let groups = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]], "\(history.stdout)")
        #expect(groups.count == Int(lastSegment), "\(groups.count) groups for \(lastSegment) segments")
        let filtered = try CLI.strata("history", document, "--since", "3")
        #expect(filtered.status == 0, "\(filtered.stderr)")
        #expect(filtered.stdout.contains("Delete Item"), "\(filtered.stdout)")

        // strata-log dump: the values each version wrote, under the names it had then.
        let dump = try CLI.strataLog("dump", document, "--json")
        #expect(dump.status == 0, "\(dump.stderr)")
        let dumped = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [[String: Any]])
        #expect(dumped.count == Int(lastSegment))
        #expect(dump.stdout.contains("Alpha") && dump.stdout.contains("older") && dump.stdout.contains("soon"), "\(dump.stdout.prefix(2000))")
        #expect(dump.stdout.contains("red2") && dump.stdout.contains("Item 10"))
        let text = try CLI.strataLog("dump", document)
        #expect(text.status == 0 && text.stdout.contains("oldNote") && text.stdout.contains("title"), "\(text.stderr)")

        // strata-log verify replays the whole log across the nine migrations.
        let verified = try CLI.strataLog("verify", document)
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")

        // strata-log replay to the end of each version: a document in that version's model.
        let export = try CLI.strata("export", document)
        #expect(export.status == 0, "\(export.stderr)")
        for version in 1...ItemModelVersions.last {
            let past = sandbox.path("past-\(version).strata")
            let replayed = try CLI.strataLog("replay", document, "--to", String(segmentsOfVersion[version]!), "--out", past)
            #expect(replayed.status == 0, "v\(version): \(replayed.stderr)")
            let info = try CLI.strata("info", past, "--json")
            #expect(info.stdout.contains("items-\(version)"), "v\(version): \(info.stdout.prefix(400))")
            let items = try CLI.strata("fetch", past, "Item", "--count")
            #expect(items.stdout == "\(version)\n", "v\(version): \(items.stdout) \(items.stderr)")
            #expect(try CLI.strataLog("verify", past).status == 0, "v\(version)")
            if version == ItemModelVersions.last {
                let replayedExport = try CLI.strata("export", past)
                let left = try JSONSerialization.jsonObject(with: Data(export.stdout.utf8))
                let right = try JSONSerialization.jsonObject(with: Data(replayedExport.stdout.utf8))
                #expect(withoutStoreIdentifiers(left) == withoutStoreIdentifiers(right))
            }
        }
        #expect(try CLI.strata("fetch", document, "Item", "--count").stdout == "\(expectedItems)\n")

        // strata-log recover on a sound copy finds nothing to do; on a copy whose identity
        // checksum is damaged it rebuilds the file, keeping the model versions.
        let sound = sandbox.path("sound.strata")
        try FileManager.default.copyItem(atPath: document, toPath: sound)
        let nothing = try CLI.strataLog("recover", sound)
        #expect(nothing.status == 0, "\(nothing.stderr)")
        let damaged = sandbox.path("damaged.strata")
        try FileManager.default.copyItem(atPath: document, toPath: damaged)
        try Self.flipIdentityChecksum(damaged)
        #expect(try CLI.strataLog("verify", damaged).status != 0)
        let recovered = try CLI.strataLog("recover", damaged)
        #expect(recovered.status == 0, "\(recovered.stdout) \(recovered.stderr)")
        let recoveredVerify = try CLI.strataLog("verify", damaged)
        #expect(recoveredVerify.status == 0, "\(recoveredVerify.stdout) \(recoveredVerify.stderr)")
        #expect(try CLI.strata("history", damaged).status == 0)
        #expect(try CLI.strataLog("dump", damaged).status == 0)
        let recoveredExport = try CLI.strata("export", damaged)
        #expect(withoutStoreIdentifiers(try JSONSerialization.jsonObject(with: Data(recoveredExport.stdout.utf8)))
                == withoutStoreIdentifiers(try JSONSerialization.jsonObject(with: Data(export.stdout.utf8))))
        let versions = try DocumentStore.modelVersions(at: URL(fileURLWithPath: damaged))
        #expect(versions.map(\.version) == Array(1...ItemModelVersions.last))

        // Time travel through the library: each version's point opens in that version's model.
        var options = PersistentContainer.Options()
        options.viewContextConcurrencyType = .confinement
        let container = try PersistentContainer(name: "Items", model: current, url: URL(fileURLWithPath: document), options: options)
        for version in [1, 4, 7, ItemModelVersions.last] {
            let past = try container.timeTravel(toSegment: segmentsOfVersion[version]!,
                                                copyingTo: sandbox.url.appendingPathComponent("travel-\(version).strata"))
            #expect(past.model.versionIdentifier == "items-\(version)")
            let count = try past.viewContext.count(for: FetchRequest(entityName: "Item"))
            #expect(count == version)
            try past.close()
        }
        // Persistent history through the library: old segments' changes in the current model.
        let store = try #require(container.store as? DocumentStore)
        let transactions = try store.history()
        #expect(transactions.count == Int(lastSegment))
        let first = try #require(transactions.first { $0.token.sequence == 2 }?.changes.first)
        #expect(first.objectID.entity === current.entitiesByName["Item"])
        let keys: [String] = first.changedKeys
        #expect(keys.contains("title") && keys.contains("oldNote"), "\(keys)")
        let boxes = try store.history(PersistentHistoryRequest(entityNames: ["Crate"]))
        let boxTokens: [UInt64] = boxes.map { $0.token.sequence }
        #expect(boxTokens.first == 1, "\(boxTokens)")
        #expect(boxes.allSatisfy { $0.changes.allSatisfy { $0.objectID.entity === current.entitiesByName["Crate"] } })
        try container.close()

        // strata undo reverts the groups saved in the current version, and stops at the migration.
        #expect(try CLI.strata("undo", document).status == 0)
        let got = try CLI.strata("get", document, alpha, "--json")
        let alphaValues = try #require(try JSONSerialization.jsonObject(with: Data(got.stdout.utf8)) as? [String: Any], "\(got.stdout) \(got.stderr)")
        #expect(alphaValues["qty"] as? Int == 90, "\(alphaValues)")
        #expect(try CLI.strata("undo", document).status == 0)
        #expect(try CLI.strata("fetch", document, "Item", "--count").stdout == "\(expectedItems - 1)\n")
        // The last version's first save was a shelf.
        #expect(try CLI.strata("undo", document).status == 0)
        #expect(try CLI.strata("fetch", document, "Shelf", "--count").stdout == "2\n")
        let crossing = try CLI.strata("undo", document)
        #expect(crossing.status != 0 && crossing.stderr.contains("cannot cross a migration"), "\(crossing.stderr)")
        #expect(try CLI.strataLog("verify", document).status == 0)
        #expect(try CLI.strata("history", document).status == 0)
    }

    /// Changes one character of the stored identity checksum (docs/RELIABILITY.md,
    /// "Damaged documents": recover rewrites it from the intact fields).
    static func flipIdentityChecksum(_ path: String) throws {
        let connection = try SQLiteConnection(path: path, flags: [.readWrite], busyTimeout: 5)
        defer { connection.close() }
        let rows = try connection.prepare("SELECT value FROM strata_meta WHERE key = 'identityChecksum'").rows()
        guard case .text(let checksum)? = rows.first?.first, let last = checksum.last else {
            Issue.record("no identity checksum")
            return
        }
        let flipped = String(checksum.dropLast()) + (last == "0" ? "1" : "0")
        try connection.prepare("UPDATE strata_meta SET value = ? WHERE key = 'identityChecksum'").run([.text(flipped)])
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}
