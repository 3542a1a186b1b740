import Foundation
import Testing
@testable import Strata

/// Expressions pushed down to SQL (docs/SQL.md §2b): each case runs against a real SQLite
/// snapshot with no residual, and its rows are checked against a value stated here in Swift
/// (not the evaluator), so the SQL is right on its own.
@Suite struct SQLExpressionPushdown {
    let dataset: SQLTestDataset
    let translator: SQLPredicateTranslator

    init() throws {
        dataset = try SQLTestDataset(seed: 42)
        translator = SQLPredicateTranslator(schema: dataset.schema, storeTag: SQLTestDataset.storeTag)
    }

    typealias Record = SQLTestDataset.Record

    static func key(_ path: String) -> FetchExpression { .keyPath(path) }
    static func call(_ function: FetchFunction, _ arguments: FetchExpression...) -> FetchExpression { .function(function, arguments) }
    static func compare(_ lhs: FetchExpression, _ op: FetchComparison.Operator, _ rhs: PropertyValue,
                        options: FetchComparison.Options = []) -> FetchPredicate {
        .comparison(FetchComparison(lhs, op, .constant(rhs), options: options))
    }

    func integer(_ record: Record, _ key: String) -> Int64? {
        if case .integer(let value)? = record.values[key] { return value }
        return nil
    }

    func string(_ record: Record, _ key: String) -> String? {
        if case .string(let value)? = record.values[key] { return value }
        return nil
    }

