import Foundation
import Testing
@testable import Strata

/// Expressions built in code and evaluated in memory: one test per construct of
/// docs/PREDICATES.md's "Expressions" table.
@Suite struct ExpressionEvaluationTests {
    let f = PredicateFixture()

    private func value(_ expression: FetchExpression, _ subject: (any PredicateSubject)? = nil) throws -> PropertyValue {
        try expression.value(with: subject)
    }

    private func call(_ function: FetchFunction, _ arguments: PropertyValue...) throws -> PropertyValue {
        try value(.function(function, arguments.map(FetchExpression.constant)))
    }

    /// Constants as expressions.
    private func list(_ values: PropertyValue...) -> [FetchExpression] { values.map(FetchExpression.constant) }

    private func failure(_ expression: FetchExpression, _ subject: (any PredicateSubject)? = nil) -> String? {
        do {
            _ = try expression.value(with: subject)
            return nil
        } catch {
            return (error as? StrataError)?.message
        }
    }

    private func decimal(_ text: String) -> PropertyValue { .decimal(Decimal(string: text, locale: nil)!) }

    @Test func integerArithmeticStaysIntegerAndOverflowIsAnError() throws {
        #expect(try call(.add, 2, 3) == .integer(5))
        #expect(try call(.subtract, 2, 3) == .integer(-1))
        #expect(try call(.multiply, 6, 7) == .integer(42))
        #expect(try call(.add, true, 1) == .integer(2))
        #expect(failure(.function(.multiply, [.constant(.integer(.max)), .constant(2)]))?.contains("integer overflow in 9223372036854775807 * 2") == true)
        #expect(failure(.function(.subtract, [.constant(.integer(.min)), .constant(1)]))?.contains("integer overflow") == true)
    }

    @Test func divisionGivesADoubleAndDivisionByZeroIsNull() throws {
        #expect(try call(.divide, 3, 2) == .double(1.5))
        #expect(try call(.divide, 4, 2) == .double(2))
        #expect(try call(.divide, 1, 0) == .null)
        #expect(try call(.divide, 1.5, 0.0) == .null)
        #expect(try call(.modulus, 7, 0) == .null)
    }

    @Test func modulusHasTheDividendsSign() throws {
        #expect(try call(.modulus, -7, 3) == .integer(-1))
        #expect(try call(.modulus, 7, -3) == .integer(1))
        #expect(try call(.modulus, .integer(.min), -1) == .integer(0))
        #expect(try call(.modulus, 7.5, 2) == .double(1.5))
        #expect(try call(.modulus, decimal("7.5"), 2) == decimal("1.5"))
        #expect(try call(.modulus, decimal("-7.5"), 2) == decimal("-1.5"))
    }

    @Test func decimalsStayExactAndMeetingADoubleGiveADouble() throws {
        #expect(try call(.add, decimal("0.1"), decimal("0.2")) == decimal("0.3"))
        #expect(try call(.multiply, decimal("1.10"), 3) == decimal("3.3"))
        #expect(try call(.divide, decimal("1"), 4) == decimal("0.25"))
        #expect(try call(.multiply, decimal("2"), 1.5) == .double(3))
        #expect(try call(.add, 1, 0.5) == .double(1.5))
    }

    @Test func powersAreDoublesExceptADecimalToAnIntegerPower() throws {
        #expect(try call(.raise, 2, 10) == .double(1024))
        #expect(try call(.raise, 4, 0.5) == .double(2))
        #expect(try call(.raise, -8, 0.5) == .null)
        #expect(try call(.raise, decimal("1.1"), 2) == decimal("1.21"))
        #expect(try call(.raise, decimal("2"), -2) == decimal("0.25"))
    }

    @Test func nullInAnyArgumentGivesNull() throws {
        #expect(try call(.add, nil, 1) == .null)
        #expect(try call(.multiply, 2, nil) == .null)
        #expect(try call(.squareRoot, nil) == .null)
        #expect(try call(.uppercase, nil) == .null)
        #expect(try call(.bitwiseAnd, 1, nil) == .null)
        #expect(try call(.castObject, nil, "NSNumber") == .null)
        #expect(try value(.function(.add, [.key("salary"), .constant(1)]), f.nobody) == .null)
    }

