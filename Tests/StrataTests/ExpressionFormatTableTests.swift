import Foundation
import Testing
@testable import Strata

/// Format strings with the values Apple's NSExpression and NSPredicate documentation gives
/// them (arithmetic precedence, integer and floating division, functions in both call
/// forms, string functions on non-ASCII text), where Strata's rule differs from
/// Foundation's the value of docs/PREDICATES.md §3a. The expected values are literal.
@Suite struct ExpressionFormatTableTests {
    let f = PredicateFixture()
    /// A row with a non-ASCII name, a decimal and a NULL.
    let row = PredicateRow(["a": 2, "name": "Straße", "emoji": "👍🏽", "salary": 52_000, "rate": 1.5,
                            "price": .decimal(Decimal(string: "2.50", locale: nil)!), "missing": nil,
                            "hired": .date(Date(timeIntervalSinceReferenceDate: 100))])

    static let values: [(String, PropertyValue)] = [
        // Precedence and associativity: * / before + -, left to right.
        ("2 + 3 * 4", 14), ("(2 + 3) * 4", 20), ("10 - 4 - 3", 3), ("2 * 3 + 4 / 2", 8.0),
        ("-a + 5", 3), ("2 ** 3 * 2", 16.0), ("2 ** 3 ** 2", 512.0), ("-2 ** 2", 4.0),
        // Division: always floating (NSExpression: 3 / 2 is 1.5); by zero NULL.
        ("3 / 2", 1.5), ("7 / 7", 1.0), ("3.0 / 2", 1.5), ("1 / 0", nil), ("modulus:by:(10, 4)", 2),
        ("modulus:by:(-7, 3)", -1),
        // Decimals stay exact with integers.
        ("price * 2", .decimal(Decimal(string: "5", locale: nil)!)), ("price + 0.5", 3.0),
        // NULL propagates.
        ("missing + 1", nil), ("a * missing", nil), ("sqrt:(missing)", nil), ("uppercase:(missing)", nil),
        // Arithmetic by function name, both call forms.
        ("add:to:(1, 2)", 3), ("from:subtract:(5, 2)", 3), ("multiply:by:(3, 4)", 12),
        ("divide:by:(10, 4)", 2.5), ("raise:toPower:(2, 8)", 256.0), ("2 ** 8", 256.0),
        ("sqrt:(16)", 4.0), ("sqrt(16)", 4.0), ("log:(100)", 2.0), ("ln:(1)", 0.0), ("exp:(0)", 1.0),
        ("abs:(-3)", 3), ("floor:(2.7)", 2.0), ("ceiling:(2.1)", 3.0), ("trunc:(-2.7)", -2.0),
        ("sqrt:(-1)", nil), ("MAX(1, 5, 10)", 10), ("UPPERCASE(name)", "STRASSE"), ("modulus(10, 3)", 1),
        ("bitwiseAnd:with:(12, 10)", 8), ("bitwiseOr:with:(12, 10)", 14), ("bitwiseXor:with:(12, 10)", 6),
        ("leftshift:by:(1, 3)", 8), ("rightshift:by:(16, 2)", 4), ("onesComplement:(0)", -1),
        // Aggregates over literal collections.
        ("sum:({1, 2, 3})", 6), ("count:({1, 2, 3})", 3), ("min:({3, 1, 2})", 1), ("max:({3, 1, 2})", 3),
        ("average:({1, 2, 3, 4})", 2.5), ("median:({1, 2, 3, 4, 5})", 3.0),
        ("stddev:({2, 4, 4, 4, 5, 5, 7, 9})", 2.0), ("sum:({1, nil, 2})", 3), ("average:({})", nil),
        // Strings: Unicode mappings, UTF-16 lengths.
        ("uppercase:('straße')", "STRASSE"), ("lowercase:('ÀÉÎ')", "àéî"), ("uppercase:(name)", "STRASSE"),
        ("length:('😀')", 2), ("name.length", 6), ("emoji.length", 4), ("length:(name)", 6),
        // TERNARY, CAST, subscripts, now, noindex.
        ("TERNARY(salary > 100, 'high', 'low')", "high"), ("TERNARY(missing > 1, 'yes', 'no')", "no"),
        ("CAST('42', 'NSNumber')", 42), ("CAST(salary, 'NSString')", "52000"),
        ("CAST(hired, 'NSNumber')", 100.0), ("CAST(0, 'NSDate')", .date(Date(timeIntervalSinceReferenceDate: 0))),
        ("hired + 60", .date(Date(timeIntervalSinceReferenceDate: 160))),
        ("{10, 20, 30}[FIRST]", 10), ("{10, 20, 30}[LAST]", 30), ("{10, 20, 30}[SIZE]", 3),
        ("{10, 20, 30}[1]", 20), ("{10, 20, 30}[3]", nil), ("SELF['name']", "Straße"),
        ("noindex:(salary)", 52_000),
    ]

