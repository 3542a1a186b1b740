import Foundation
import Testing
@testable import Strata

@Suite struct PredicateFormatting {
    static let corpus = [
        "a == 1", "a != 1", "a < 1", "a <= 1", "a > 1", "a >= 1",
        "name BEGINSWITH \"Q\"", "name ENDSWITH[c] \"inn\"", "name CONTAINS[d] \"é\"", "name LIKE[cd] \"q*n?\"",
        "name MATCHES \"[A-Z][a-z]+\"", "age BETWEEN {18, 65}", "name IN {\"a\", \"b\", \"c\"}", "\"x\" IN tags.name",
        "x IN {}", "ANY employees.salary > 10", "ALL employees.salary > 10", "NONE employees.salary > 10",
        "employees.@count == 0", "employees.@sum.salary >= 100", "employees.@avg.salary < 2.5",
        "employees.@min.hired <= CAST(0.0, \"NSDate\")", "employees.@max.name == \"Z\"",
        "SUBQUERY(employees, $e, $e.salary > 10).@count > 0",
        "SUBQUERY(employees, $e, $e.salary > 10 AND ANY $e.tags.name == \"x\").@count == 1",
        "SELF == $ME", "SELF IN $LIST", "department.name == $NAME", "$x.name == \"a\"",
        "a == 1 AND b == 2 AND c == 3", "a == 1 OR b == 2 OR c == 3", "(a == 1 OR b == 2) AND c == 3",
        "a == 1 OR (b == 2 AND c == 3)", "NOT a == 1", "NOT (a == 1 AND b == 2)", "NOT NOT a == 1",
        "TRUEPREDICATE", "FALSEPREDICATE", "TRUEPREDICATE AND FALSEPREDICATE",
        "a == NULL", "a != NULL", "a == TRUE", "a == FALSE", "a == -5", "a == 1e+20", "a == 0.1", "a == -0.0",
        "a == \"line\\nbreak \\\"quoted\\\" back\\\\slash\\ttab\"", "a == \"\\u{1}\"", "#in == 1", "#self.#and == 2",
        "a == CAST(\"1.5\", \"NSDecimalNumber\")", "a == CAST(\"AAEC\", \"NSData\")",
        "a == CAST(\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\", \"NSUUID\")", "a == CAST(\"https://example.com/x?y=1\", \"NSURL\")",
        "a == 9223372036854775807", "a == -9223372036854775808", "a == 1e999", "{1, 2}.@max == 2", "SELF.@count == 3",
        "a ==[c] \"x\"", "a !=[cd] \"x\"",
    ]

    @Test func everyCorpusEntryRoundTripsToTheSameTextAndTree() throws {
        #expect(Self.corpus.count >= 40)
        for text in Self.corpus {
            let parsed = try FetchPredicate(format: text)
            #expect(parsed.predicateFormat == text, "canonical form of \(text)")
            #expect(try FetchPredicate(format: parsed.predicateFormat) == parsed, "round trip of \(text)")
        }
    }

    @Test func printingIsCanonicalWhateverTheInputSpelling() throws {
        let pairs = [
            ("a=1&&b<>2||!c=<3", "(a == 1 AND b != 2) OR NOT c <= 3"),
            ("some x.y => 'q'", "ANY x.y >= \"q\""),
            ("a beginswith[dc] 'it\\'s'", "a BEGINSWITH[cd] \"it's\""),
            ("a == yes and b == nil", "a == TRUE AND b == NULL"),
            ("a == 0x10", "a == 16"),
            ("a == 5.", "a == 5"),
        ]
        for (input, canonical) in pairs.dropLast() {
            #expect(try FetchPredicate(format: input).predicateFormat == canonical)
        }
        #expect(throws: StrataError.self) { try FetchPredicate(format: pairs.last!.0) }
    }

    @Test func emptyAndSingleCompoundsPrintAsTheirMeaning() {
        #expect(FetchPredicate.and([]).predicateFormat == "TRUEPREDICATE")
        #expect(FetchPredicate.or([]).predicateFormat == "FALSEPREDICATE")
        #expect(FetchPredicate.and([P.cmp(P.k("a"), .equalTo, P.c(1))]).predicateFormat == "a == 1")
    }

    @Test func datesAndDoublesRoundTripExactly() throws {
        for interval in [0.0, 1.5, -12345.678901, 7.0e8 + 0.1, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude] {
            let p = P.cmp(P.k("d"), .equalTo, P.c(.date(Date(timeIntervalSinceReferenceDate: interval))))
            #expect(try FetchPredicate(format: p.predicateFormat) == p)
            let q = P.cmp(P.k("d"), .equalTo, P.c(.double(interval)))
            #expect(try FetchPredicate(format: q.predicateFormat) == q)
        }
    }