    @Test func datesMoveBySecondsAndSubtractToSeconds() throws {
        let start = PropertyValue.date(Date(timeIntervalSinceReferenceDate: 100))
        #expect(try call(.add, start, 60) == .date(Date(timeIntervalSinceReferenceDate: 160)))
        #expect(try call(.add, 60, start) == .date(Date(timeIntervalSinceReferenceDate: 160)))
        #expect(try call(.subtract, start, 0.5) == .date(Date(timeIntervalSinceReferenceDate: 99.5)))
        #expect(try value(.function(.subtract, [.key("hired"), .keyPath("hired", on: .constant(nil))]), f.ann) == .null)
        #expect(try call(.subtract, .date(Date(timeIntervalSinceReferenceDate: 200)), start) == .double(100))
        #expect(failure(.function(.multiply, [.constant(start), .constant(2)])) == "* needs numbers, not a date and an integer")
        #expect(failure(.function(.add, [.constant("a"), .constant(1)])) == "+ needs numbers (or a date and a number of seconds), not a string and an integer")
    }

    @Test func numericFunctions() throws {
        #expect(try call(.squareRoot, 16) == .double(4))
        #expect(try call(.squareRoot, -1) == .null)
        #expect(try call(.log, 1000) == .double(3))
        #expect(try call(.naturalLogarithm, 0) == .null)
        #expect(try call(.exponential, 0) == .double(1))
        #expect(try call(.absoluteValue, -5) == .integer(5))
        #expect(try call(.absoluteValue, decimal("-2.5")) == decimal("2.5"))
        #expect(try call(.floor, -1.5) == .double(-2))
        #expect(try call(.ceiling, -1.5) == .double(-1))
        #expect(try call(.truncate, -1.5) == .double(-1))
        #expect(try call(.floor, 7) == .integer(7))
        #expect(try call(.floor, decimal("-1.5")) == decimal("-2"))
        #expect(try call(.ceiling, decimal("1.2")) == decimal("2"))
        #expect(try call(.truncate, decimal("-1.7")) == decimal("-1"))
        #expect(failure(.function(.squareRoot, [.constant("x")])) == "sqrt: needs a number, not a string")
        #expect(failure(.function(.absoluteValue, [.constant(.integer(.min))]))?.contains("integer overflow") == true)
    }

    @Test func bitwiseFunctionsTakeIntegers() throws {
        #expect(try call(.bitwiseAnd, 12, 10) == .integer(8))
        #expect(try call(.bitwiseOr, 12, 10) == .integer(14))
        #expect(try call(.bitwiseXor, 12, 10) == .integer(6))
        #expect(try call(.leftShift, 1, 4) == .integer(16))
        #expect(try call(.leftShift, 1, 64) == .integer(0))
        #expect(try call(.rightShift, -16, 2) == .integer(-4))
        #expect(try call(.onesComplement, 0) == .integer(-1))
        #expect(failure(.function(.bitwiseOr, [.constant(1.5), .constant(1)])) == "bitwiseOr:with: needs integers, not a double")
    }

    @Test func stringFunctionsUseUnicodeMappingsAndUTF16Lengths() throws {
        #expect(try call(.uppercase, "straße") == .string("STRASSE"))
        #expect(try call(.lowercase, "İ") == .string("i\u{307}"))
        #expect(try call(.length, "straße") == .integer(6))
        #expect(try call(.length, "👍🏽") == .integer(4))
        #expect(try call(.length, "e\u{301}") == .integer(2))
        #expect(try value(.keyPath("name.length"), f.quinn) == .integer(5))
        #expect(try value(.keyPath("name.length"), f.nobody) == .null)
        #expect(failure(.function(.uppercase, [.constant(5)])) == "uppercase: needs a string, not an integer")
        #expect(failure(.keyPath("salary.length"), f.quinn) == "cannot read key 'length' of an integer value")
    }

    @Test func nowIsOneInstantPerEvaluationAndCanBePinned() throws {
        let now = FetchExpression.function(.now, [])
        #expect(try value(.function(.subtract, [now, now])) == .double(0))
        let before = Date()
        guard case .date(let date) = try value(now) else { Issue.record("now() is not a date"); return }
        #expect(date >= before && date <= Date())
        let pinned = Date(timeIntervalSinceReferenceDate: 1_000)
        let expiry = FetchExpression.function(.add, [now, .constant(60)]).replacingNow(with: pinned)
        #expect(expiry == .function(.add, [.constant(.date(pinned)), .constant(60)]))
        let predicate = try FetchPredicate(format: "hired < %@", .value(.date(pinned)))
        let withNow = FetchPredicate.comparison(FetchComparison(.key("hired"), .lessThan, now)).replacingNow(with: pinned)
        #expect(withNow == predicate)
    }

