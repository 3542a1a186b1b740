import Foundation
import Testing
@testable import Strata

/// A small object graph: a department with employees, one of whom has a NULL salary.
struct PredicateFixture {
    static let employeeEntity = EntityDescription("Employee")
    static let departmentEntity = EntityDescription("Department")
    static func id(_ entity: EntityDescription, _ key: Int64) -> ManagedObjectID {
        ManagedObjectID(entity: entity, storeTag: 1, primaryKey: key)
    }

    var sales: PredicateRow
    var empty: PredicateRow
    var quinn: PredicateRow
    var ann: PredicateRow
    var nobody: PredicateRow

    init() {
        quinn = PredicateRow(["name": "Quinn", "salary": 52_000, "rate": 1.5, "hired": .date(Date(timeIntervalSinceReferenceDate: 100))],
                             objectID: Self.id(Self.employeeEntity, 1))
        ann = PredicateRow(["name": "Ann", "salary": 10, "rate": 2.5, "hired": .date(Date(timeIntervalSinceReferenceDate: 200))],
                           objectID: Self.id(Self.employeeEntity, 2))
        nobody = PredicateRow(["name": nil, "salary": nil, "rate": nil, "hired": nil], objectID: Self.id(Self.employeeEntity, 3))
        var sales = PredicateRow(["name": "Sales", "budget": .decimal(Decimal(string: "1000.50")!)], objectID: Self.id(Self.departmentEntity, 1))
        sales["employees"] = .objects([quinn, ann, nobody])
        sales["manager"] = .object(quinn)
        sales["parent"] = .object(nil)
        var empty = PredicateRow(["name": "Empty", "budget": nil], objectID: Self.id(Self.departmentEntity, 2))
        empty["employees"] = .objects([])
        empty["manager"] = .object(nil)
        empty["parent"] = .object(sales)
        for index in [0, 1, 2] {
            var employee = [quinn, ann, nobody][index]
            employee["department"] = .object(sales)
            employee["tags"] = .value(.null)
            switch index {
            case 0: quinn = employee
            case 1: ann = employee
            default: nobody = employee
            }
        }
        sales["employees"] = .objects([quinn, ann, nobody])
        self.sales = sales
        self.empty = empty
    }
}

func matches(_ format: String, _ subject: any PredicateSubject, _ arguments: PredicateArgument..., variables: [String: PropertyValue] = [:]) throws -> Bool {
    try FetchPredicate(format: format, argumentArray: arguments).evaluate(with: subject, variables: variables)
}

func evaluationError(_ format: String, _ subject: any PredicateSubject, _ arguments: PredicateArgument...) -> StrataError? {
    do {
        _ = try FetchPredicate(format: format, argumentArray: arguments).evaluate(with: subject)
        return nil
    } catch {
        return error as? StrataError
    }
}

@Suite struct PredicateNullRules {
    let f = PredicateFixture()

    @Test func nullMatchesNeitherEqualNorNotEqualToZero() throws {
        #expect(try !matches("salary == 0", f.nobody))
        #expect(try !matches("salary != 0", f.nobody))
        #expect(try !matches("name == ''", f.nobody))
        #expect(try !matches("name != ''", f.nobody))
        #expect(try !matches("salary < 5 OR salary >= 5", f.nobody))
        #expect(try !matches("name BEGINSWITH ''", f.nobody))
    }

    @Test func equalityWithTheNullLiteralIsAnIsNullTest() throws {
        #expect(try matches("salary == nil", f.nobody))
        #expect(try !matches("salary != nil", f.nobody))
        #expect(try !matches("salary == NULL", f.quinn))
        #expect(try matches("salary != NULL", f.quinn))
        #expect(try matches("nil == salary", f.nobody))
        #expect(try matches("salary == %@", f.nobody, nil))
        #expect(try matches("salary == $V", f.nobody, variables: ["V": .null]))
        #expect(try matches("NULL == NULL", f.nobody))
    }

