import Foundation
import Testing

@Suite("strata import streams its file")
struct StreamingImportTests {
    @Test("CSV rows refer to rows of the same file (before and after them) and to objects in the document")
    func csvRelationshipsWithinTheFile() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let research = try sandbox.insert(document, "Department", "name=Research")
        // Grace's manager (ada) comes after her; Alan's before him; the department exists.
        let csv = """
            _uri,firstName,lastName,manager,department
            grace,Grace,Hopper,ada,\(research)
            ada,Ada,Lovelace,,\(research)
            alan,Alan,Turing,@grace,

            """
        try Data(csv.utf8).write(to: URL(fileURLWithPath: sandbox.path("people.csv")))
        let result = try CLI.strata("import", document, sandbox.path("people.csv"), "--entity", "Employee")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Imported 3 objects"))
        let people = try #require(try CLI.strata("fetch", document, "Employee", "--sort", "firstName", "--format", "json").json() as? [[String: Any]])
        let uri = Dictionary(uniqueKeysWithValues: people.map { ($0["firstName"] as? String ?? "", $0["_uri"] as? String ?? "") })
        #expect(people.map { $0["firstName"] as? String } == ["Ada", "Alan", "Grace"])
        #expect(people[0]["manager"] is NSNull)
        #expect(people[1]["manager"] as? String == uri["Grace"])
        #expect(people[2]["manager"] as? String == uri["Ada"])
        #expect(people[0]["department"] as? String == research)
        #expect(people[1]["department"] is NSNull)
        #expect(try CLI.strataLog("verify", document).status == 0)
        #expect(try CLI.strata("undo", document).stdout == "Undid Import Employee\n")
        #expect(try CLI.strata("fetch", document, "Employee", "--count").stdout == "0\n")
    }

    @Test("JSON rows of several entities link to-one and to-many relationships to rows of the same file")
    func jsonRelationshipsWithinTheFile() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let json = """
            [
              {"_entity": "Project", "_uri": "p1", "name": "Engine", "members": ["e1", "e2"]},
              {"_entity": "Department", "_uri": "d1", "name": "Research"},
              {"_entity": "Employee", "_uri": "e1", "firstName": "Ada", "lastName": "Lovelace", "department": "d1"},
              {"_entity": "Employee", "_uri": "e2", "firstName": "Alan", "lastName": "Turing", "department": "d1", "manager": "e1"}
            ]
            """
        try Data(json.utf8).write(to: URL(fileURLWithPath: sandbox.path("all.json")))
        let result = try CLI.strata("import", document, sandbox.path("all.json"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Imported 4 objects"))
        let departments = try #require(try CLI.strata("fetch", document, "Department", "--format", "json").json() as? [[String: Any]])
        let employees = try #require(try CLI.strata("fetch", document, "Employee", "--sort", "firstName", "--format", "json").json() as? [[String: Any]])
        let projects = try #require(try CLI.strata("fetch", document, "Project", "--format", "json").json() as? [[String: Any]])
        #expect(departments.count == 1 && employees.count == 2 && projects.count == 1)
        let department = departments.first?["_uri"] as? String
        #expect(employees.allSatisfy { $0["department"] as? String == department })
        #expect(employees[1]["manager"] as? String == employees[0]["_uri"] as? String)
        #expect(Set(projects.first?["members"] as? [String] ?? []) == Set(employees.compactMap { $0["_uri"] as? String }))
        #expect(Set(departments.first?["employees"] as? [String] ?? []) == Set(employees.compactMap { $0["_uri"] as? String }))
        #expect(try CLI.strataLog("verify", document).status == 0)
    }

    @Test("an error in a streamed file names its row or line, and nothing is saved")
    func streamedErrorsNameTheirPlace() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let before = try sandbox.bytes("staff.strata")
        try Data("[\n  {\"name\": \"A\"},\n  {\"name\": \"B\"} {\"name\": \"C\"}\n]".utf8).write(to: URL(fileURLWithPath: sandbox.path("missing-comma.json")))
        expectFailure(try CLI.strata("import", document, sandbox.path("missing-comma.json"), "--entity", "Department"), mentions: ["line 3", "column 17"])
        try Data("[\n  {\"name\": \"A\"},\n  {\"name\": tru}\n]".utf8).write(to: URL(fileURLWithPath: sandbox.path("bad-word.json")))
        expectFailure(try CLI.strata("import", document, sandbox.path("bad-word.json"), "--entity", "Department"), mentions: ["line 3", "JSON"])
        try Data("name,budget\nA,1\nB\n".utf8).write(to: URL(fileURLWithPath: sandbox.path("short.csv")))
        expectFailure(try CLI.strata("import", document, sandbox.path("short.csv"), "--entity", "Department"), mentions: ["CSV row 2", "1 fields"])
        try Data("name,budget\nA,1\n\"B,2\n".utf8).write(to: URL(fileURLWithPath: sandbox.path("open.csv")))
        expectFailure(try CLI.strata("import", document, sandbox.path("open.csv"), "--entity", "Department"), mentions: ["quoted field", "line 3"])
        try Data("{\"name\": \"A\"}".utf8).write(to: URL(fileURLWithPath: sandbox.path("object.json")))
        expectFailure(try CLI.strata("import", document, sandbox.path("object.json"), "--entity", "Department"), mentions: ["array of objects"])
        #expect(try sandbox.bytes("staff.strata") == before)
    }
}