    @Test func randomNoIndexAndArgumentCounts() throws {
        for _ in 0..<20 {
            guard case .double(let x) = try call(.random) else { Issue.record("random() is not a double"); return }
            #expect(x >= 0 && x < 1)
            guard case .integer(let n) = try call(.randomBelow, 3) else { Issue.record("random:(3) is not an integer"); return }
            #expect((0..<3).contains(n))
        }
        #expect(failure(.function(.randomBelow, [.constant(0)])) == "random:(n) needs a positive integer, not 0")
        #expect(try value(.function(.noIndex, [.key("salary")]), f.quinn) == .integer(52_000))
        #expect(failure(.function(.add, [.constant(1)])) == "add:to: takes 2 arguments, found 1")
    }

    @Test func castConvertsBetweenTheFoundationTypes() throws {
        let zero = PropertyValue.date(Date(timeIntervalSinceReferenceDate: 0))
        #expect(try call(.castObject, "42", "NSNumber") == .integer(42))
        #expect(try call(.castObject, "4.5", "NSNumber") == .double(4.5))
        #expect(try call(.castObject, true, "NSNumber") == .integer(1))
        #expect(try call(.castObject, zero, "NSNumber") == .double(0))
        #expect(try call(.castObject, 86_400, "NSDate") == .date(Date(timeIntervalSinceReferenceDate: 86_400)))
        #expect(try call(.castObject, "0", "NSDate") == zero)
        #expect(try call(.castObject, 1.5, "NSDecimalNumber") == decimal("1.5"))
        #expect(try call(.castObject, 0.1, "NSDecimalNumber") == decimal("0.1"))
        #expect(try call(.castObject, 42, "NSString") == .string("42"))
        #expect(try call(.castObject, zero, "NSString") == .string("2001-01-01 00:00:00 +0000"))
        #expect(try call(.castObject, "00000000-0000-0000-0000-000000000001", "NSUUID")
            == .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!))
        #expect(try call(.castObject, "https://example.com/a", "NSURL") == .uri(URL(string: "https://example.com/a")!))
        #expect(try call(.castObject, "AQI=", "NSData") == .data(Data([1, 2])))
        #expect(failure(.function(.castObject, [.constant("x"), .constant("NSNumber")])) == "cannot CAST \"x\" to NSNumber")
        #expect(failure(.function(.castObject, [.constant(.data(Data())), .constant("NSNumber")])) == "cannot CAST a data value to NSNumber")
        #expect(failure(.function(.castObject, [.constant(1), .constant("NSFoo")]))?.hasPrefix("unknown CAST type \"NSFoo\"") == true)
    }

    @Test func aggregatesIgnoreNulls() throws {
        let salaries = FetchExpression.keyPath("employees.salary")
        #expect(try value(.function(.sum, [salaries]), f.sales) == .integer(52_010))
        #expect(try value(.function(.count, [salaries]), f.sales) == .integer(2))
        #expect(try value(.function(.count, [.key("employees")]), f.sales) == .integer(3))
        #expect(try value(.function(.min, [salaries]), f.sales) == .integer(10))
        #expect(try value(.function(.max, [salaries]), f.sales) == .integer(52_000))
        #expect(try value(.function(.average, [salaries]), f.sales) == .double(26_005))
        #expect(try value(.function(.median, [.collection(list(3, 1, 2))])) == .double(2))
        #expect(try value(.function(.median, [.collection(list(4, 1, 3, 2, nil))])) == .double(2.5))
        #expect(try value(.function(.standardDeviation, [.collection(list(2, 4, 4, 4, 5, 5, 7, 9))])) == .double(2))
        #expect(try value(.function(.min, [.collection(list("b", "a"))])) == .string("a"))
        #expect(try value(.function(.sum, [salaries]), f.empty) == .integer(0))
        #expect(try value(.function(.average, [salaries]), f.empty) == .null)
        #expect(try value(.function(.median, [salaries]), f.empty) == .null)
        #expect(try call(.sum, 5) == .integer(5))
        #expect(try FetchExpression.function(.mode, [.collection(list(1, 2, 2, 3, 3, nil))]).values(with: nil) == [2, 3])
        #expect(try FetchExpression.function(.mode, [.collection([])]).values(with: nil) == [])
        #expect(failure(.function(.sum, [.key("employees")]), f.sales) == "sum: needs values, not objects; name a key path of the objects")
        #expect(failure(.function(.average, [.collection(list("a"))])) == "average: needs numbers, not a string")
        #expect(failure(.function(.add, [salaries, .constant(1)]), f.sales)?.hasPrefix("add:to: needs a single value, not a collection") == true)
    }

    @Test func subscriptsOfCollectionsAndObjects() throws {
        let numbers = FetchExpression.collection(list(10, 20, 30))
        #expect(try value(.index(numbers, .first)) == .integer(10))
        #expect(try value(.index(numbers, .last)) == .integer(30))
        #expect(try value(.index(numbers, .size)) == .integer(3))
        #expect(try value(.index(numbers, .at(.constant(1)))) == .integer(20))
        #expect(try value(.index(numbers, .at(.constant(3)))) == .null)
        #expect(try value(.index(numbers, .at(.constant(-1)))) == .null)
        #expect(try value(.index(.collection([]), .first)) == .null)
        #expect(try value(.index(.key("employees"), .size), f.sales) == .integer(3))
        #expect(try value(.keyPath("name", on: .index(.key("employees"), .at(.constant(1)))), f.sales) == .string("Ann"))
        #expect(try value(.index(.evaluatedObject, .at(.constant("name"))), f.quinn) == .string("Quinn"))
        #expect(try value(.index(.key("manager"), .at(.constant("salary"))), f.empty) == .null)
        #expect(failure(.index(.key("name"), .first), f.quinn) == "the subscript [FIRST] needs a collection (a to-many key path or {…}), not a string")
        #expect(failure(.index(numbers, .at(.constant(1.5)))) == "a subscript needs an integer index or a string key, not a double")
    }

    @Test func ternaryTakesTheElseBranchWhenUnknown() throws {
        let level = FetchExpression.conditional(FetchPredicate.comparison(FetchComparison(.key("salary"), .greaterThan, .constant(100))), then: .constant("high"), else: .constant("low"))
        #expect(try value(level, f.quinn) == .string("high"))
        #expect(try value(level, f.ann) == .string("low"))
        #expect(try value(level, f.nobody) == .string("low"))
        // Only the chosen branch is evaluated: the other would be an error.
        let guarded = FetchExpression.conditional(.constant(true), then: .constant(1), else: .function(.add, [.constant("a"), .constant(1)]))
        #expect(try value(guarded) == .integer(1))
    }

    @Test func valueOfAToManyIsItsObjectIDsAndValueCollectionsAreValues() throws {
        #expect(try value(.key("employees"), f.sales) == .objects([f.quinn.objectID!, f.ann.objectID!, f.nobody.objectID!]))
        #expect(failure(.collection(list(1, 2)))?.hasSuffix("is a collection of values; read it with values(with:variables:)") == true)
        #expect(try FetchExpression.keyPath("employees.salary").values(with: f.sales) == [52_000, 10, nil])
        #expect(try FetchExpression.key("salary").values(with: f.nobody) == [])
        #expect(try FetchExpression.variable("x").value(with: nil, variables: ["x": 3]) == .integer(3))
    }
}

