import Foundation
import Strata
import Testing

@Suite("strata: documents and objects")
struct DocumentCommandTests {
    @Test("new creates a document from the example and refuses to overwrite it without --force")
    func newRefusesToOverwrite() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        #expect(FileManager.default.fileExists(atPath: document))
        _ = try sandbox.insert(document, "Department", "name=Research")
        let before = try sandbox.bytes("staff.strata")
        let again = try CLI.strata("new", document, "--example", "employees")
        expectFailure(again, mentions: ["already exists", "--force"])
        #expect(try sandbox.bytes("staff.strata") == before)
        let forced = try CLI.strata("new", document, "--example", "employees", "--force")
        #expect(forced.status == 0)
        let count = try CLI.strata("fetch", document, "Department", "--count")
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test("new reads a JSON model file")
    func newReadsAModelFile() throws {
        let sandbox = try TemporaryDirectory()
        let modelPath = sandbox.path("model.json")
        try ManagedObjectModel.employeesExample().jsonRepresentation().write(to: URL(fileURLWithPath: modelPath))
        let result = try CLI.strata("new", sandbox.path("doc.strata"), "--model", modelPath)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Employee"))
        let missing = try CLI.strata("new", sandbox.path("other.strata"), "--model", sandbox.path("nope.json"))
        expectFailure(missing, mentions: ["nope.json"])
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("other.strata")))
    }

    @Test("info prints tables for people and JSON for scripts")
    func infoTablesAndJSON() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let department = try sandbox.insert(document, "Department", "name=Research")
        _ = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "department=@\(department)")
        let table = try CLI.strata("info", document)
        #expect(table.status == 0)
        for fragment in ["entity", "attributes", "relationships", "objects", "Employee", "Segments", "compacted through", "first retained segment", "File"] {
            #expect(table.stdout.contains(fragment), "missing \(fragment) in \(table.stdout)")
        }
        let json = try #require(try CLI.strata("info", document, "--json").json() as? [String: Any])
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["Person", "Employee", "Department", "Project"])
        let employee = try #require(entities.first { $0["name"] as? String == "Employee" })
        #expect(employee["objects"] as? Int == 1)
        #expect(employee["attributes"] as? Int == 14)
        #expect(employee["relationships"] as? Int == 4)
        let segments = try #require(json["segments"] as? [String: Any])
        #expect(segments["count"] as? Int == 2)
        #expect(segments["compactedThrough"] as? Int == 0)
        let history = try #require(json["history"] as? [String: Any])
        #expect(history["firstRetainedSegment"] as? Int == 1)
        #expect(history["groups"] as? Int == 2)
        #expect((json["fileSize"] as? Int ?? 0) > 0)
    }

    @Test("insert prints the URI and get shows values parsed by each attribute's type")
    func insertParsesValuesByType() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let uri = try sandbox.insert(document, "Employee", "firstName=Ada Augusta", "lastName=Lovelace", "salary=150000",
                                     "employeeID=7", "bonus=1234.50", "rating=4.25", "active=false",
                                     "startDate=2024-03-01T09:30:00Z", "badge=E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                                     "homepage=https://example.com/ada", "email=null")
        #expect(uri.hasPrefix("x-strata://") && uri.hasSuffix("/Employee/p1"))
        let object = try #require(try CLI.strata("get", document, uri, "--json").json() as? [String: Any])
        #expect(object["_uri"] as? String == uri)
        #expect(object["_entity"] as? String == "Employee")
        #expect(object["firstName"] as? String == "Ada Augusta")
        #expect(object["salary"] as? Int == 150_000)
        #expect(object["employeeID"] as? Int == 7)
        #expect((object["bonus"] as? NSNumber)?.doubleValue == 1234.5)
        #expect(object["rating"] as? Double == 4.25)
        #expect(object["active"] as? Bool == false)
        #expect(object["startDate"] as? String == "2024-03-01T09:30:00Z")
        #expect(object["badge"] as? String == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(object["homepage"] as? String == "https://example.com/ada")
        #expect(object["email"] is NSNull)
        #expect(object["department"] is NSNull)
        #expect((object["projects"] as? [Any])?.isEmpty == true)
        let text = try CLI.strata("get", document, "Employee/p1")
        #expect(text.stdout.contains("lastName") && text.stdout.contains("Lovelace"))
    }

    @Test("update sets relationships both ways and += / -= change one member")
    func updateRelationships() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let research = try sandbox.insert(document, "Department", "name=Research")
        let ada = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace")
        let alan = try sandbox.insert(document, "Employee", "firstName=Alan", "lastName=Turing")
        let engine = try sandbox.insert(document, "Project", "name=Engine", "members=@\(ada)")
        #expect(try CLI.strata("update", document, ada, "department=@\(research)", "salary=1").status == 0)
        #expect(try CLI.strata("update", document, "Project/p1", "members+=@Employee/p2").status == 0)
        #expect(try CLI.strata("update", document, engine, "members-=@\(ada)").status == 0)
        let department = try #require(try CLI.strata("get", document, research, "--json").json() as? [String: Any])
        #expect(department["employees"] as? [String] == [ada])
        let project = try #require(try CLI.strata("get", document, engine, "--json").json() as? [String: Any])
        #expect(project["members"] as? [String] == [alan])
        let turing = try #require(try CLI.strata("get", document, alan, "--json").json() as? [String: Any])
        #expect(turing["projects"] as? [String] == [engine])
        #expect(try CLI.strata("update", document, ada, "department=null").status == 0)
        let after = try #require(try CLI.strata("get", document, research, "--json").json() as? [String: Any])
        #expect((after["employees"] as? [String])?.isEmpty == true)
    }

    @Test("delete removes an object and its department's cascade deletes the employees")
    func deleteCascades() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let research = try sandbox.insert(document, "Department", "name=Research")
        let ada = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "department=@\(research)")
        _ = try sandbox.insert(document, "Employee", "firstName=Alan", "lastName=Turing")
        #expect(try CLI.strata("delete", document, research).status == 0)
        expectFailure(try CLI.strata("get", document, ada), mentions: ["no object"])
        #expect(try CLI.strata("fetch", document, "Employee", "--count").stdout == "1\n")
        let history = try CLI.strata("history", document)
        #expect(history.stdout.contains("Delete Department"))
    }

    @Test("a wrong key, type or URI is one error line naming it, and the file is unchanged")
    func wrongKeyTypeOrURI() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let research = try sandbox.insert(document, "Department", "name=Research")
        let ada = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace")
        let before = try sandbox.bytes("staff.strata")
        let cases: [([String], [String])] = [
            (["update", document, ada, "salry=3"], ["salry"]),
            (["update", document, ada, "salary=lots"], ["lots", "salary"]),
            (["update", document, ada, "salary=99999999999999999999"], ["salary"]),
            (["update", document, ada, "startDate=yesterday"], ["yesterday", "startDate"]),
            (["update", document, ada, "badge=not-a-uuid"], ["not-a-uuid"]),
            (["update", document, ada, "department=Research"], ["department"]),
            (["update", document, ada, "department=@Department/p9"], ["Department/p9"]),
            (["update", document, ada, "department=@Project/p1"], ["Project/p1"]),
            (["update", document, ada, "salary+=@\(research)"], ["salary"]),
            (["update", document, "Employee/p77", "salary=1"], ["Employee/p77"]),
            (["update", document, "x-strata://nowhere/Employee/p1", "salary=1"], ["x-strata://nowhere/Employee/p1"]),
            (["get", document, "Nobody/p1"], ["Nobody"]),
            (["insert", document, "Employe", "firstName=A"], ["Employe"]),
            (["insert", document, "Person", "firstName=A", "lastName=B"], ["Person", "abstract"]),
            (["insert", document, "Employee", "firstName"], ["firstName"]),
            (["delete", document, "Department/p2"], ["Department/p2"]),
        ]
        for (arguments, fragments) in cases {
            let result = try CLI.run("strata", arguments)
            expectFailure(result, mentions: fragments)
            #expect(try sandbox.bytes("staff.strata") == before, "\(arguments) changed the file")
        }
    }

    @Test("unknown documents and files that are not documents are errors that change nothing")
    func notDocuments() throws {
        let sandbox = try TemporaryDirectory()
        expectFailure(try CLI.strata("info", sandbox.path("missing.strata")), mentions: ["no document", "missing.strata"])
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: sandbox.path("notes.txt")))
        expectFailure(try CLI.strata("info", sandbox.path("notes.txt")), mentions: ["not a Strata document"])
        #expect(try sandbox.bytes("notes.txt") == Data("hello\n".utf8))
        _ = FileManager.default.createFile(atPath: sandbox.path("empty.strata"), contents: Data())
        expectFailure(try CLI.strata("fetch", sandbox.path("empty.strata"), "Employee"), mentions: ["not a Strata document"])
        #expect(try sandbox.bytes("empty.strata").isEmpty)
        let foreign = sandbox.path("foreign.db")
        let sqlite = try CLI.run("/usr/bin/sqlite3", [foreign, "CREATE TABLE t(x); INSERT INTO t VALUES (1);"])
        if sqlite.status == 0 {
            let before = try sandbox.bytes("foreign.db")
            expectFailure(try CLI.strata("insert", foreign, "Employee", "firstName=A"), mentions: ["not a Strata document"])
            #expect(try sandbox.bytes("foreign.db") == before)
        }
        expectFailure(try CLI.strataLog("verify", sandbox.path("notes.txt")), tool: "strata-log", mentions: ["not a Strata document"])
    }

    @Test("a validation failure lists each problem and saves nothing")
    func validationFailure() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let before = try sandbox.bytes("staff.strata")
        let result = try CLI.strata("insert", document, "Employee", "firstName=", "salary=-5", "email=nope")
        expectFailure(result, mentions: ["validation"])
        let problems = result.stderr.split(separator: "\n").dropFirst()
        #expect(problems.count >= 3, "\(result.stderr)")
        #expect(problems.contains { $0.contains("lastName") })
        #expect(problems.contains { $0.contains("salary") })
        #expect(problems.contains { $0.contains("email") })
        #expect(try sandbox.bytes("staff.strata") == before)
    }

    @Test("reading commands leave the file's bytes as they were")
    func readsChangeNothing() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Research")
        let before = try sandbox.bytes("staff.strata")
        for arguments in [["info", document], ["get", document, "Department/p1"], ["fetch", document, "Department"],
                          ["history", document], ["export", document], ["update", document, "Department/p1", "name=Research"]] {
            #expect(try CLI.run("strata", arguments).status == 0)
        }
        for arguments in [["dump", document], ["verify", document], ["stats", document]] {
            #expect(try CLI.run("strata-log", arguments).status == 0)
        }
        #expect(try sandbox.bytes("staff.strata") == before)
        #expect(!FileManager.default.fileExists(atPath: document + "-wal"))
    }
}
