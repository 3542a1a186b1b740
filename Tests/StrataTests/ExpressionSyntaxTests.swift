import Foundation
import Testing
@testable import Strata

/// Shorthands for expected expression trees.
private enum E {
    static func k(_ path: String) -> FetchExpression { .keyPath(path) }
    static func c(_ value: PropertyValue) -> FetchExpression { .constant(value) }
    static func f(_ function: FetchFunction, _ arguments: FetchExpression...) -> FetchExpression { .function(function, arguments) }
    static func neg(_ x: FetchExpression) -> FetchExpression { .function(.subtract, [.constant(.integer(0)), x]) }
}

@Suite struct ExpressionSyntax {
    /// Parses `text`, expects `tree`, prints it to `printed` and reparses to the same tree.
    private func check(_ text: String, _ tree: FetchExpression, prints printed: String? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let parsed = try FetchExpression(format: text)
        #expect(parsed == tree, "\(text)", sourceLocation: sourceLocation)
        let expectedText = printed ?? text
        #expect(tree.predicateFormat == expectedText, "\(text)", sourceLocation: sourceLocation)
        #expect(try FetchExpression(format: tree.predicateFormat) == tree, "\(text)", sourceLocation: sourceLocation)
    }

    @Test func arithmeticFollowsFoundationsPrecedence() throws {
        let a = E.k("a"), b = E.k("b"), c = E.k("c")
        try check("a + 2", E.f(.add, a, E.c(2)))
        try check("a + b * c", E.f(.add, a, E.f(.multiply, b, c)))
        try check("(a + b) * c", E.f(.multiply, E.f(.add, a, b), c))
        try check("a - b - c", E.f(.subtract, E.f(.subtract, a, b), c))
        try check("a - (b - c)", E.f(.subtract, a, E.f(.subtract, b, c)))
        try check("a + (b + c)", E.f(.add, a, E.f(.add, b, c)))
        try check("a / b / c", E.f(.divide, E.f(.divide, a, b), c))
        try check("a / (b * c)", E.f(.divide, a, E.f(.multiply, b, c)))
        try check("a ** b ** c", E.f(.raise, a, E.f(.raise, b, c)))
        try check("(a ** b) ** c", E.f(.raise, E.f(.raise, a, b), c))
        try check("a * b ** 2", E.f(.multiply, a, E.f(.raise, b, E.c(2))))
        try check("2*3+4", E.f(.add, E.f(.multiply, E.c(2), E.c(3)), E.c(4)), prints: "2 * 3 + 4")
        try check("((a))", a, prints: "a")
    }

    @Test func unaryMinusBindsTighterThanPower() throws {
        let x = E.k("x")
        try check("-x", E.neg(x))
        try check("0 - x", E.neg(x), prints: "-x")
        try check("-5", E.c(-5))
        try check("- 5", E.c(-5), prints: "-5")
        try check("-2.5", E.c(.double(-2.5)))
        try check("-2 ** 2", E.f(.raise, E.c(-2), E.c(2)))
        try check("-x ** 2", E.f(.raise, E.neg(x), E.c(2)))
        try check("-(x ** 2)", E.neg(E.f(.raise, x, E.c(2))))
        try check("--x", E.neg(E.neg(x)))
        try check("-(a + b)", E.neg(E.f(.add, E.k("a"), E.k("b"))))
        try check("a -5", E.f(.subtract, E.k("a"), E.c(5)), prints: "a - 5")
        try check("a - -5", E.f(.subtract, E.k("a"), E.c(-5)))
        try check("2 ** -1", E.f(.raise, E.c(2), E.c(-1)))
        try check("-9223372036854775808", E.c(.integer(.min)))
        try check("- 9223372036854775808", E.c(.integer(.min)), prints: "-9223372036854775808")
        try check("9223372036854775808", E.c(.double(9223372036854775808.0)), prints: "9.223372036854776e+18")
        try check("a - 9223372036854775808", E.f(.subtract, E.k("a"), E.c(.double(9223372036854775808.0))),
                  prints: "a - 9.223372036854776e+18")
        // 0 - 5 built in code is not the constant -5, so it prints as written.
        try check("0 - 5", E.f(.subtract, E.c(0), E.c(5)))
        try check("0 - -5", E.f(.subtract, E.c(0), E.c(-5)))
    }

