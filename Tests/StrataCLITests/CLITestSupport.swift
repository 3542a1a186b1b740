import Foundation
import Strata
import Testing
// Every file of the test target sees the temporary directory and the built-program locator.
@_exported import StrataTestSupport

/// A test's documents, made with the `strata` tool in its temporary directory.
extension TemporaryDirectory {
    /// Creates an employees-example document and returns its path.
    func employees(_ name: String = "staff.strata") throws -> String {
        let document = path(name)
        let result = try CLI.strata("new", document, "--example", "employees")
        #expect(result.status == 0, "strata new failed: \(result.stderr)")
        return document
    }

    /// An employees document whose last save (a department "Research") is only in its
    /// `-wal`, which nobody holds: the files a killed writer leaves. Returns its path.
    func documentWithLeftoverWAL(_ name: String = "copy.strata") throws -> String {
        let source = URL(fileURLWithPath: try employees("source-\(name)"))
        var configuration = DocumentStore.Configuration()
        configuration.compactsOnClose = false
        let store = try DocumentStore(openingAt: source, configuration: configuration)
        let coordinator = PersistentStoreCoordinator(model: store.model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        try context.insertObject(forEntityName: "Department").setValue("Research", forKey: "name")
        try context.save()
        // While the store is open its save is only in the WAL: copying both makes the files
        // a writer stopped with, its WAL not folded in and nobody holding it.
        let copy = path(name)
        try FileManager.default.copyItem(atPath: source.path, toPath: copy)
        try FileManager.default.copyItem(atPath: source.path + "-wal", toPath: copy + "-wal")
        try store.close()
        return copy
    }

    /// Inserts an object and returns its URI.
    func insert(_ document: String, _ entity: String, _ assignments: String...) throws -> String {
        let result = try CLI.run("strata", ["insert", document, entity] + assignments)
        #expect(result.status == 0, "strata insert failed: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// What no message a tool prints may hold: the words of SQLite, of the PostgreSQL driver
/// or of the Swift runtime, or SQL text (docs/RELIABILITY.md, "Bad input").
let engineFragments = [
    "SQLite error", "SQL:", "SELECT", "CREATE TABLE", "sqlite3_", "no such column", "no such table",
    "unrecognized token", "\": syntax error", "too many columns", "too many terms", "string or blob too big",
    "SingleConnectionFailure", "authMechanismRequiresPassword", "NIOConnectionError",
    "Fatal error", "Swift runtime failure", "Stack dump", "Illegal instruction", "Segmentation fault",
]

/// Expects a failure: a non-zero status, exactly one `PREFIX: error: ` line first on
/// standard error containing every fragment, nothing that looks like a stack trace.
func expectFailure(_ result: CommandResult, tool: String = "strata", mentions fragments: [String],
                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status != 0, "expected a failure, got status 0: \(result.stdout)", sourceLocation: sourceLocation)
    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
    #expect(lines.first?.hasPrefix("\(tool): error: ") == true, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    #expect(lines.filter { $0.hasPrefix("\(tool): error: ") }.count == 1, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    for fragment in fragments {
        #expect(lines.first?.contains(fragment) == true, "'\(fragment)' missing from: \(result.stderr)", sourceLocation: sourceLocation)
    }
    #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"), sourceLocation: sourceLocation)
}

/// Objects of a `fetch --format json` / `export` output without their URIs (keys re-based
/// on entity and key so documents with other store identifiers compare).
func withoutStoreIdentifiers(_ json: Any) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    let text = String(decoding: data, as: UTF8.self)
    return text.replacingOccurrences(of: "x-strata://[0-9A-F-]+/", with: "REF/", options: .regularExpression)
}

extension TemporaryDirectory {
    /// Writes `sites.json`: a Site with a name and a nested composite address (a city and a
    /// geo position of two doubles), and returns its path.
    func writeSitesModel() throws -> String {
        let modelPath = path("sites.json")
        try Data("""
            {"format": "strata-model", "formatVersion": 1, "entities": [{"name": "Site",
              "attributes": [{"name": "name", "type": "string"}],
              "composites": [{"name": "address", "typeName": "Address", "elements": [
                {"name": "city", "type": "string"},
                {"name": "geo", "typeName": "Geo", "elements": [{"name": "lat", "type": "double"}, {"name": "lon", "type": "double"}]}]}]}]}
            """.utf8).write(to: URL(fileURLWithPath: modelPath))
        return modelPath
    }
}