    @Test func notOfUnknownIsUnknownAndKleeneLogicHolds() throws {
        #expect(try !matches("NOT salary == 0", f.nobody))
        #expect(try !matches("NOT (salary > 0)", f.nobody))
        // UNKNOWN OR TRUE is TRUE; UNKNOWN AND FALSE is FALSE, so its NOT is TRUE.
        #expect(try matches("salary == 0 OR name == nil", f.nobody))
        #expect(try matches("NOT (salary == 0 AND name != nil)", f.nobody))
        // UNKNOWN AND TRUE is UNKNOWN, and so is its NOT.
        #expect(try !matches("NOT (salary == 0 AND name == nil)", f.nobody))
        let p = try FetchPredicate(format: "salary > 1")
        #expect(try p.truth(with: f.nobody) == .unknown)
        #expect(try FetchPredicate.not(p).truth(with: f.nobody) == .unknown)
    }

    @Test func aNullToOneInTheMiddleOfAPathYieldsNull() throws {
        #expect(try matches("parent.name == nil", f.sales))
        #expect(try !matches("parent.name == 'x'", f.sales))
        #expect(try !matches("parent.name != 'x'", f.sales))
        #expect(try matches("parent.employees.@count == 0", f.sales))
        #expect(try matches("parent.name == 'Sales'", f.empty))
    }

    @Test func emptyAndIsTrueAndEmptyOrIsFalse() throws {
        #expect(try FetchPredicate.and([]).evaluate(with: f.quinn))
        #expect(try !FetchPredicate.or([]).evaluate(with: f.quinn))
        #expect(try FetchPredicate(format: "TRUEPREDICATE").evaluate(with: f.quinn))
        #expect(try !FetchPredicate(format: "FALSEPREDICATE").evaluate(with: f.quinn))
    }
}

@Suite struct PredicateValueComparisons {
    let f = PredicateFixture()

    @Test func numbersCompareAcrossIntegerDoubleDecimalAndBoolean() throws {
        #expect(try matches("salary == 52000.0", f.quinn))
        #expect(try matches("salary > 51999.5", f.quinn))
        #expect(try matches("rate < 2", f.quinn))
        #expect(try matches("rate == CAST('1.5', 'NSDecimalNumber')", f.quinn))
        #expect(try matches("budget > 1000 AND budget < 1000.6", f.sales))
        #expect(try matches("budget == CAST('1000.5', 'NSDecimalNumber')", f.sales))
        #expect(try matches("TRUE == 1 AND FALSE < 0.5", f.quinn))
        #expect(try matches("9007199254740993 > 9007199254740992.0", f.quinn))
        #expect(try matches("-9223372036854775808 < -9223372036854775807.0 OR -9223372036854775808 == -9223372036854775808.0", f.quinn))
    }

    @Test func stringsCompareByUTF8BytesNotSwiftOrder() throws {
        // Swift's String < puts "é" (U+00E9) after "z" too, but canonical equivalence makes
        // precomposed and decomposed equal in Swift; by bytes they differ.
        let row = PredicateRow(["pre": "\u{E9}", "de": "e\u{301}", "upper": "Z", "lower": "a"])
        #expect(try !matches("pre == de", row))
        #expect(try matches("pre ==[d] de", row))
        #expect(try matches("upper < lower", row))
        #expect(try matches("de < pre", row))  // 0x65 < 0xC3
        #expect(try matches("'abc' < 'abd' AND 'ab' < 'abc' AND '' < 'a'", row))
        #expect(try matches("'\u{FFFF}' < '\u{10000}'", row))  // UTF-16 order would say the opposite
    }

    @Test func datesCompareByTime() throws {
        #expect(try matches("hired < %@", f.quinn, .value(.date(Date(timeIntervalSinceReferenceDate: 150)))))
        #expect(try matches("hired == CAST(100.0, 'NSDate')", f.quinn))
        #expect(try !matches("hired > CAST(100, 'NSDate')", f.quinn))
    }

