import Foundation
import Testing
@testable import Strata

/// Shorthands for building expected trees.
enum P {
    static func cmp(_ lhs: FetchExpression, _ op: FetchComparison.Operator, _ rhs: FetchExpression,
                    _ modifier: FetchComparison.Modifier = .direct, _ options: FetchComparison.Options = []) -> FetchPredicate {
        .comparison(FetchComparison(lhs, op, rhs, modifier: modifier, options: options))
    }
    static func k(_ path: String) -> FetchExpression { .keyPath(path) }
    static func c(_ value: PropertyValue) -> FetchExpression { .constant(value) }
}

@Suite struct PredicateParsing {
    @Test func everyComparisonOperatorSpellingParses() throws {
        let spellings: [(String, FetchComparison.Operator)] = [
            ("=", .equalTo), ("==", .equalTo), ("!=", .notEqualTo), ("<>", .notEqualTo),
            ("<", .lessThan), ("<=", .lessThanOrEqualTo), ("=<", .lessThanOrEqualTo),
            (">", .greaterThan), (">=", .greaterThanOrEqualTo), ("=>", .greaterThanOrEqualTo),
            ("BEGINSWITH", .beginsWith), ("endswith", .endsWith), ("Contains", .contains),
            ("LIKE", .like), ("matches", .matches),
        ]
        for (text, op) in spellings {
            #expect(try FetchPredicate(format: "a \(text) 1") == P.cmp(P.k("a"), op, P.c(1)), "\(text)")
        }
    }

    @Test func betweenAndInTakeCollections() throws {
        #expect(try FetchPredicate(format: "age BETWEEN {18, 65}") == P.cmp(P.k("age"), .between, .collection([P.c(18), P.c(65)])))
        #expect(try FetchPredicate(format: "name IN {'a', \"b\"}") == P.cmp(P.k("name"), .in, .collection([P.c("a"), P.c("b")])))
        #expect(try FetchPredicate(format: "'x' IN tags.name") == P.cmp(P.c("x"), .in, P.k("tags.name")))
        #expect(try FetchPredicate(format: "x IN {}") == P.cmp(P.k("x"), .in, .collection([])))
    }

    @Test func logicalOperatorsHaveSQLPrecedence() throws {
        let a = P.cmp(P.k("a"), .equalTo, P.c(1)), b = P.cmp(P.k("b"), .equalTo, P.c(2)), c = P.cmp(P.k("c"), .equalTo, P.c(3))
        #expect(try FetchPredicate(format: "a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try FetchPredicate(format: "a == 1 || b == 2 && c == 3") == .or([a, .and([b, c])]))
        #expect(try FetchPredicate(format: "(a == 1 OR b == 2) AND c == 3") == .and([.or([a, b]), c]))
        #expect(try FetchPredicate(format: "a == 1 and b == 2 and c == 3") == .and([a, b, c]))
        #expect(try FetchPredicate(format: "NOT a == 1 AND !b == 2") == .and([.not(a), .not(b)]))
        #expect(try FetchPredicate(format: "NOT (a == 1 OR b == 2)") == .not(.or([a, b])))
        #expect(try FetchPredicate(format: "((a == 1))") == a)
        #expect(try FetchPredicate(format: "TRUEPREDICATE OR FALSEPREDICATE") == .or([.constant(true), .constant(false)]))
    }

    @Test func literalsParseToTypedValues() throws {
        let cases: [(String, PropertyValue)] = [
            ("42", 42), ("-7", -7), ("3.5", 3.5), ("-0.25", -0.25), ("1e3", 1000.0), ("2.5E-2", 0.025),
            ("0x1F", 31), ("-0x10", -16), ("TRUE", true), ("yes", true), ("FALSE", false), ("NO", false),
            ("NULL", nil), ("nil", nil), ("'single'", "single"), ("\"double\"", "double"),
            ("\"a\\\"b\\\\c\\n\\t\\u00e9\\u{1F600}\"", "a\"b\\c\n\té😀"), ("'it\\'s'", "it's"),
            ("-9223372036854775808", .integer(Int64.min)), ("9223372036854775808", .double(9223372036854775808)),
            ("CAST(0.0, \"NSDate\")", .date(Date(timeIntervalSinceReferenceDate: 0))),
            ("CAST(\"1.25\", \"NSDecimalNumber\")", .decimal(Decimal(string: "1.25")!)),
            ("CAST(\"AAAA\", \"NSData\")", .data(Data([0, 0, 0]))),
        ]
        for (text, value) in cases {
            #expect(try FetchPredicate(format: "v == \(text)") == P.cmp(P.k("v"), .equalTo, P.c(value)), "\(text)")
        }
    }