    @Test func functionsTakeFoundationsNamesAndBareNames() throws {
        let items = E.k("items")
        try check("sum:(items)", E.f(.sum, items))
        try check("sum(items)", E.f(.sum, items), prints: "sum:(items)")
        try check("SUM(items)", E.f(.sum, items), prints: "sum:(items)")
        try check("add:to:(a, 2)", E.f(.add, E.k("a"), E.c(2)), prints: "a + 2")
        try check("modulus:by:(a, 3)", E.f(.modulus, E.k("a"), E.c(3)))
        try check("raise:toPower:(2, 10)", E.f(.raise, E.c(2), E.c(10)), prints: "2 ** 10")
        try check("now()", E.f(.now))
        try check("NOW()", E.f(.now), prints: "now()")
        try check("random()", E.f(.random))
        try check("random:(10)", E.f(.randomBelow, E.c(10)))
        try check("random(10)", E.f(.randomBelow, E.c(10)), prints: "random:(10)")
        try check("MAX(1, 5, 10)", E.f(.max, .collection([E.c(1), E.c(5), E.c(10)])), prints: "max:({1, 5, 10})")
        try check("max:({1, 5, 10})", E.f(.max, .collection([E.c(1), E.c(5), E.c(10)])))
        try check("bitwiseAnd:with:(a, 0xFF)", E.f(.bitwiseAnd, E.k("a"), E.c(255)), prints: "bitwiseAnd:with:(a, 255)")
        try check("leftshift:by:(a, 2)", E.f(.leftShift, E.k("a"), E.c(2)))
        try check("onesComplement:(a)", E.f(.onesComplement, E.k("a")))
        try check("uppercase:(name)", E.f(.uppercase, E.k("name")))
        try check("lowercase(name)", E.f(.lowercase, E.k("name")), prints: "lowercase:(name)")
        try check("length:(name)", E.f(.length, E.k("name")))
        try check("noindex:(name)", E.f(.noIndex, E.k("name")))
        try check("average:(employees.salary)", E.f(.average, E.k("employees.salary")))
        try check("stddev:(x)", E.f(.standardDeviation, E.k("x")))
        try check("sqrt:(16) + abs:(-3)", E.f(.add, E.f(.squareRoot, E.c(16)), E.f(.absoluteValue, E.c(-3))))
        try check("sum:(employees.salary) * 2", E.f(.multiply, E.f(.sum, E.k("employees.salary")), E.c(2)))
        try check("count:(SELF.items)", E.f(.count, items), prints: "count:(items)")
        // Functions are recognized by the '(' after them: keys may share their names.
        try check("sum + now", E.f(.add, E.k("sum"), E.k("now")))
        // Every function prints in a form that reparses.
        for function in FetchFunction.allCases {
            let arguments = (0..<function.argumentCount).map { E.k("a\($0)") }
            let tree = FetchExpression.function(function, function == .castObject ? [E.k("a"), E.c("NSString")] : arguments)
            #expect(try FetchExpression(format: tree.predicateFormat) == tree, "\(function)")
        }
    }

    @Test func ternaryCastAndAggregates() throws {
        let condition = FetchPredicate.comparison(FetchComparison(E.k("f"), .equalTo, E.c(true)))
        try check("TERNARY(f == YES, 1, 0)", .conditional(condition, then: E.c(1), else: E.c(0)),
                  prints: "TERNARY(f == TRUE, 1, 0)")
        try check("ternary(f == TRUE, a + 1, -a)", .conditional(condition, then: E.f(.add, E.k("a"), E.c(1)), else: E.neg(E.k("a"))),
                  prints: "TERNARY(f == TRUE, a + 1, -a)")
        try check("CAST(salary, \"NSString\")", E.f(.castObject, E.k("salary"), E.c("NSString")))
        try check("CAST(a + 1, 'NSNumber')", E.f(.castObject, E.f(.add, E.k("a"), E.c(1)), E.c("NSNumber")),
                  prints: "CAST(a + 1, \"NSNumber\")")
        try check("CAST(\"5\", \"NSNumber\")", E.c(5), prints: "5")
        try check("CAST(5, \"NSString\")", E.c("5"), prints: "\"5\"")
        try check("CAST((5), \"NSDate\")", E.f(.castObject, E.c(5), E.c("NSDate")))
        try check("CAST(1.5, \"NSDate\")", E.c(.date(Date(timeIntervalSinceReferenceDate: 1.5))))
        try check("{a + 1, sum:(b), 3}", .collection([E.f(.add, E.k("a"), E.c(1)), E.f(.sum, E.k("b")), E.c(3)]))
        try check("{1, 2}.@count", .collectionOperator(.count, of: .collection([E.c(1), E.c(2)]), key: nil))
    }

    @Test func subscriptsAndKeyPathsAfterThem() throws {
        try check("SELF[FIRST]", .index(.evaluatedObject, .first))
        try check("items[LAST]", .index(E.k("items"), .last))
        try check("items[size]", .index(E.k("items"), .size), prints: "items[SIZE]")
        try check("(SELF.g)[0]", .index(E.k("g"), .at(E.c(0))), prints: "g[0]")
        try check("SELF['key']", .index(.evaluatedObject, .at(E.c("key"))), prints: "SELF[\"key\"]")
        try check("items[0].name", .keyPath("name", on: .index(E.k("items"), .at(E.c(0)))))
        try check("items[n + 1][SIZE]", .index(.index(E.k("items"), .at(E.f(.add, E.k("n"), E.c(1)))), .size))
        try check("items[#first]", .index(E.k("items"), .at(E.k("first"))))
        try check("$list[LAST]", .index(.variable("list"), .last))
        try check("(a + b)[0]", .index(E.f(.add, E.k("a"), E.k("b")), .at(E.c(0))))
        try check("(\"abc\").length", .keyPath("length", on: E.c("abc")))
        try check("(a).b", .keyPath("b", on: E.k("a")))
        try check("sum:(x).y", .keyPath("y", on: E.f(.sum, E.k("x"))))
        try check("b.length", E.k("b.length"))
        try check("first + size", E.f(.add, E.k("first"), E.k("size")))
    }

