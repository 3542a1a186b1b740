import Foundation
import Testing
@testable import Strata

@Suite struct ExpressionRoundTrip {
    @Test func randomExpressionsPrintAndParseBackToTheSameTree() throws {
        expectFormatRoundTrips(seeds: [1, 7, 99, 0xC0FFEE, explorationSeed()], iterations: 400,
                               generator: { RandomExpressionGenerator(seed: $0) }, next: { $0.expression(depth: 4) },
                               format: \.predicateFormat, parse: { try FetchExpression(format: $0) })
    }

    @Test func randomPredicatesOverExpressionsRoundTrip() throws {
        expectFormatRoundTrips(seeds: [3, 11, explorationSeed()], iterations: 300,
                               generator: { RandomExpressionGenerator(seed: $0) }, next: { $0.predicate(depth: 3) },
                               format: \.predicateFormat, parse: { try FetchPredicate(format: $0) })
    }
}

@Suite struct ExpressionSyntaxErrors {
    private func failure(_ text: String, expression: Bool) -> StrataError? {
        do {
            if expression { _ = try FetchExpression(format: text) } else { _ = try FetchPredicate(format: text) }
            return nil
        } catch let error as StrataError {
            return error
        } catch {
            return nil
        }
    }

    @Test func malformedExpressionsNameTheColumnAndTheProblem() {
        // (text, parsed as an expression alone?, column, message)
        let cases: [(String, Bool, Int, String)] = [
            ("a +", true, 4, "expected an expression"),
            ("a + * 2", true, 5, "expected an expression"),
            ("a ** ", true, 6, "expected an expression"),
            ("-", true, 2, "expected an expression"),
            ("(a + 1", true, 7, "expected ')' to close '('"),
            ("a.b(1)", true, 4, "expected an operator or the end of the expression"),
            ("bogus:(a) > 1", false, 1, "unknown function 'bogus:' (known: add:to: from:subtract:"),
            ("frobnicate(a)", true, 1, "unknown function 'frobnicate'"),
            ("sum:(a, b)", true, 1, "sum: takes 1 argument, found 2"),
            ("now(1)", true, 1, "now takes 0 arguments, found 1"),
            ("random(1, 2)", true, 1, "random takes 0 or 1 arguments, found 2"),
            ("x == add:to:(1)", false, 6, "add:to: takes 2 arguments, found 1"),
            ("sum(a, )", true, 8, "expected an expression"),
            ("sum:", true, 5, "expected '(' after the function name sum:"),
            ("FUNCTION(SELF, 'uppercaseString')", true, 1, "FUNCTION(receiver, 'selector', …) method calls are not supported"),
            ("TERNARY(a == 1, 2) == 2", false, 18, "expected ',' after TERNARY's second argument"),
            ("TERNARY(a, 1, 2)", true, 10, "expected a comparison operator"),
            ("CAST(a, 'NSFoo')", true, 9, "unknown CAST type \"NSFoo\" (expected NSNumber, NSString"),
            ("CAST(a, b)", true, 9, "expected a type name string"),
            ("CAST(a + 1 'NSString')", true, 12, "expected ',' after the CAST value"),
            ("items[FIRST", true, 12, "expected ']' to close the subscript"),
            ("items[] == 1", false, 7, "expected an expression"),
            ("5[0] == 1", false, 2, "expected a comparison operator"),
            ("(a + 1 == 2", false, 12, "expected ')' to close '('"),
            ("a ==[cx] 1", false, 6, "unknown comparison option 'x' (expected c, d, l or n)"),
            ("a CONTAINS[] 'x'", false, 12, "expected comparison options"),
            ("a + 1 2", true, 7, "expected an operator or the end of the expression"),
            ("salary * %@", true, 10, "'%@' has no argument"),
        ]
        for (text, alone, column, message) in cases {
            guard let error = failure(text, expression: alone) else {
                Issue.record("\(text.debugDescription) parsed but should not")
                continue
            }
            #expect(error.code == .predicateSyntax, "\(text)")
            #expect(error.context.column == column, "\(text): \(error.message)")
            #expect(error.message.contains(message), "\(text): \(error.message)")
        }
    }

