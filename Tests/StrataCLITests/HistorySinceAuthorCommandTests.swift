import Foundation
import Testing

@Suite("strata history --since and --author")
struct HistorySinceAuthorCommandTests {
    private func history(_ document: String, _ options: String...) throws -> [[String: Any]] {
        let result = try CLI.run("strata", ["history", document, "--json"] + options)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try result.json() as? [[String: Any]])
    }

    private func update(_ document: String, _ object: String, _ assignment: String, author: String) throws {
        let result = try CLI.run("strata", ["update", document, object, assignment], environment: ["STRATA_AUTHOR": author])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("--json shows tokens and authors; --since and --author select the groups after a token and by an author")
    func sinceAndAuthorFilter() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let research = try sandbox.insert(document, "Department", "name=Research")
        try update(document, research, "name=R&D", author: "ada")
        try update(document, research, "name=Labs", author: "grace")
        try update(document, research, "name=Lab", author: "ada")

        let all = try history(document)
        #expect(all.count == 4)
        let tokens = all.compactMap { $0["token"] as? String }
        #expect(tokens.count == 4 && Set(tokens).count == 4)
        #expect(all.map { $0["author"] as? String } == [nil, "ada", "grace", "ada"])
        #expect(all.map { $0["context"] is NSNull } == [true, true, true, true])

        let since = try history(document, "--since", tokens[1])
        #expect(since.compactMap { $0["token"] as? String } == [tokens[2], tokens[3]])
        let byAda = try history(document, "--author", "ada")
        #expect(byAda.compactMap { $0["token"] as? String } == [tokens[1], tokens[3]])
        let both = try history(document, "--since", tokens[1], "--author", "ada")
        #expect(both.compactMap { $0["token"] as? String } == [tokens[3]])
        #expect(both.first?["action"] as? String == "Update Department")
        #expect(try history(document, "--since", tokens[3]).isEmpty)

        let table = try CLI.strata("history", document, "--author", "nobody")
        #expect(table.status == 0 && table.stdout.contains("No groups match"))
        // Undone-ness is computed over every group, not only those listed.
        #expect(try CLI.strata("undo", document).status == 0)
        let afterUndo = try history(document, "--since", tokens[2])
        #expect(afterUndo.map { $0["undone"] as? Bool } == [true, false])
    }

    @Test("a --since that is not a token is a usage error naming it, and nothing is read")
    func badToken() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let result = try CLI.strata("history", document, "--since", "yesterday")
        #expect(result.status != 0)
        #expect(result.stderr.contains("--since") && result.stderr.contains("yesterday"))
    }
}