    @Test func comparingAStringWithANumberIsAnError() throws {
        let error = evaluationError("name <= 2", f.quinn)
        #expect(error?.code == .predicateEvaluation)
        #expect(error?.message.contains("cannot compare a string with an integer using <=") == true)
        #expect(error?.context.predicate == "name <= 2")
        #expect(evaluationError("name == 2", f.quinn)?.code == .predicateEvaluation)
        #expect(evaluationError("salary BEGINSWITH '5'", f.quinn)?.code == .predicateEvaluation)
        #expect(evaluationError("hired > 5", f.quinn)?.code == .predicateEvaluation)
        #expect(evaluationError("name IN {1, 2}", f.quinn)?.code == .predicateEvaluation)
    }

    @Test func unknownVariablesAreErrorsAndARowsMissingKeyIsNull() throws {
        // A row answers a key it does not have with NULL, as an NSDictionary does.
        #expect(evaluationError("nope == 1", f.quinn) == nil)
        #expect(try matches("nope == nil", f.quinn))
        let error = evaluationError("salary == $MISSING", f.quinn)
        #expect(error?.code == .predicateEvaluation)
        #expect(error?.context.variable == "MISSING")
        #expect(evaluationError("name.first == 1", f.quinn)?.message.contains("cannot read key 'first' of a string") == true)
    }

    @Test func betweenIsInclusiveAtBothEnds() throws {
        #expect(try matches("salary BETWEEN {10, 52000}", f.quinn))
        #expect(try matches("salary BETWEEN {10, 52000}", f.ann))
        #expect(try !matches("salary BETWEEN {11, 51999}", f.ann))
        #expect(try !matches("salary BETWEEN {0, 100}", f.nobody))
        #expect(try !matches("NOT salary BETWEEN {0, 100}", f.nobody))
        #expect(try matches("name BETWEEN {'A', 'B'}", f.ann))
        #expect(try matches("salary BETWEEN %@", f.ann, [5, 10]))
    }

    @Test func inUsesSQLThreeValuedMembership() throws {
        #expect(try matches("salary IN {1, 10, 100}", f.ann))
        #expect(try !matches("salary IN {}", f.nobody))
        #expect(try matches("NOT salary IN {}", f.nobody))  // SQLite: NULL IN () is false, not NULL
        #expect(try !matches("salary IN {1, nil}", f.ann))
        #expect(try !matches("NOT salary IN {1, nil}", f.ann))  // UNKNOWN, not false
        #expect(try matches("NOT salary IN {1, 2}", f.ann))
        #expect(try matches("name IN[c] {'ANN'}", f.ann))
        #expect(try matches("'Ann' IN employees.name", f.sales))
        #expect(try !matches("'Bob' IN employees.name", f.sales))
        #expect(try matches("employees.name CONTAINS 'Quinn'", f.sales))
        #expect(try matches("SELF IN %@", f.ann, .list([.object(PredicateFixture.id(PredicateFixture.employeeEntity, 2))])))
        #expect(try matches("employees CONTAINS %@", f.sales, .object(PredicateFixture.id(PredicateFixture.employeeEntity, 1))))
        #expect(try !matches("employees CONTAINS %@", f.empty, .object(PredicateFixture.id(PredicateFixture.employeeEntity, 1))))
    }

    @Test func objectsCompareByObjectID() throws {
        let salesID = PredicateFixture.id(PredicateFixture.departmentEntity, 1)
        #expect(try matches("SELF == %@", f.sales, .object(salesID)))
        #expect(try !matches("SELF == %@", f.empty, .object(salesID)))
        #expect(try matches("department == %@", f.quinn, .object(salesID)))
        #expect(try matches("department != %@", f.quinn, .object(PredicateFixture.id(PredicateFixture.departmentEntity, 2))))
        #expect(try matches("manager == %@", f.sales, .object(PredicateFixture.id(PredicateFixture.employeeEntity, 1))))
        #expect(try !matches("manager == %@ OR manager != %@", f.empty, .object(salesID), .object(salesID)))
        #expect(try matches("manager == nil", f.empty))
        #expect(try matches("SELF == $ME", f.sales, variables: ["ME": .object(salesID)]))
        #expect(evaluationError("department < %@", f.quinn, .object(salesID))?.message.contains("only be compared with == and !=") == true)
        #expect(evaluationError("SELF == %@", PredicateRow(["a": 1]), .object(salesID))?.message.contains("without an object ID") == true)
    }
}