    @Test func deepExpressionsAreRefusedAtTheLimitNotByTheStack() {
        let hostile = [
            String(repeating: "(", count: 100_000) + "x",
            String(repeating: "-", count: 100_000) + "x",
            "a" + String(repeating: " ** a", count: 100_000),
            "a" + String(repeating: " + a", count: 100_000),
            "a" + String(repeating: " * a", count: 100_000),
            "a" + String(repeating: "[0]", count: 100_000),
            String(repeating: "sum:(", count: 100_000) + "x",
            String(repeating: "TERNARY(", count: 100_000) + "x",
            String(repeating: "items[", count: 100_000) + "x",
        ]
        for text in hostile {
            let error = failure(text, expression: true)
            #expect(error?.context.limit == "maxPredicateDepth", "\(text.prefix(20))…: \(error?.message ?? "parsed")")
            let predicateError = failure(text + " == 1", expression: false)
            #expect(predicateError?.context.limit == "maxPredicateDepth", "\(text.prefix(20))… == 1")
        }
        // Within the limit, a long sum is fine.
        #expect(throws: Never.self) { try FetchExpression(format: "a" + String(repeating: " + a", count: 50)) }
    }
}

/// Random expressions over every node, including arithmetic, functions, TERNARY, CAST and
/// subscripts, in the printable subset (no NaN, no object IDs).
struct RandomExpressionGenerator {
    var base: RandomPredicateGenerator
    init(seed: UInt64) { base = RandomPredicateGenerator(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { base.int(range) }

    mutating func predicate(depth: Int) -> FetchPredicate {
        switch depth <= 0 ? 0 : int(0...5) {
        case 0, 1, 2: return .comparison(comparison(depth: depth))
        case 3: return .and([predicate(depth: depth - 1), predicate(depth: depth - 1)])
        case 4: return .or([predicate(depth: depth - 1), predicate(depth: depth - 1)])
        default: return .not(predicate(depth: depth - 1))
        }
    }

    mutating func comparison(depth: Int) -> FetchComparison {
        let op = base.pick(FetchComparison.Operator.allCases)
        var rhs = expression(depth: depth - 1)
        if op == .between { rhs = .collection([expression(depth: 0), expression(depth: 0)]) }
        let options = FetchComparison.Options(rawValue: UInt8(int(0...15)))
        return FetchComparison(expression(depth: depth - 1), op, rhs, modifier: base.pick(FetchComparison.Modifier.allCases), options: options)
    }

    mutating func expression(depth: Int) -> FetchExpression {
        if depth <= 0 {
            switch int(0...4) {
            case 0: return .constant(base.constant())
            case 1: return .constant(base.pick([.integer(.min), .integer(.max), .integer(-1), .double(-0.5), .double(-.infinity)]))
            case 2: return .keyPath(base.keyPath())
            case 3: return .variable(base.pick(["x", "e"]))
            default: return .evaluatedObject
            }
        }
        let d = depth - 1
        switch int(0...11) {
        case 0: return expression(depth: 0)
        case 1, 2:
            let function = base.pick([FetchFunction.add, .subtract, .multiply, .divide, .raise])
            return .function(function, [expression(depth: d), expression(depth: d)])
        case 3: return .function(.subtract, [.constant(.integer(0)), expression(depth: d)])
        case 4:
            let function = base.pick(FetchFunction.allCases.filter { $0 != .castObject })
            return .function(function, (0..<function.argumentCount).map { _ in expression(depth: d) })
        case 5: return .function(.castObject, [expression(depth: d), .constant(.string(base.pick(PredicateParser.castTypes)))])
        case 6: return .conditional(predicate(depth: d), then: expression(depth: d), else: expression(depth: d))
        case 7:
            let index: FetchIndex = switch int(0...4) {
            case 0: .first
            case 1: .last
            case 2: .size
            case 3: .at(.keyPath(base.pick(["first", "SIZE", "last", "n"])))
            default: .at(expression(depth: d))
            }
            return .index(expression(depth: d), index)
        case 8: return .keyPath(base.keyPath(), on: expression(depth: d))
        case 9: return .collection((0..<int(0...3)).map { _ in expression(depth: d) })
        case 10:
            let op = base.pick(FetchCollectionOperator.allCases)
            return .collectionOperator(op, of: expression(depth: d), key: op == .count || int(0...1) == 0 ? nil : base.keyPath())
        default:
            return .subquery(collection: expression(depth: d), variable: "s", predicate: predicate(depth: d))
        }
    }
}
