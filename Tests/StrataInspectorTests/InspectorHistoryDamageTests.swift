import Foundation
import Strata
import StrataInspectorCore
import StrataTestSupport
import Testing

/// A document whose damage is only in its history (a compacted segment's bytes) opens
/// read-only with the damage named; damage the current state needs is still refused.
@Suite struct InspectorHistoryDamageTests {
    let directory: TemporaryDirectory
    let url: URL

    /// Five saves of one department each; compacted after the fourth (the whole log kept).
    init() throws {
        directory = try TemporaryDirectory()
        url = directory.file("damaged-history.strata")
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        for index in 1...5 {
            let department = try stack.context.insertObject(forEntityName: "Department")
            try department.setValue(.string("Department \(index)"), forKey: "name")
            try stack.context.save()
            if index == 4 { try stack.store.compact() }
        }
        try stack.store.close()
    }

    /// Flips one byte inside a stored segment's LZ4 frame, as a damaged disk would.
    private func damage(segment sequence: Int64) throws {
        let connection = try SQLiteConnection(path: url.path, flags: [.readWrite])
        defer { connection.close() }
        try connection.prepare("UPDATE strata_segment SET body = CAST(substr(body, 1, 20) || x'FF' || substr(body, 22) AS BLOB) WHERE seq = ?")
            .run([.integer(sequence)])
        #expect(connection.changes == 1)
    }

    @Test func damageOnlyInTheHistoryIsShownNotRefused() throws {
        try damage(segment: 2)
        let document = try InspectorDocument(path: url.path)
        defer { document.close() }
        let api = InspectorAPI(document: document)

        let summary = try api.get("/api/document")
        #expect(summary.status == 200)
        #expect(summary.json["readOnly"] as? Bool == true)
        let damage = try #require(summary.json["historyDamage"] as? [String: Any])
        #expect(damage["segments"] as? [Int] == [2])
        #expect((damage["message"] as? String)?.contains("save 2") == true)
        #expect((damage["first"] as? String)?.isEmpty == false)

        // The present is intact.
        #expect(try api.get("/api/objects", ["entity": "Department"]).json["total"] as? Int == 5)
        // The timeline lists the damaged save as damaged and the others as usual.
        let timeline = try api.get("/api/timeline")
        #expect(timeline.status == 200)
        let saves = try #require(timeline.json["saves"] as? [[String: Any]])
        #expect(saves.map { $0["sequence"] as? Int } == [5, 4, 3, 2, 1])
        #expect(saves.filter { $0["damaged"] != nil }.map { $0["sequence"] as? Int } == [2])
        // The damaged save, and travel across it, answer 422 with the damage; others 200.
        let broken = try api.get("/api/save", ["sequence": "2"])
        #expect(broken.status == 422)
        #expect(broken.error?.contains("damaged") == true)
        #expect(try api.get("/api/save", ["sequence": "3"]).status == 200)
        #expect(try api.get("/api/objects", ["entity": "Department", "at": "3"]).status == 422)
        #expect(try api.get("/api/objects", ["entity": "Department", "at": "1"]).status == 200)
    }

    @Test func aSoundDocumentHasNoDamageField() throws {
        let document = try InspectorDocument(path: url.path)
        defer { document.close() }
        let summary = try InspectorAPI(document: document).get("/api/document")
        #expect(summary.json["historyDamage"] is NSNull)
    }

    @Test func damageTheCurrentStateNeedsIsStillRefused() throws {
        try damage(segment: 5)
        #expect(throws: StrataError.self) { try InspectorDocument(path: url.path) }
    }
}