    @Test func expressionsStandWhereverOperandsDo() throws {
        func cmp(_ l: FetchExpression, _ op: FetchComparison.Operator, _ r: FetchExpression) -> FetchPredicate {
            .comparison(FetchComparison(l, op, r))
        }
        #expect(try FetchPredicate(format: "a + 2 == 4") == cmp(E.f(.add, E.k("a"), E.c(2)), .equalTo, E.c(4)))
        #expect(try FetchPredicate(format: "sum:(employees.salary) > 10") == cmp(E.f(.sum, E.k("employees.salary")), .greaterThan, E.c(10)))
        #expect(try FetchPredicate(format: "sum(a) == 3") == cmp(E.f(.sum, E.k("a")), .equalTo, E.c(3)))
        #expect(try FetchPredicate(format: "b.length == 5") == cmp(E.k("b.length"), .equalTo, E.c(5)))
        #expect(try FetchPredicate(format: "(a + 1) * 2 > 3") == cmp(E.f(.multiply, E.f(.add, E.k("a"), E.c(1)), E.c(2)), .greaterThan, E.c(3)))
        #expect(try FetchPredicate(format: "(a) == 1 AND (b == 2)") == .and([cmp(E.k("a"), .equalTo, E.c(1)), cmp(E.k("b"), .equalTo, E.c(2))]))
        #expect(try FetchPredicate(format: "((a + 1)) BETWEEN {1, 2}") == cmp(E.f(.add, E.k("a"), E.c(1)), .between, .collection([E.c(1), E.c(2)])))
        #expect(try FetchPredicate(format: "a * %@ > %d", 1.5, 3) == cmp(E.f(.multiply, E.k("a"), E.c(.double(1.5))), .greaterThan, E.c(3)))
        #expect(try FetchPredicate(format: "%K + 1 == $x", .key("a")) == cmp(E.f(.add, E.k("a"), E.c(1)), .equalTo, .variable("x")))
        #expect(try FetchPredicate(format: "name CONTAINS[c] -5") == .comparison(FetchComparison(E.k("name"), .contains, E.c(-5), options: .caseInsensitive)))
        #expect(try FetchPredicate(format: "a ==[c] -9223372036854775808") == .comparison(FetchComparison(E.k("a"), .equalTo, E.c(.integer(.min)), options: .caseInsensitive)))
        let ternary = try FetchPredicate(format: "TERNARY(f == YES, 1, 0) == 1")
        #expect(ternary.predicateFormat == "TERNARY(f == TRUE, 1, 0) == 1")
        let printed = try FetchPredicate(format: "(a+1)*2>3 AND (b==1 OR c==2)").predicateFormat
        #expect(printed == "(a + 1) * 2 > 3 AND (b == 1 OR c == 2)")
        #expect(try FetchPredicate(format: printed) == FetchPredicate(format: "(a+1)*2>3 AND (b==1 OR c==2)"))
    }

    @Test func localeAndNormalizedOptionsParseInAnyOrder() throws {
        let cases: [(String, FetchComparison.Options, String)] = [
            ("[l]", .localeSensitive, "[l]"), ("[n]", .normalized, "[n]"),
            ("[cdl]", [.caseInsensitive, .diacriticInsensitive, .localeSensitive], "[cdl]"),
            ("[ldc]", [.caseInsensitive, .diacriticInsensitive, .localeSensitive], "[cdl]"),
            ("[NC]", [.caseInsensitive, .normalized], "[cn]"),
        ]
        for (suffix, options, printed) in cases {
            let predicate = try FetchPredicate(format: "a CONTAINS\(suffix) 'x'")
            #expect(predicate == .comparison(FetchComparison(E.k("a"), .contains, E.c("x"), options: options)), "\(suffix)")
            #expect(predicate.predicateFormat == "a CONTAINS\(printed) \"x\"")
            #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate)
        }
    }

    @Test func expressionInitializersTakeArguments() throws {
        #expect(try FetchExpression(format: "salary * %@", 1.1) == E.f(.multiply, E.k("salary"), E.c(.double(1.1))))
        #expect(try FetchExpression(format: "%K + %d", argumentArray: [.key("a.b"), 2]) == E.f(.add, E.k("a.b"), E.c(2)))
        #expect(throws: StrataError.self) { try FetchExpression(format: "a + %d") }
        #expect(throws: StrataError.self) { try FetchExpression(format: "a", 1) }
        #expect(throws: StrataError.self) { try FetchExpression(format: "a == 1") }
    }
}
