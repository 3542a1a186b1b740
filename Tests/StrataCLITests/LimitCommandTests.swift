import Foundation
import Testing

/// Hostile input through the real `strata` process: one `strata: error:` line naming the
/// problem and where, a non-zero exit, and never SQLite's own message or an SQL dump.
@Suite("strata limits")
struct LimitCommandTests {
    func expectNoSQL(_ result: CommandResult, sourceLocation: SourceLocation = #_sourceLocation) {
        for fragment in ["SELECT", "Expression tree", "parser stack", "NSXMLParserErrorDomain"] {
            #expect(!result.stderr.contains(fragment), "stderr: \(result.stderr.prefix(500))", sourceLocation: sourceLocation)
        }
        #expect(result.stderr.utf8.count < 400, "stderr: \(result.stderr.prefix(500))", sourceLocation: sourceLocation)
    }

    @Test("an option repeated 5,000 times is refused before parsing, naming it; 1,000 still run")
    func repeatedOptions() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let tooMany = try CLI.run("strata", ["fetch", document, "Employee"] + Array(repeating: ["--sort", "salary"], count: 5_000).flatMap { $0 })
        expectFailure(tooMany, mentions: ["--sort is given 5000 times; at most 1000 are allowed"])
        #expect(tooMany.status == 64)
        let most = try CLI.run("strata", ["fetch", document, "Employee", "--count"] + Array(repeating: ["--sort", "salary"], count: 1_000).flatMap { $0 })
        #expect(most.status == 0 && most.stdout == "0\n", "\(most.stderr.prefix(300))")
    }

    @Test("a 5,000-term OR works; deep nesting is one clear line")
    func predicates() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        for (first, salary) in [("Ada", "150000"), ("Alan", "98000"), ("Grace", "4000")] {
            _ = try sandbox.insert(document, "Employee", "firstName=\(first)", "lastName=X", "salary=\(salary)")
        }
        let wide = (0..<5_000).map { "salary == \($0 * 2)" }.joined(separator: " OR ")
        let found = try CLI.strata("fetch", document, "Employee", "--where", wide, "--count")
        #expect(found.status == 0, "stderr: \(found.stderr.prefix(500))")
        #expect(found.stdout == "1\n")

        let nots = try CLI.strata("fetch", document, "Employee", "--where", String(repeating: "NOT ", count: 100) + "salary > 5")
        expectFailure(nots, mentions: ["column 257", "nested more than 64 levels deep (limit 64)"])
        expectNoSQL(nots)

        let parens = String(repeating: "(", count: 50_000) + "salary > 5" + String(repeating: ")", count: 50_000)
        let deep = try CLI.strata("fetch", document, "Employee", "--where", parens)
        expectFailure(deep, mentions: ["column 65", "nested more than 64 levels deep"])
        expectNoSQL(deep)
    }

    @Test("a MATCHES that would backtrack for years stops at its budget with one clear line")
    func catastrophicRegex() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Employee", "firstName=\(String(repeating: "a", count: 40))", "lastName=X", "salary=1")
        let result = try CLI.strata("fetch", document, "Employee", "--where", "firstName MATCHES '(a+)+b'")
        expectFailure(result, mentions: ["MATCHES needs more than 1000 units of backtracking on a string of 40 characters (limit 1000)"])
        expectNoSQL(result)
        let fine = try CLI.strata("fetch", document, "Employee", "--where", "firstName MATCHES 'a+'", "--count")
        #expect(fine.status == 0 && fine.stdout == "1\n", "stderr: \(fine.stderr.prefix(500))")
    }

    @Test("the tools decode segments and check predicates with the limits the environment sets")
    func configuredLimits() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "salary=1")
        let small = ["STRATA_MAX_SEGMENT_SIZE": "16"]
        #expect(try CLI.strataLog("verify", document).status == 0)
        let verify = try CLI.run("strata-log", ["verify", document], environment: small)
        // A segment over the limit fails verification as damaged data: EX_DATAERR, was 1.
        #expect(verify.status == 65 && verify.stdout.contains("exceeds the limit of 16 bytes"), "stdout: \(verify.stdout)")
        let dump = try CLI.run("strata-log", ["dump", document], environment: small)
        #expect(dump.status == 0 && dump.stdout.contains("DAMAGED: ") && dump.stdout.contains("limit of 16 bytes"), "stdout: \(dump.stdout)")
        let replay = try CLI.run("strata-log", ["replay", document, "--to", "1", "--out", sandbox.path("r.strata")], environment: small)
        expectFailure(replay, tool: "strata-log", mentions: ["limit of 16 bytes"])
        let fetch = try CLI.run("strata", ["fetch", document, "Employee", "--where", "salary == 1 OR salary == 2 OR salary == 3"],
                                environment: ["STRATA_LIMITS": "maxPredicateTerms=3"])
        expectFailure(fetch, mentions: ["4 terms (limit 3)"])
        for (variable, value, message) in [("STRATA_LIMITS", "maxRegexWork=x", "STRATA_LIMITS: maxRegexWork='x' is not a positive number."),
                                           ("STRATA_LIMITS", "maxThings=3", "STRATA_LIMITS: 'maxThings=3' is not one of"),
                                           ("STRATA_MAX_SEGMENT_SIZE", "-1", "STRATA_MAX_SEGMENT_SIZE='-1' is not a positive number of bytes.")] {
            let refused = try CLI.run("strata-log", ["verify", document], environment: [variable: value])
            expectFailure(refused, tool: "strata-log", mentions: [message])
        }
    }

    @Test("a model XML syntax error names file, line and column")
    func modelXML() throws {
        let sandbox = try TemporaryDirectory()
        let bundle = sandbox.path("Broken.xcdatamodel")
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel">
                <entity name="Note" representedClassName="Note">
                    <attribute name="title" attributeType="String"/>
                    <attribute name="body" attributeType="String" optional="YES>
                </entity>
            </model>

            """
        try Data(xml.utf8).write(to: URL(fileURLWithPath: bundle + "/contents"))
        let result = try CLI.strata("new", sandbox.path("notes.strata"), "--model", bundle)
        expectFailure(result, mentions: ["Broken.xcdatamodel/contents:", "XML syntax error"])
        expectNoSQL(result)
        #expect(result.stderr.range(of: #"contents:\d+:\d+: XML syntax error: "#, options: .regularExpression) != nil,
                "stderr: \(result.stderr)")
    }
}
