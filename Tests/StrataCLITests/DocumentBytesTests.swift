import Foundation
import Strata
import Testing

/// Documents are left byte for byte as they were by failed opens and by read-only use
/// (issues the CLI found; documents record WAL in their header, so opening never switches
/// journal modes).
@Suite("documents keep their bytes when only read")
struct LibraryIssueTests {
    @Test("a document that fails to open is left as it was")
    func failedOpenLeavesFileUnchanged() throws {
        let sandbox = try TemporaryDirectory()
        let url = URL(fileURLWithPath: sandbox.path("doc.strata"))
        let model = ManagedObjectModel.employeesExample()
        var configuration = DocumentStore.Configuration()
        configuration.compactsOnClose = false
        let store = try DocumentStore(creatingAt: url, model: model, configuration: configuration)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        let department = try context.insertObject(forEntityName: "Department")
        try department.setValue("Research", forKey: "name")
        try context.save()
        try store.close()
        let damage = try CLI.run("/usr/bin/sqlite3", [url.path,
            "UPDATE strata_segment SET body = CAST(substr(body, 1, 30) || x'FF' || substr(body, 32) AS BLOB) WHERE seq = 1;"])
        try #require(damage.status == 0)
        let before = try Data(contentsOf: url)
        #expect(throws: StrataError.self) { try DocumentStore(openingAt: url, model: model) }
        let after = try Data(contentsOf: url)
        #expect(after == before)
    }

    @Test("opening and closing a document without changes keeps its bytes")
    func openCloseKeepsBytes() throws {
        let sandbox = try TemporaryDirectory()
        let url = URL(fileURLWithPath: sandbox.path("doc.strata"))
        try DocumentStore(creatingAt: url, model: ManagedObjectModel.employeesExample()).close()
        let before = try Data(contentsOf: url)
        try DocumentStore(openingAt: url).close()
        let after = try Data(contentsOf: url)
        #expect(after == before)
    }
}