    /// Runs the predicate on Employee and checks: no residual, the rows the filter names.
    func check(_ predicate: FetchPredicate, entity: String = "Employee", _ filter: (Int64, Record) -> Bool,
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let described = entity.isEmpty ? "" : entity
        let target = dataset.model.entitiesByName[entity] ?? dataset.employee
        let request = StoreFetchRequest(entity: target, predicate: predicate, sortDescriptors: [], fetchLimit: 0, fetchOffset: 0)
        let (keys, plan) = try dataset.actual(request, translator: translator)
        #expect(plan.residual == nil, "\(described) \(predicate.predicateFormat): residual \(String(describing: plan.residual))",
                sourceLocation: sourceLocation)
        let expected = dataset.keys(of: target).filter { key in dataset.records[key].map { filter(key, $0) } ?? false }
        #expect(keys == expected, "\(predicate.predicateFormat)\nSQL: \(plan.select)", sourceLocation: sourceLocation)
        #expect(!expected.isEmpty || predicate == .constant(false), "\(predicate.predicateFormat) selects nothing: a weak case",
                sourceLocation: sourceLocation)
    }

    @Test func integerArithmeticIsCheckedAndDivisionGivesADouble() throws {
        try check(Self.compare(Self.call(.multiply, Self.key("salary"), .constant(2)), .greaterThan, .integer(10_000))) { _, r in
            (integer(r, "salary") ?? .min / 4) * 2 > 10_000
        }
        try check(Self.compare(Self.call(.add, Self.key("salary"), .constant(1)), .equalTo, .integer(5001))) { _, r in
            integer(r, "salary") == 5000
        }
        // Foundation: 5000 / 2 is 2500.0, and 5 / 2 is 2.5, not 2.
        try check(Self.compare(Self.call(.divide, Self.key("salary"), .constant(2)), .equalTo, .double(2500))) { _, r in
            integer(r, "salary") == 5000
        }
        try check(Self.compare(Self.call(.divide, .constant(5), .constant(2)), .equalTo, .double(2.5))) { _, _ in true }
        try check(Self.compare(Self.call(.modulus, Self.key("salary"), .constant(3)), .equalTo, .integer(2))) { _, r in
            integer(r, "salary").map { $0 % 3 == 2 } ?? false
        }
        // Unary minus is 0 - x; -(-5) is 5.
        try check(Self.compare(Self.call(.subtract, .constant(0), Self.key("salary")), .equalTo, .integer(5))) { _, r in
            integer(r, "salary") == -5
        }
        // 2^53 + 1 stays exact (an integer, not a double), and an overflow is not a REAL.
        let exact = try dataset.connection.prepare("SELECT strata_apply('from:subtract:', 'ii', 9007199254740993, 1)").rows()
        #expect(exact.first == [.integer(9_007_199_254_740_992)])
        #expect(throws: StrataError.self) {
            try dataset.connection.prepare("SELECT strata_apply('add:to:', 'ii', 9223372036854775807, 1)").rows()
        }
    }

    @Test func divisionByZeroIsNull() throws {
        try check(Self.compare(Self.call(.divide, Self.key("salary"), .constant(0)), .equalTo, .null)) { _, _ in true }
        try check(Self.compare(Self.call(.modulus, Self.key("salary"), .constant(0)), .equalTo, .null)) { _, _ in true }
        try check(Self.compare(Self.call(.add, Self.key("salary"), .constant(.null)), .equalTo, .null)) { _, _ in true }
    }

    @Test func anIntegerOverflowIsTheEvaluatorsErrorNotAWrappedOrRealValue() throws {
        let predicate = Self.compare(Self.call(.multiply, Self.key("salary"), .constant(.integer(Int64.max))), .greaterThan, .integer(0))
        let request = StoreFetchRequest(entity: dataset.employee, predicate: predicate, sortDescriptors: [], fetchLimit: 0, fetchOffset: 0)
        #expect(try translator.plan(for: request).residual == nil)
        let error = #expect(throws: StrataError.self) { try dataset.actual(request, translator: translator) }
        #expect(error?.code == .predicateEvaluation)
        #expect(error?.message.contains("integer overflow") == true, "\(String(describing: error))")
    }

    @Test func doublesDecimalsAndDates() throws {
        try check(Self.compare(Self.call(.multiply, Self.key("rating"), .constant(2)), .greaterThan, .double(3))) { _, r in
            if case .double(let x)? = r.values["rating"] { return x * 2 > 3 }
            return false
        }
        // Decimals stay exact: 0.1 + 0.2 == 0.3 (as doubles it is not).
        try check(Self.compare(Self.call(.add, Self.key("bonus"), .constant(.decimal(Decimal(string: "0.2")!))), .equalTo,
                               .decimal(Decimal(string: "0.3")!))) { _, r in
            if case .decimal(let d)? = r.values["bonus"] { return d == Decimal(string: "0.1")! }
            return false
        }
        try check(Self.compare(Self.call(.add, Self.key("startDate"), .constant(86_400)), .greaterThan,
                               .date(Date(timeIntervalSinceReferenceDate: 100_000)))) { _, r in
            if case .date(let d)? = r.values["startDate"] { return d.timeIntervalSinceReferenceDate + 86_400 > 100_000 }
            return false
        }
        // date - date is seconds.
        try check(Self.compare(Self.call(.subtract, Self.key("startDate"), .constant(.date(Date(timeIntervalSinceReferenceDate: 0)))),
                               .equalTo, .double(86_400.5))) { _, r in
            r.values["startDate"] == .date(Date(timeIntervalSinceReferenceDate: 86_400.5))
        }
        try check(Self.compare(Self.call(.raise, Self.key("salary"), .constant(2)), .equalTo, .double(25_000_000))) { _, r in
            integer(r, "salary") == 5000
        }
        try check(Self.compare(Self.call(.absoluteValue, Self.key("salary")), .equalTo, .integer(5))) { _, r in
            integer(r, "salary") == -5
        }
        try check(Self.compare(Self.call(.floor, Self.key("rating")), .equalTo, .double(-3))) { _, r in
            r.values["rating"] == .double(-2.25)
        }
    }

    @Test func stringFunctionsAreFoundationsOnNonASCIIText() throws {
        // Foundation's full case mapping, which SQLite's upper() does not do.
        try check(Self.compare(Self.call(.uppercase, Self.key("lastName")), .equalTo, .string("MÜLLER"))) { _, r in
            string(r, "lastName").map { $0 == "Müller" || $0 == "MÜLLER" } ?? false
        }
        try check(Self.compare(Self.call(.lowercase, Self.key("firstName")), .equalTo, .string("ångström"))) { _, r in
            string(r, "firstName") == "Ångström"
        }
        // UTF-16 length: "E\u{301}mile" is 6 code units (SQLite's length() says 6 characters
        // too, but "Zoë" precomposed is 3 and the Kelvin sign is 1 unit: both agree here;
        // the registered function is checked on emoji below).
        try check(Self.compare(Self.key("firstName.length"), .equalTo, .integer(6))) { _, r in
            string(r, "firstName").map { $0.utf16.count == 6 } ?? false
        }
        try check(Self.compare(Self.call(.length, Self.key("lastName")), .greaterThan, .integer(8))) { _, r in
            string(r, "lastName").map { $0.utf16.count > 8 } ?? false
        }
        let values = try dataset.connection.prepare("SELECT strata_apply('uppercase:', 's', 'straße'), strata_apply('length:', 's', '👍🏽')").rows()
        #expect(values.first == [.text("STRASSE"), .integer(4)])
    }

    @Test func ternarySubscriptsCastsAndInWithAString() throws {
        try check(Self.compare(.conditional(Self.compare(Self.key("active"), .equalTo, .boolean(true)),
                                            then: Self.key("salary"), else: .constant(0)), .greaterThan, .integer(1000))) { _, r in
            r.values["active"] == .boolean(true) && (integer(r, "salary") ?? 0) > 1000
        }
        try check(Self.compare(.index(.collection([.constant(1), .constant(2), .constant(3)]), .size), .equalTo, .integer(3))) { _, _ in true }
        try check(Self.compare(.index(.collection([Self.key("salary"), .constant(7)]), .first), .equalTo, .integer(5000))) { _, r in
            integer(r, "salary") == 5000
        }
        try check(Self.compare(.index(.evaluatedObject, .at(.constant(.string("salary")))), .equalTo, .integer(5000))) { _, r in
            integer(r, "salary") == 5000
        }
        try check(Self.compare(.index(Self.key("projects"), .size), .greaterThan, .integer(1))) { _, r in r.projects.count > 1 }
        try check(Self.compare(Self.call(.castObject, Self.key("startDate"), .constant(.string("NSNumber"))), .equalTo, .double(86_400.5))) { _, r in
            r.values["startDate"] == .date(Date(timeIntervalSinceReferenceDate: 86_400.5))
        }
        // 'ui' IN lastName: Foundation's substring test.
        try check(.comparison(FetchComparison(.constant(.string("UI")), .in, Self.key("lastName"), options: .caseInsensitive))) { _, r in
            string(r, "lastName").map { $0.lowercased().contains("ui") } ?? false
        }
    }

    @Test func aggregateFunctionsOverToManysAreCorrelatedSubqueries() throws {
        func reports(_ key: Int64) -> [Int64] { dataset.related(key, "directReports").compactMap { dataset.records[$0].flatMap { integer($0, "salary") } } }
        try check(Self.compare(Self.call(.sum, Self.key("directReports.salary")), .greaterThan, .integer(5000))) { key, _ in
            reports(key).reduce(0, +) > 5000
        }
        try check(Self.compare(Self.call(.count, Self.key("directReports.salary")), .equalTo, .integer(2))) { key, _ in
            reports(key).count == 2
        }
        try check(Self.compare(Self.call(.max, Self.key("directReports.salary")), .greaterThanOrEqualTo, .integer(52_000))) { key, _ in
            (reports(key).max() ?? 0) >= 52_000
        }
        try check(Self.compare(Self.call(.median, Self.key("directReports.salary")), .greaterThan, .double(1000))) { key, _ in
            let sorted = reports(key).sorted()
            guard !sorted.isEmpty else { return false }
            let middle = sorted.count / 2
            let median = sorted.count % 2 == 1 ? Double(sorted[middle]) : (Double(sorted[middle - 1]) + Double(sorted[middle])) / 2
            return median > 1000
        }
        // Doubles go to Swift as text: a NULL rating must stay out of the list (printf would make it 0.0).
        try check(Self.compare(Self.call(.average, Self.key("directReports.rating")), .lessThan, .double(0.5))) { key, _ in
            let ratings = dataset.related(key, "directReports").compactMap { report -> Double? in
                if case .double(let x)? = dataset.records[report]?.values["rating"] { return x }
                return nil
            }
            return !ratings.isEmpty && ratings.reduce(0, +) / Double(ratings.count) < 0.5
        }
        try check(Self.compare(Self.call(.standardDeviation, Self.key("directReports.salary")), .equalTo, .double(0))) { key, _ in
            !reports(key).isEmpty && Set(reports(key)).count == 1
        }
    }

    @Test func localeAndNormalizedOptionsUseTheEvaluatorsComparison() throws {
        let options: FetchComparison.Options = [.caseInsensitive, .localeSensitive, .normalized]
        try check(Self.compare(Self.key("lastName"), .lessThan, .string("m"), options: options)) { _, r in
            string(r, "lastName").map { PredicateValueRules.localeCompare($0, "m", options: options) < 0 } ?? false
        }
        try check(Self.compare(Self.key("lastName"), .beginsWith, .string("q"), options: options)) { _, r in
            string(r, "lastName").map { PredicateText.beginsWith($0, "q", options: options) } ?? false
        }
    }

    /// What SQL cannot compute with the evaluator's exact value stays in memory.
    @Test func orderDependentRandomAndMixedKindExpressionsAreResidual() throws {
        let residual: [FetchPredicate] = [
            Self.compare(.index(Self.key("projects"), .first), .equalTo, .null),  // a set has no order in SQL
            Self.compare(Self.call(.random), .lessThan, .double(2)),
            Self.compare(.conditional(.constant(true), then: Self.key("salary"), else: Self.key("lastName")), .equalTo, .integer(1)),
            Self.compare(Self.call(.mode, Self.key("directReports.salary")), .contains, .integer(1)),
            Self.compare(Self.call(.add, Self.key("lastName"), .constant(1)), .equalTo, .integer(1)),
            // A decimal power for an integer exponent up to 9,999: only a constant says which.
            Self.compare(Self.call(.raise, Self.key("bonus"), Self.key("salary")), .equalTo, .integer(1)),
        ]
        for predicate in residual {
            let request = StoreFetchRequest(entity: dataset.employee, predicate: .and([Self.compare(Self.key("salary"), .greaterThan, .integer(0)), predicate]),
                                            sortDescriptors: [], fetchLimit: 0, fetchOffset: 0)
            let plan = try translator.plan(for: request)
            #expect(plan.residual == predicate, "\(predicate.predicateFormat)")
            #expect(plan.select.sql.contains("\"salary\" > "), "the other conjunct is still SQL: \(plan.select.sql)")
        }
    }
}