    @Test func formatStringsEvaluateToTheDocumentedValues() throws {
        for (format, expected) in Self.values {
            let expression = try FetchExpression(format: format)
            #expect(try expression.value(with: row) == expected, "\(format)")
            // Printed back and parsed again, it is the same tree with the same value.
            let reparsed = try FetchExpression(format: expression.predicateFormat)
            #expect(reparsed == expression, "\(format) printed as \(expression.predicateFormat)")
            #expect(try reparsed.value(with: row) == expected, "\(format) printed as \(expression.predicateFormat)")
        }
    }

    static let predicates: [(String, Bool)] = [
        ("a + 2 == 4", true), ("salary * 1.1 > 57000", true), ("3 / 2 == 1.5", true), ("4 / 2 == 2", true),
        ("-salary < 0", true), ("salary / 0 == nil", true), ("missing + 1 == nil", true), ("missing + 1 != 1", false),
        ("name.length == 6", true), ("uppercase:(name) == 'STRASSE'", true), ("name CONTAINS[cdl] 'STRAS'", true),
        ("'ell' IN 'hello'", true), ("'ELL' IN[c] 'hello'", true), ("'ELL' IN 'hello'", false),
        ("'a' <[l] 'B'", true), ("'a' < 'B'", false), ("'e\u{301}' ==[n] 'é'", false),
        ("TERNARY(salary > 100, YES, NO) == YES", true), ("CAST(hired, 'NSNumber') == 100", true),
        ("now() > CAST(0, 'NSDate')", true), ("hired + 60 > hired", true), ("sum:({1, 2}) == 3", true),
    ]

    @Test func formatPredicatesMatchAsDocumented() throws {
        for (format, expected) in Self.predicates {
            let predicate = try FetchPredicate(format: format)
            #expect(try predicate.evaluate(with: row) == expected, "\(format)")
            let reparsed = try FetchPredicate(format: predicate.predicateFormat)
            #expect(reparsed == predicate, "\(format) printed as \(predicate.predicateFormat)")
        }
    }

    static let graphPredicates: [(String, Bool)] = [
        ("sum:(employees.salary) == 52010", true), ("count:(employees.salary) == 2", true),
        ("employees[SIZE] == 3", true), ("max:(employees.salary) == 52000", true),
        ("average:(employees.salary) == 26005", true), ("employees[0].name == 'Quinn'", true),
        ("employees[LAST].salary == nil", true), ("employees.@sum.salary + 1 == 52011", true),
    ]

    @Test func aggregatesAndSubscriptsOverAToMany() throws {
        for (format, expected) in Self.graphPredicates {
            #expect(try FetchPredicate(format: format).evaluate(with: f.sales) == expected, "\(format)")
        }
        #expect(try FetchExpression(format: "(SELF.employees)[1]").value(with: f.sales) == .object(f.ann.objectID!))
        #expect(try FetchExpression(format: "mode:({1, 2, 2, 3, 3})").values(with: nil) == [2, 3])
    }

    @Test func errorsNameTheOperatorAndTheKinds() {
        let cases: [(String, String)] = [
            ("name + 1", "+ needs numbers (or a date and a number of seconds), not a string and an integer"),
            ("sqrt:(name)", "sqrt: needs a number, not a string"),
            ("CAST(name, 'NSNumber')", "cannot CAST \"Straße\" to NSNumber"),
            ("salary * 9223372036854775807", "integer overflow in 52000 * 9223372036854775807"),
        ]
        for (format, message) in cases {
            do {
                _ = try FetchExpression(format: format).value(with: row)
                Issue.record("\(format) evaluated")
            } catch {
                #expect((error as? StrataError)?.message == message, "\(format)")
            }
        }
    }
}
