import Foundation
import Strata
import Testing

/// `maxPredicateDepth` is clamped to what the stack survives, and the tools say so
/// (docs/LIMITS.md, "Limits the stack sets"; issue 32, item 7). In real processes: an
/// overflow is a SIGSEGV, which only a child process can show without killing the tests.
@Suite("maxPredicateDepth's ceiling")
struct PredicateDepthCeilingTests {
    static let ceiling = StrataLimits.predicateDepthCeiling

    @Test("the issue's reproduction: maxPredicateDepth=100000000 and 60,000 parentheses is a warning and one error, not a SIGSEGV")
    func hugeDepthIsClamped() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let parens = String(repeating: "(", count: 60_000) + "salary > 5" + String(repeating: ")", count: 60_000)
        let result = try CLI.run("strata", ["fetch", document, "Employee", "--where", parens],
                                 environment: ["STRATA_LIMITS": "maxPredicateDepth=100000000"])
        // A malformed predicate is a bad value, not a usage error: status 1 (README.md, "Command line").
        #expect(result.status == 1, "status \(result.status): \(result.stderr.prefix(500))")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(result.stderr.prefix(500))")
        #expect(lines.first == "strata: warning: STRATA_LIMITS: maxPredicateDepth=100000000 is deeper than the stack can take; using \(Self.ceiling).")
        #expect(lines.last?.hasPrefix("strata: error: ") == true, "\(result.stderr.prefix(500))")
        #expect(lines.last?.contains("predicate syntax error at column \(Self.ceiling + 1): predicate nested more than \(Self.ceiling) levels deep (limit \(Self.ceiling))") == true,
                "\(result.stderr.prefix(500))")
        #expect(result.stderr.utf8.count < 600)
        // strata-log reads the same variable and says the same.
        let log = try CLI.run("strata-log", ["verify", document], environment: ["STRATA_LIMITS": "maxPredicateDepth=100000000"])
        #expect(log.status == 0 && log.stderr.hasPrefix("strata-log: warning: STRATA_LIMITS: maxPredicateDepth=100000000"), "\(log.stderr)")
    }

    @Test("predicates nested just inside the ceiling are answered: parentheses, NOT chains, arithmetic chains")
    func atTheCeiling() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "salary=10")
        let depth = Self.ceiling - 4
        let shapes = [
            String(repeating: "(", count: depth) + "salary > 5" + String(repeating: ")", count: depth),
            String(repeating: "NOT ", count: depth - depth % 2) + "salary > 5",
            "salary" + String(repeating: " + 0", count: depth) + " > 5",
        ]
        let environment = ["STRATA_LIMITS": "maxPredicateDepth=\(Self.ceiling)"]
        for shape in shapes {
            let result = try CLI.run("strata", ["fetch", document, "Employee", "--where", shape, "--count"], environment: environment)
            #expect(result.status == 0 && result.stdout == "1\n" && result.stderr.isEmpty,
                    "\(shape.prefix(20))…: status \(result.status), \(result.stderr.prefix(300))")
        }
    }
}
