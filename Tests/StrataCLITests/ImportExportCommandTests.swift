import Foundation
import Testing

@Suite("strata import and export")
struct ImportExportCommandTests {
    @Test("export then import into a new document reproduces every object and relationship")
    func exportImportRoundTrip() throws {
        let sandbox = try TemporaryDirectory()
        let source = try sandbox.employees("source.strata")
        let research = try sandbox.insert(source, "Department", "name=Research", "budget=1250000.75")
        let sales = try sandbox.insert(source, "Department", "name=Sales")
        let ada = try sandbox.insert(source, "Employee", "firstName=Ada", "lastName=Lovelace", "salary=150000",
                                     "startDate=2020-01-02T03:04:05.5Z", "badge=E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                                     "homepage=https://example.com", "rating=4.5", "photo=AAEC/w==", "department=@\(research)")
        let alan = try sandbox.insert(source, "Employee", "firstName=Alan", "lastName=Turing", "manager=@\(ada)", "department=@\(sales)")
        _ = try sandbox.insert(source, "Employee", "firstName=Grace", "lastName=Hopper", "manager=@\(ada)")
        _ = try sandbox.insert(source, "Project", "name=Engine", "members=@\(ada),@\(alan)")
        _ = try sandbox.insert(source, "Project", "name=Bombe", "members=@\(alan)")

        let exported = try CLI.strata("export", source, "--output", sandbox.path("all.json"))
        #expect(exported.status == 0, "\(exported.stderr)")
        let copy = try sandbox.employees("copy.strata")
        let imported = try CLI.strata("import", copy, sandbox.path("all.json"))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("Imported 7 objects"))

        for entity in ["Employee", "Department", "Project"] {
            let before = try CLI.strata("fetch", source, entity, "--format", "json").json()
            let after = try CLI.strata("fetch", copy, entity, "--format", "json").json()
            #expect(withoutStoreIdentifiers(before) == withoutStoreIdentifiers(after), "\(entity) differs after the round trip")
        }
        let again = try CLI.strata("export", copy)
        let original = try String(contentsOfFile: sandbox.path("all.json"), encoding: .utf8)
        #expect(withoutStoreIdentifiers(try again.json()) == withoutStoreIdentifiers(try JSONSerialization.jsonObject(with: Data(original.utf8))))
        #expect(try CLI.strataLog("verify", copy).status == 0)

        let history = try #require(try CLI.strata("history", copy, "--json").json() as? [[String: Any]])
        #expect(history.count == 1)
        #expect(history.first?["action"] as? String == "Import Objects")
        #expect(try CLI.strata("undo", copy).status == 0)
        #expect(try CLI.strata("fetch", copy, "Person", "--count").stdout == "0\n")
    }

    @Test("import reads CSV with a header row as one undo group named after the entity")
    func importCSV() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let research = try sandbox.insert(document, "Department", "name=Research")
        let csv = [
            "firstName,lastName,salary,startDate,department,notes",
            "Ada,Lovelace,150000,2024-03-01,\(research),",
            #""Grace ""Amazing""",Hopper,,2024-04-01,Department/p1,"#,
            #""Alan, M.",Turing,98000,,,"#,
            "",
        ].joined(separator: "\r\n")
        try Data(csv.utf8).write(to: URL(fileURLWithPath: sandbox.path("people.csv")))
        let result = try CLI.strata("import", document, sandbox.path("people.csv"), "--entity", "Employee")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("Importing"), "no progress bar when standard error is not a terminal")
        let people = try #require(try CLI.strata("fetch", document, "Employee", "--sort", "lastName", "--format", "json").json() as? [[String: Any]])
        #expect(people.map { $0["firstName"] as? String } == ["Grace \"Amazing\"", "Ada", "Alan, M."])
        #expect(people[0]["salary"] is NSNull)
        #expect(people[1]["salary"] as? Int == 150_000)
        #expect(people[1]["department"] as? String == research)
        #expect(people[2]["department"] is NSNull)
        let history = try #require(try CLI.strata("history", document, "--json").json() as? [[String: Any]])
        #expect(history.last?["action"] as? String == "Import Employee")
        #expect(try CLI.strata("undo", document).stdout == "Undid Import Employee\n")
        #expect(try CLI.strata("fetch", document, "Employee", "--count").stdout == "0\n")
    }

    @Test("an import with a bad value names the row and saves nothing")
    func importFailureSavesNothing() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let json = #"[{"name": "Research", "budget": 12.5}, {"name": "Sales", "budget": "lots"}]"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: sandbox.path("bad.json")))
        let before = try sandbox.bytes("staff.strata")
        expectFailure(try CLI.strata("import", document, sandbox.path("bad.json"), "--entity", "Department"), mentions: ["row 2", "lots", "budget"])
        let unknown = #"[{"name": "Research", "colour": "red"}]"#
        try Data(unknown.utf8).write(to: URL(fileURLWithPath: sandbox.path("unknown.json")))
        expectFailure(try CLI.strata("import", document, sandbox.path("unknown.json"), "--entity", "Department"), mentions: ["row 1", "colour"])
        let dangling = #"[{"name": "Research", "employees": ["x-strata://gone/Employee/p9"]}]"#
        try Data(dangling.utf8).write(to: URL(fileURLWithPath: sandbox.path("dangling.json")))
        expectFailure(try CLI.strata("import", document, sandbox.path("dangling.json"), "--entity", "Department"), mentions: ["x-strata://gone/Employee/p9"])
        try Data("[{\"name\": ".utf8).write(to: URL(fileURLWithPath: sandbox.path("broken.json")))
        expectFailure(try CLI.strata("import", document, sandbox.path("broken.json"), "--entity", "Department"), mentions: ["JSON"])
        #expect(try sandbox.bytes("staff.strata") == before)
    }
}
