import Foundation
import Testing

@Suite("strata fetch")
struct FetchCommandTests {
    /// A document with one department and four employees.
    func staff(_ sandbox: TemporaryDirectory) throws -> String {
        let document = try sandbox.employees()
        let research = try sandbox.insert(document, "Department", "name=Research")
        _ = try sandbox.insert(document, "Department", "name=Sales")
        for (first, last, salary) in [("Ada", "Lovelace", "150000"), ("Charles", "Babbage", "135000"),
                                      ("Grace", "Hopper", "142000"), ("Alan", "Turing", "98000")] {
            _ = try sandbox.insert(document, "Employee", "firstName=\(first)", "lastName=\(last)", "salary=\(salary)",
                                   "department=@\(research)")
        }
        _ = try sandbox.insert(document, "Employee", "firstName=Quinn", "lastName=Null")
        return document
    }

    @Test("fetch filters with a predicate, sorts, pages and counts")
    func filtersSortsPagesCounts() throws {
        let sandbox = try TemporaryDirectory()
        let document = try staff(sandbox)
        let names = try #require(try CLI.strata("fetch", document, "Employee", "--where", "salary > 100000",
                                                "--sort", "salary:desc", "--format", "json").json() as? [[String: Any]])
        #expect(names.map { $0["lastName"] as? String } == ["Lovelace", "Hopper", "Babbage"])
        let page = try #require(try CLI.strata("fetch", document, "Employee", "--sort", "lastName", "--offset", "1", "--limit", "2",
                                               "--format", "json").json() as? [[String: Any]])
        #expect(page.map { $0["lastName"] as? String } == ["Hopper", "Lovelace"])
        let through = try CLI.strata("fetch", document, "Employee", "--where", "department.name == 'Research' AND firstName BEGINSWITH[c] 'a'",
                                     "--sort", "firstName", "--format", "ids")
        #expect(through.stdout.split(separator: "\n").map { $0.hasSuffix("/Employee/p1") || $0.hasSuffix("/Employee/p4") } == [true, true])
        #expect(try CLI.strata("fetch", document, "Employee", "--count").stdout == "5\n")
        #expect(try CLI.strata("fetch", document, "Employee", "--where", "salary == nil", "--count").stdout == "1\n")
        #expect(try CLI.strata("fetch", document, "Person", "--count").stdout == "5\n")
        #expect(try CLI.strata("fetch", document, "Department", "--where", "employees.@count >= 2", "--count").stdout == "1\n")
    }

    @Test("JSON lists keys in model order with URIs for relationships")
    func jsonShape() throws {
        let sandbox = try TemporaryDirectory()
        let document = try staff(sandbox)
        let result = try CLI.strata("fetch", document, "Department", "--where", "name == 'Research'", "--format", "json")
        let records = try #require(try result.json() as? [[String: Any]])
        let research = try #require(records.first)
        #expect(research["_entity"] as? String == "Department")
        #expect((research["_uri"] as? String)?.hasSuffix("/Department/p1") == true)
        #expect((research["employees"] as? [String])?.count == 4)
        #expect((research["employees"] as? [String])?.allSatisfy { $0.hasPrefix("x-strata://") } == true)
        func position(_ key: String) -> Int { result.stdout.range(of: "\"\(key)\"")?.lowerBound.utf16Offset(in: result.stdout) ?? -1 }
        #expect(position("_uri") < position("_entity"))
        #expect(position("_entity") < position("name"))
        #expect(position("name") < position("budget"))
        #expect(position("budget") < position("employees"))
        let employees = try CLI.strata("fetch", document, "Employee", "--format", "json", "--limit", "1")
        let keys = ["_uri", "_entity", "firstName", "lastName", "salary", "startDate", "employeeID", "email", "active",
                    "rating", "bonus", "badge", "homepage", "photo", "notes", "manager", "directReports", "department", "projects"]
        let positions = keys.map { key in employees.stdout.range(of: "\"\(key)\":")?.lowerBound.utf16Offset(in: employees.stdout) ?? -1 }
        #expect(positions == positions.sorted() && !positions.contains(-1), "keys out of model order: \(employees.stdout)")
        #expect(!employees.stdout.contains("fullName"), "transient attributes are not stored")
    }

    @Test("table, CSV and ids formats print every object")
    func otherFormats() throws {
        let sandbox = try TemporaryDirectory()
        let document = try staff(sandbox)
        let table = try CLI.strata("fetch", document, "Employee", "--sort", "lastName")
        #expect(table.status == 0)
        #expect(table.stdout.contains("lastName") && table.stdout.contains("Employee/p2") && table.stdout.contains("Babbage"))
        let csv = try CLI.strata("fetch", document, "Employee", "--format", "csv", "--sort", "lastName")
        let lines = csv.stdout.split(separator: "\n")
        #expect(lines.count == 6)
        #expect(lines.first?.hasPrefix("_uri,_entity,firstName,lastName,salary") == true)
        #expect(lines[1].contains(",Charles,Babbage,135000,"))
        let ids = try CLI.strata("fetch", document, "Employee", "--format", "ids")
        #expect(ids.stdout.split(separator: "\n").count == 5)
    }

    @Test("a malformed predicate is an error naming its column")
    func malformedPredicate() throws {
        let sandbox = try TemporaryDirectory()
        let document = try staff(sandbox)
        let result = try CLI.strata("fetch", document, "Employee", "--where", "salary >> 3")
        expectFailure(result, mentions: ["column 9", "salary >> 3"])
        let unknown = try CLI.strata("fetch", document, "Employee", "--where", "salry > 3")
        expectFailure(unknown, mentions: ["salry"])
        expectFailure(try CLI.strata("fetch", document, "Nobody"), mentions: ["Nobody"])
        expectFailure(try CLI.strata("fetch", document, "Employee", "--sort", "lastName:sideways"), mentions: ["sideways"])
    }
}
