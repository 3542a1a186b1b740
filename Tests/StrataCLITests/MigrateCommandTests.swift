import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Model files for the employees example in a later version, written beside a document.
enum EmployeesVersions {
    /// Version 2 of the employees example as a JSON model file: Employee.firstName renamed
    /// givenName (through its renaming identifier), employeeID widened to integer 64, a new
    /// optional nickname; `breaking` also turns lastName into an integer (not inferable).
    /// Version 3 adds an optional `initials` to Employee as well.
    static func write(_ path: String, breaking: Bool = false, version: Int = 2) throws {
        let json = ManagedObjectModel.employeesExample().jsonRepresentation()
        var root = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        var entities = try #require(root["entities"] as? [[String: Any]])
        for (index, entity) in entities.enumerated() where ["Person", "Employee"].contains(entity["name"] as? String) {
            var attributes = try #require(entity["attributes"] as? [[String: Any]])
            for (position, attribute) in attributes.enumerated() {
                switch attribute["name"] as? String {
                case "firstName":
                    attributes[position]["name"] = "givenName"
                    attributes[position]["renamingIdentifier"] = "firstName"
                case "employeeID": attributes[position]["type"] = "integer64"
                case "lastName" where breaking:
                    attributes[position]["type"] = "integer64"
                    attributes[position].removeValue(forKey: "minLength")
                default: break
                }
            }
            if entity["name"] as? String == "Employee" { attributes.append(["name": "nickname", "type": "string"]) }
            if entity["name"] as? String == "Employee", version >= 3 { attributes.append(["name": "initials", "type": "string"]) }
            entities[index]["attributes"] = attributes
        }
        root["entities"] = entities
        root["versionIdentifier"] = "employees-\(version)"
        try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
    }
}

@Suite struct MigrateCommandTests {
    @Test func aDryRunReportsAndChangesNothingThenTheMigrationKeepsEveryObjectAndVerifies() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let department = try sandbox.insert(document, "Department", "name=Research")
        for name in ["Ada", "Grace", "Alan"] {
            _ = try sandbox.insert(document, "Employee", "firstName=\(name)", "lastName=L\(name)", "employeeID=7", "department=@\(department)")
        }
        let model = sandbox.path("v2.json")
        try EmployeesVersions.write(model)
        let before = try Data(contentsOf: URL(fileURLWithPath: document))

