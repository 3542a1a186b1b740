import Foundation
import Strata
import Testing

/// Library behaviour the tools work around (see the CLI's ToolDocumentGuard).
@Suite("library issues found by the CLI")
struct LibraryIssueTests {
    /// `DocumentStore(openingAt:)` switches the journal to WAL before it reads the log;
    /// when reading fails (a damaged segment), it closes the connection without switching
    /// back, so a failed open changes the file (header bytes 18–19 and the change counter).
    @Test("a document that fails to open is left as it was")
    func failedOpenLeavesFileUnchanged() throws {
        let sandbox = try Sandbox()
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
        withKnownIssue("DocumentStore(openingAt:) leaves the file in WAL mode when opening fails") {
            #expect(after == before)
        }
    }

    /// Opening and closing a document without writing bumps SQLite's file change counter
    /// (the journal goes WAL and back), so a read-only use changes the file's bytes.
    @Test("opening and closing a document without changes keeps its bytes")
    func openCloseKeepsBytes() throws {
        let sandbox = try Sandbox()
        let url = URL(fileURLWithPath: sandbox.path("doc.strata"))
        try DocumentStore(creatingAt: url, model: ManagedObjectModel.employeesExample()).close()
        let before = try Data(contentsOf: url)
        try DocumentStore(openingAt: url).close()
        let after = try Data(contentsOf: url)
        withKnownIssue("opening and closing bumps the change counter; the tools restore it (ToolDocumentGuard)") {
            #expect(after == before)
        }
    }
}
