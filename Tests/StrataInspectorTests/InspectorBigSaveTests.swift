import Foundation
import Strata
import StrataInspectorCore
import StrataTestSupport
import Testing

/// A save too big for the timeline to decode (a batch import) is listed from its header.
@Suite struct InspectorBigSaveTests {
    @Test func aSaveOfThousandsOfOperationsIsListedFromItsHeaderWithItsAuthorAndCount() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("big.strata")
        let stack = try DocumentStack.create(url)
        stack.context.transactionAuthor = "importer"
        stack.context.name = "import"
        for index in 0..<2_500 {
            let department = try stack.context.insertObject(forEntityName: "Department")
            try department.setValue(.string("Department \(index)"), forKey: "name")
        }
        stack.context.processPendingChanges()
        stack.context.undoManager?.setActionName("Import departments")
        try stack.context.save()
        try stack.store.close()

        let document = try InspectorDocument(path: url.path)
        defer { document.close() }
        let api = InspectorAPI(document: document)
        let timeline = try api.get("/api/timeline")
        let save = try #require((timeline.json["saves"] as? [[String: Any]])?.first)
        #expect(save["author"] as? String == "importer")
        #expect(save["context"] as? String == "import")
        #expect(save["action"] as? String == "Import departments")
        let summary = try #require(save["summary"] as? [String: Any])
        #expect(summary["summarized"] as? Bool == false)
        #expect((summary["operations"] as? Int ?? 0) >= 2_500)
        #expect((try api.get("/api/timeline", ["author": "someone else"]).json["saves"] as? [Any])?.isEmpty == true)
        #expect((try api.get("/api/timeline", ["kind": "undo"]).json["saves"] as? [Any])?.isEmpty == true)

        // The entity filter needs the operations: the save is decoded and summarized.
        let byEntity = try #require((try api.get("/api/timeline", ["entity": "Department"]).json["saves"] as? [[String: Any]])?.first)
        #expect((byEntity["summary"] as? [String: Any])?["inserted"] as? Int == 2_500)
        // The save page lists the first 1,000 changes and counts them all.
        let page = try api.get("/api/save", ["sequence": "1"])
        #expect(page.json["changeCount"] as? Int == 2_500)
        #expect((page.json["changes"] as? [Any])?.count == 1_000)
    }
}