    @Test func keyPathsVariablesAndSelfParse() throws {
        #expect(try FetchPredicate(format: "department.manager.name == 'x'") == P.cmp(P.k("department.manager.name"), .equalTo, P.c("x")))
        #expect(try FetchPredicate(format: "SELF == $ME") == P.cmp(.evaluatedObject, .equalTo, .variable("ME")))
        #expect(try FetchPredicate(format: "self.name == $e.name") == P.cmp(P.k("name"), .equalTo, .keyPath("name", on: .variable("e"))))
        #expect(try FetchPredicate(format: "#in == 1 AND a.like == 2 AND #Self.#and == 3")
                == .and([P.cmp(P.k("in"), .equalTo, P.c(1)), P.cmp(P.k("a.like"), .equalTo, P.c(2)), P.cmp(P.k("Self.and"), .equalTo, P.c(3))]))
        #expect(try FetchPredicate(format: "naïve_ключ == 1") == P.cmp(P.k("naïve_ключ"), .equalTo, P.c(1)))
    }

    @Test func collectionOperatorsParseIntoTheirOwnNode() throws {
        #expect(try FetchPredicate(format: "employees.@count > 2")
                == P.cmp(.collectionOperator(.count, of: P.k("employees"), key: nil), .greaterThan, P.c(2)))
        #expect(try FetchPredicate(format: "department.employees.@SUM.salary >= 10")
                == P.cmp(.collectionOperator(.sum, of: P.k("department.employees"), key: "salary"), .greaterThanOrEqualTo, P.c(10)))
        for op in FetchCollectionOperator.allCases where op != .count {
            #expect(try FetchPredicate(format: "e.\(op.rawValue).a.b == 1")
                    == P.cmp(.collectionOperator(op, of: P.k("e"), key: "a.b"), .equalTo, P.c(1)))
        }
        #expect(try FetchPredicate(format: "@count == 0") == P.cmp(.collectionOperator(.count, of: .evaluatedObject, key: nil), .equalTo, P.c(0)))
        #expect(try FetchPredicate(format: "{1, 2}.@max == 2") == P.cmp(.collectionOperator(.max, of: .collection([P.c(1), P.c(2)]), key: nil), .equalTo, P.c(2)))
    }

    @Test func subqueryParsesWithItsVariableAndPredicate() throws {
        let parsed = try FetchPredicate(format: "SUBQUERY(employees, $e, $e.salary > 10 AND $e.name BEGINSWITH 'Q').@count > 0")
        let inner: FetchPredicate = .and([
            P.cmp(.keyPath("salary", on: .variable("e")), .greaterThan, P.c(10)),
            P.cmp(.keyPath("name", on: .variable("e")), .beginsWith, P.c("Q")),
        ])
        #expect(parsed == P.cmp(.collectionOperator(.count, of: .subquery(collection: P.k("employees"), variable: "e", predicate: inner), key: nil), .greaterThan, P.c(0)))
    }

    @Test func modifiersAndOptionsParse() throws {
        #expect(try FetchPredicate(format: "ANY employees.salary > 10") == P.cmp(P.k("employees.salary"), .greaterThan, P.c(10), .any))
        #expect(try FetchPredicate(format: "some employees.salary > 10") == P.cmp(P.k("employees.salary"), .greaterThan, P.c(10), .any))
        #expect(try FetchPredicate(format: "ALL e.s > 10") == P.cmp(P.k("e.s"), .greaterThan, P.c(10), .all))
        #expect(try FetchPredicate(format: "NONE e.s > 10") == P.cmp(P.k("e.s"), .greaterThan, P.c(10), .none))
        #expect(try FetchPredicate(format: "n ==[c] 'a'") == P.cmp(P.k("n"), .equalTo, P.c("a"), .direct, .caseInsensitive))
        #expect(try FetchPredicate(format: "n CONTAINS[d] 'a'") == P.cmp(P.k("n"), .contains, P.c("a"), .direct, .diacriticInsensitive))
        #expect(try FetchPredicate(format: "ANY n LIKE[cd] 'a*'") == P.cmp(P.k("n"), .like, P.c("a*"), .any, .caseDiacriticInsensitive))
        #expect(try FetchPredicate(format: "n IN[dc] {'a'}") == P.cmp(P.k("n"), .in, .collection([P.c("a")]), .direct, .caseDiacriticInsensitive))
    }

    @Test func placeholdersTakeArgumentsInOrder() throws {
        let id = ManagedObjectID(entity: EntityDescription("Department"), storeTag: 1, primaryKey: 7)
        let parsed = try FetchPredicate(format: "salary > %d AND name BEGINSWITH %@ AND %K == %@ AND r < %f AND d == %@ AND t IN %@ AND n == %ld AND m == %i",
                                        5000, "A", .key("department.name"), "Sales", 2, .object(id), [1, 2], 3, 4)
        #expect(parsed == .and([
            P.cmp(P.k("salary"), .greaterThan, P.c(5000)),
            P.cmp(P.k("name"), .beginsWith, P.c("A")),
            P.cmp(P.k("department.name"), .equalTo, P.c("Sales")),
            P.cmp(P.k("r"), .lessThan, P.c(2.0)),
            P.cmp(P.k("d"), .equalTo, P.c(.object(id))),
            P.cmp(P.k("t"), .in, .collection([P.c(1), P.c(2)])),
            P.cmp(P.k("n"), .equalTo, P.c(3)),
            P.cmp(P.k("m"), .equalTo, P.c(4)),
        ]))
        #expect(try FetchPredicate(format: "%K.@count == %lf", "employees", 1.5) == P.cmp(.collectionOperator(.count, of: P.k("employees"), key: nil), .equalTo, P.c(1.5)))
        #expect(try FetchPredicate(format: "x == %@", nil) == P.cmp(P.k("x"), .equalTo, P.c(nil)))
        #expect(try FetchPredicate(format: "a == %@", argumentArray: [.value(.uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!))])
                == P.cmp(P.k("a"), .equalTo, P.c(.uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!))))
    }

    @Test func placeholderInsideQuotesIsLiteralText() throws {
        #expect(try FetchPredicate(format: "name == '%@' AND k == \"%K %d\"") == .and([
            P.cmp(P.k("name"), .equalTo, P.c("%@")), P.cmp(P.k("k"), .equalTo, P.c("%K %d")),
        ]))
    }

    @Test func injectionAttemptsInsideStringsArePlainData() throws {
        let payloads = ["'; DROP TABLE employee; --", "x' OR '1'='1", "/* comment */", "a -- b", "\" OR 1=1 --", "%@ %K", "\\"]
        for payload in payloads {
            let parsed = try FetchPredicate(format: "name == %@", .value(.string(payload)))
            #expect(parsed == P.cmp(P.k("name"), .equalTo, P.c(.string(payload))))
            // Printed and parsed back, the payload stays one string constant.
            #expect(try FetchPredicate(format: parsed.predicateFormat) == parsed)
        }
        #expect(try FetchPredicate(format: "name == 'a; DROP TABLE t; -- /* */'") == P.cmp(P.k("name"), .equalTo, P.c("a; DROP TABLE t; -- /* */")))
        #expect(try FetchPredicate(format: "name == \"x' OR '1'='1\"") == P.cmp(P.k("name"), .equalTo, P.c("x' OR '1'='1")))
    }

    @Test func whitespaceIsFlexible() throws {
        #expect(try FetchPredicate(format: "  a==1&&b!=2 ") == FetchPredicate(format: "a == 1 AND b != 2"))
        #expect(try FetchPredicate(format: "a\n==\t1") == P.cmp(P.k("a"), .equalTo, P.c(1)))
    }
}