        let dryRun = try CLI.strata("migrate", document, "--model", model, "--dry-run")
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("Dry run"), "\(dryRun.stdout)")
        #expect(dryRun.stdout.contains("Employee.firstName: renamed givenName"), "\(dryRun.stdout)")
        #expect(dryRun.stdout.contains("4 records would be migrated"), "\(dryRun.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: document)) == before)

        let migrated = try CLI.strata("migrate", document, "--model", model, "--json")
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(migrated.stdout.utf8)) as? [String: Any])
        #expect(report["migrated"] as? Bool == true)
        let entities = try #require(report["entities"] as? [[String: Any]])
        let employee = try #require(entities.first { $0["name"] as? String == "Employee" })
        #expect(employee["records"] as? Int == 3)
        #expect(employee["addedColumns"] as? [String] == ["givenName", "nickname"])
        #expect(employee["removedColumns"] as? [String] == ["firstName"])

        let fetched = try CLI.strata("fetch", document, "Employee", "--where", "givenName == 'Grace'")
        #expect(fetched.status == 0 && fetched.stdout.contains("Grace"), "\(fetched.stdout) \(fetched.stderr)")
        let info = try CLI.strata("info", document)
        #expect(info.stdout.contains("Model v1") && info.stdout.contains("Model v2  employees-2"), "\(info.stdout)")
        let infoJSON = try CLI.strata("info", document, "--json")
        let infoObject = try #require(try JSONSerialization.jsonObject(with: Data(infoJSON.stdout.utf8)) as? [String: Any])
        let history = try #require(infoObject["modelVersions"] as? [[String: Any]], "\(infoJSON.stdout)")
        #expect(history.map { $0["version"] as? Int } == [1, 2])
        #expect(history[1]["identifier"] as? String == "employees-2" && history[1]["firstSegment"] as? Int == 5)
        #expect(history[0]["migratedAt"] is NSNull && history[1]["migratedAt"] is String && history[1]["stage"] as? String == "inferred")
        #expect(history[0]["hash"] as? String == ManagedObjectModel.employeesExample().versionHash)
        #expect(history[1]["hash"] as? String == infoObject["modelHash"] as? String)
        let verified = try CLI.strataLog("verify", document)
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        let dumped = try CLI.strataLog("dump", document)
        #expect(dumped.status == 0 && dumped.stdout.contains("Ada"), "\(dumped.stderr)")

        // A change after the migration; then replay before it gives the old model's document.
        _ = try sandbox.insert(document, "Employee", "givenName=Edsger", "lastName=Dijkstra")
        let old = sandbox.path("before.strata")
        let replayed = try CLI.strataLog("replay", document, "--to", "4", "--out", old)
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let oldInfo = try CLI.strata("info", old)
        #expect(oldInfo.stdout.contains("Model v1") && !oldInfo.stdout.contains("Model v2"), "\(oldInfo.stdout)")
        #expect(try CLI.strata("fetch", old, "Employee", "--where", "firstName == 'Ada'").stdout.contains("Ada"))
        let whole = sandbox.path("whole.strata")
        let all = try CLI.strataLog("replay", document, "--to", "5", "--out", whole)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(try CLI.strata("fetch", whole, "Employee", "--where", "givenName == 'Edsger'").stdout.contains("Edsger"))
        #expect(try CLI.strataLog("verify", whole).status == 0)

        // Undo reaches the change after the migration, and no further.
        #expect(try CLI.strata("undo", document).status == 0)
        let crossing = try CLI.strata("undo", document)
        #expect(crossing.status != 0 && crossing.stderr.contains("cannot cross a migration"), "\(crossing.stderr)")
    }

    @Test func aChangeThatCannotBeInferredIsRefusedNamingItAndTheDocumentIsUnchanged() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Research")
        let model = sandbox.path("v2-breaking.json")
        try EmployeesVersions.write(model, breaking: true)
        let before = try Data(contentsOf: URL(fileURLWithPath: document))
        let refused = try CLI.strata("migrate", document, "--model", model)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("Employee.lastName"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: document)) == before)
    }

    @Test func severalModelsMigrateInStagesAndARerunSkipsTheStagesDone() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "employeeID=7")
        let v2 = sandbox.path("v2.json"), v3 = sandbox.path("v3.json")
        try EmployeesVersions.write(v2)
        try EmployeesVersions.write(v3, version: 3)
        expectFailure(try CLI.strata("migrate", document, "--model", v2, "--model", v3, "--dry-run"), mentions: ["--dry-run", "one --model"])
        expectFailure(try CLI.strata("migrate", document), mentions: ["--model"])
        #expect(try CLI.strata("migrate", document, "--model", v2).status == 0)
        let staged = try CLI.strata("migrate", document, "--model", v2, "--model", v3)
        #expect(staged.status == 0 && staged.stdout.contains("1 of 2 stages run"), "\(staged.stdout) \(staged.stderr)")
        let again = try CLI.strata("migrate", document, "--model", v2, "--model", v3)
        #expect(again.status == 0 && again.stdout.contains("Nothing to migrate"), "\(again.stdout) \(again.stderr)")
        let info = try CLI.run("strata", ["info", document, "--json"])
        let versions = (try info.json() as? [String: Any])?["modelVersions"] as? [[String: Any]] ?? []
        #expect(versions.compactMap { $0["identifier"] as? String }.suffix(2) == ["employees-2", "employees-3"], "\(info.stdout)")
        #expect(try CLI.strataLog("verify", document).status == 0)
    }

    @Test func aStoreOpenWhileAnotherProcessMigratesTheDocumentIsToldToReopenIt() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Research")
        let model = sandbox.path("v2.json")
        try EmployeesVersions.write(model)
        let url = URL(fileURLWithPath: document)
        var configuration = DocumentStore.Configuration()
        configuration.watchesForRemoteChanges = false
        let stack = try DocumentStack.open(url, configuration: configuration)
        #expect(try stack.context.count(for: FetchRequest(entityName: "Department")) == 1)

        // Another process migrates the document while this one has it open.
        let migrated = try CLI.strata("migrate", document, "--model", model)
        #expect(migrated.status == 0, "\(migrated.stderr)")

        // A read that meets the replaced tables is told the same, not SQLite's own error.
        let byOldName = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Ada'"))
        let fetching = try #require(throws: StrataError.self) { try stack.context.fetch(byOldName) }
        #expect(fetching.code == .modelIncompatible && fetching.message.contains("reopen it"), "\(fetching)")

        let department = try stack.context.insertObject(forEntityName: "Department")
        try department.setValue("Late", forKey: "name")
        let saving = try #require(throws: StrataError.self) { try stack.context.save() }
        #expect(saving.code == .modelIncompatible, "\(saving)")
        #expect(saving.message.contains("migrated to model version 2 by another process; reopen it"), "\(saving.message)")
        let reading = try #require(throws: StrataError.self) { try stack.store.catchUp() }
        #expect(reading.message.contains("reopen it"), "\(reading.message)")
        try? stack.store.close()

        // Nothing of the refused save reached the document; reopened with version 2 it works.
        let v2 = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model))
        let reopened = try DocumentStack.open(url, model: v2)
        #expect(try reopened.context.count(for: FetchRequest(entityName: "Department")) == 1)
        try reopened.store.close()
        #expect(try CLI.strataLog("verify", document).status == 0)
    }
}