/// The comparison options `[l]` and `[n]`, and IN with a string on its right.
@Suite struct ExpressionComparisonOptionTests {
    private func holds(_ lhs: PropertyValue, _ op: FetchComparison.Operator, _ rhs: PropertyValue,
                       _ options: FetchComparison.Options = []) throws -> Bool {
        try FetchPredicate.comparison(FetchComparison(.constant(lhs), op, .constant(rhs), options: options)).evaluate(with: PredicateRow())
    }

    @Test func localeSensitiveOrderIsTheLocalesCollation() throws {
        #expect(try holds("a", .lessThan, "B") == false)
        #expect(try holds("a", .lessThan, "B", .localeSensitive))
        #expect(try holds("é", .lessThan, "f", .localeSensitive))
        #expect(try holds("é", .lessThan, "f") == false)
        #expect(try holds("e\u{301}", .equalTo, "é", .localeSensitive))
        #expect(try holds("A", .equalTo, "a", [.caseInsensitive, .localeSensitive]))
    }

    @Test func normalizedAddsNoFolding() throws {
        #expect(try holds("abc", .equalTo, "abc", .normalized))
        #expect(try holds("e\u{301}", .equalTo, "é", .normalized) == false)
        #expect(try holds("É", .equalTo, "e", [.caseDiacriticInsensitive, .normalized]))
    }

    @Test func inWithAStringOnTheRightIsASubstring() throws {
        #expect(try holds("ell", .in, "hello"))
        #expect(try holds("ELL", .in, "hello") == false)
        #expect(try holds("ELL", .in, "hello", .caseInsensitive))
        #expect(try holds("é", .in, "cafe", .diacriticInsensitive))
        #expect(try holds(nil, .in, "hello") == false)
        #expect(try holds("x", .in, nil) == false)
        #expect(throws: StrataError.self) { try holds(5, .in, "hello") }
    }
}