    @Test func randomPredicatesRoundTripThroughTheirFormat() throws {
        // Regression seeds first, then a fresh one.
        expectFormatRoundTrips(seeds: [1, 2, 3, 42, 0xDEADBEEF, explorationSeed()], iterations: 300,
                               generator: { RandomPredicateGenerator(seed: $0) }, next: { $0.predicate(depth: 4) },
                               format: \.predicateFormat, parse: { try FetchPredicate(format: $0) })
    }
}


/// Generates random predicates in the printable subset (compounds of two or more terms,
/// no NaN, no object IDs).
struct RandomPredicateGenerator {
    var rng: SeededGenerator
    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    let keys = ["name", "salary", "in", "Self", "department", "employees", "naïve", "_x1", "like", "first"]
    let characters: [Character] = ["a", "Z", " ", "'", "\"", "\\", "\n", "\t", "é", "😀", "%", "@", ";", "-", "*", "\u{1}", "\u{301}", "$"]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    mutating func predicate(depth: Int) -> FetchPredicate {
        switch depth <= 0 ? int(0...5) : int(0...9) {
        case 0: return .constant(int(0...1) == 0)
        case 6, 7: return .and((0..<int(2...4)).map { _ in predicate(depth: depth - 1) })
        case 8: return .or((0..<int(2...3)).map { _ in predicate(depth: depth - 1) })
        case 9: return .not(predicate(depth: depth - 1))
        default: return .comparison(comparison(depth: depth))
        }
    }

    mutating func comparison(depth: Int) -> FetchComparison {
        let op = pick(FetchComparison.Operator.allCases)
        var rhs = expression(depth: depth)
        if op == .between { rhs = .collection([expression(depth: 0), expression(depth: 0)]) }
        let options = FetchComparison.Options(rawValue: UInt8(int(0...3)))
        return FetchComparison(expression(depth: depth), op, rhs, modifier: pick(FetchComparison.Modifier.allCases), options: options)
    }

    mutating func keyPath() -> String { (0..<int(1...3)).map { _ in pick(keys) }.joined(separator: ".") }

    mutating func expression(depth: Int) -> FetchExpression {
        switch depth <= 0 ? int(0...3) : int(0...7) {
        case 0, 1: return .constant(constant())
        case 2: return .keyPath(keyPath())
        case 3: return int(0...1) == 0 ? .variable(pick(["X", "e", "FETCH_SOURCE"])) : .evaluatedObject
        case 4: return .collection((0..<int(0...3)).map { _ in expression(depth: depth - 2) })
        case 5: return .keyPath(keyPath(), on: .variable("v"))
        case 6:
            let op = pick(FetchCollectionOperator.allCases)
            let base: FetchExpression = pick([.keyPath(keyPath()), .evaluatedObject, .variable("v")])
            return .collectionOperator(op, of: base, key: op == .count || int(0...1) == 0 ? nil : keyPath())
        default:
            return .collectionOperator(.count, of: .subquery(collection: .keyPath(keyPath()), variable: "s", predicate: predicate(depth: depth - 2)), key: nil)
        }
    }

    mutating func constant() -> PropertyValue {
        switch int(0...8) {
        case 0: return .null
        case 1: return .integer(Int64.random(in: Int64.min...Int64.max, using: &rng))
        case 2: return .integer(Int64(int(-100...100)))
        case 3:
            let bits = rng.next()
            let d = Double(bitPattern: bits)
            return .double(d.isNaN ? 0.5 : d)
        case 4: return .boolean(int(0...1) == 0)
        case 5: return .string(String((0..<int(0...8)).map { _ in pick(characters) }))
        case 6: return .date(Date(timeIntervalSinceReferenceDate: Double(int(-1_000_000...1_000_000)) / 7))
        case 7: return .decimal(Decimal(int(-10_000...10_000)) / 100)
        default: return .uuid(UUID())
        }
    }
}

/// Prints random trees and parses the text back, for each seed: every tree must come back
/// equal (the first failure of a seed is recorded and ends that seed).
func expectFormatRoundTrips<Generator, Tree: Equatable>(
    seeds: [UInt64], iterations: Int, generator makeGenerator: (UInt64) -> Generator,
    next: (inout Generator) -> Tree, format: (Tree) -> String, parse: (String) throws -> Tree
) {
    for seed in seeds {
        var generator = makeGenerator(seed)
        for iteration in 0..<iterations {
            let tree = next(&generator)
            let text = format(tree)
            let parsed: Tree
            do {
                parsed = try parse(text)
            } catch {
                Issue.record("seed \(seed) iteration \(iteration): \(text) failed to parse: \(error)")
                break
            }
            if parsed != tree {
                Issue.record("seed \(seed) iteration \(iteration): \(text) parsed back as \(format(parsed))")
                break
            }
        }
    }
}
