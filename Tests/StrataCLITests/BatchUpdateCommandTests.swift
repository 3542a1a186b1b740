import Foundation
import Testing

@Suite("strata update --where: batch updates with expressions")
struct BatchUpdateCommandTests {
    /// A document with three employees: Ada (40000, Ada@Example.COM), Alan (60000,
    /// ALAN@Example.org) and Grace (30000, no email); their URIs by name.
    static func staff(_ sandbox: TemporaryDirectory) throws -> (document: String, uris: [String: String]) {
        let document = try sandbox.employees()
        let uris = [
            "Ada": try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "salary=40000", "email=Ada@Example.COM"),
            "Alan": try sandbox.insert(document, "Employee", "firstName=Alan", "lastName=Turing", "salary=60000", "email=ALAN@Example.org"),
            "Grace": try sandbox.insert(document, "Employee", "firstName=Grace", "lastName=Hopper", "salary=30000"),
        ]
        return (document, uris)
    }

    static func record(_ document: String, _ uri: String) throws -> [String: Any] {
        try #require(try CLI.strata("get", document, uri, "--json").json() as? [String: Any])
    }

    @Test("sets every matching record from expressions over its old values, prints the counts, and strata undo reverts it")
    func expressionsUndoAndRedo() throws {
        let sandbox = try TemporaryDirectory()
        let (document, uris) = try Self.staff(sandbox)
        let result = try CLI.strata("update", document, "Employee", "--where", "salary < 50000",
                                    "salary=salary * 2", "email=lowercase:(email)", "lastName=uppercase:(firstName)")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("entity") == true)
        #expect(lines.last?.split(separator: " ").map(String.init) == ["Employee", "2", "2"])
        var ada = try Self.record(document, uris["Ada"]!)
        #expect(ada["salary"] as? Int == 80_000)
        #expect(ada["email"] as? String == "ada@example.com")
        #expect(ada["lastName"] as? String == "ADA")
        let grace = try Self.record(document, uris["Grace"]!)
        #expect(grace["salary"] as? Int == 60_000)
        #expect(grace["email"] is NSNull)   // NULL stays NULL
        #expect(try Self.record(document, uris["Alan"]!)["salary"] as? Int == 60_000)   // not matched

        let undo = try CLI.strata("undo", document)
        #expect(undo.stdout == "Undid Batch Update Employee\n", "\(undo.stderr)")
        ada = try Self.record(document, uris["Ada"]!)
        #expect(ada["salary"] as? Int == 40_000 && ada["email"] as? String == "Ada@Example.COM" && ada["lastName"] as? String == "Lovelace")
        #expect(try CLI.strata("redo", document).stdout == "Redid Batch Update Employee\n")
        ada = try Self.record(document, uris["Ada"]!)
        #expect(ada["salary"] as? Int == 80_000 && ada["email"] as? String == "ada@example.com")
        #expect(try CLI.strata("history", document).stdout.contains("Batch Update Employee"))
    }

    @Test("--json prints the entity, how many records matched and how many changed")
    func jsonCounts() throws {
        let sandbox = try TemporaryDirectory()
        let (document, uris) = try Self.staff(sandbox)
        // Alan already earns 60000: matched but unchanged.
        let result = try CLI.strata("update", document, "Employee", "--where", "TRUEPREDICATE",
                                    "salary=TERNARY(salary < 50000, 60000, salary)", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let counts = try #require(try result.json() as? [String: Any])
        #expect(counts["entity"] as? String == "Employee")
        #expect(counts["matched"] as? Int == 3)
        #expect(counts["updated"] as? Int == 2)
        #expect(try Self.record(document, uris["Grace"]!)["salary"] as? Int == 60_000)
    }

    @Test("malformed input is one error line naming the key, column or record, and nothing changes")
    func errors() throws {
        let sandbox = try TemporaryDirectory()
        let (document, uris) = try Self.staff(sandbox)
        let before = try Data(contentsOf: URL(fileURLWithPath: document))
        expectFailure(try CLI.strata("update", document, "Employee", "--where", "salary > 0", "salary=salary *"),
                      mentions: ["salary", "column"])
        expectFailure(try CLI.strata("update", document, "Employee", "--where", "salary >", "salary=1"),
                      mentions: ["Malformed predicate", "column"])
        expectFailure(try CLI.strata("update", document, "Employee", "--where", "salary > 0", "firstName=Ada"),
                      mentions: ["'Ada'", "quoted"])
        expectFailure(try CLI.strata("update", document, "Employee", "--where", "salary > 0", "salary=salary / 7"),
                      mentions: ["Employee.salary", "trunc:"])
        expectFailure(try CLI.strata("update", document, "Employee", "--where", "salary > 0", "wage=1"),
                      mentions: ["wage"])
        expectFailure(try CLI.strata("update", document, "Employee", "--where", "salary > 0", "projects+=@Project/p1"),
                      mentions: ["key=EXPR"])
        expectFailure(try CLI.strata("update", document, "Nobody", "--where", "TRUEPREDICATE", "x=1"),
                      mentions: ["Nobody"])
        #expect(try CLI.strata("update", document, "Employee", "--where", "salary > 0").status != 0)   // no assignment
        #expect(try CLI.strata("update", document, uris["Ada"]!, "salary=1", "--json").status != 0)   // --json without --where
        #expect(try Data(contentsOf: URL(fileURLWithPath: document)) == before)
        #expect(try Self.record(document, uris["Ada"]!)["salary"] as? Int == 40_000)
    }
}
