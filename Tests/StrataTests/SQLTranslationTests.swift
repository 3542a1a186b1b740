import Foundation
import Testing
@testable import Strata

/// The SQL translation's contract beyond the differential test: index use, bound values,
/// errors, residuals, entity filters, windows and the decimal functions.
@Suite struct SQLTranslation {
    let dataset: SQLTestDataset
    let translator: SQLPredicateTranslator

    init() throws {
        dataset = try SQLTestDataset(seed: 42)
        translator = SQLPredicateTranslator(schema: dataset.schema, storeTag: SQLTestDataset.storeTag)
    }

    func request(_ format: String, _ arguments: [PredicateArgument] = [], entity: String = "Employee",
                 sort: [FetchSortDescriptor] = [], limit: Int = 0, offset: Int = 0) throws -> StoreFetchRequest {
        StoreFetchRequest(entity: dataset.model.entitiesByName[entity] ?? dataset.employee,
                          predicate: try FetchPredicate(format: format, argumentArray: arguments),
                          sortDescriptors: sort, fetchLimit: limit, fetchOffset: offset)
    }

    func queryPlan(_ query: SQLQuery) throws -> String {
        try dataset.connection.prepare("EXPLAIN QUERY PLAN " + query.sql).rows(query.bindings)
            .compactMap { row in if case .text(let detail)? = row.last { return detail } else { return nil } }
            .joined(separator: "\n")
    }

    @Test func anIndexedEqualityFetchUsesTheIndex() throws {
        let plan = try translator.plan(for: request("lastName == %@", [.value("Quinn")]))
        let explained = try queryPlan(plan.select)
        #expect(explained.contains("USING INDEX"), "\(explained)")
        #expect(explained.contains("Person_lastName_index"), "\(explained)")
        let salary = try queryPlan(try translator.plan(for: request("salary == 5000 AND lastName BEGINSWITH[c] 'q'")).select)
        #expect(salary.contains("USING INDEX"), "\(salary)")
    }

    @Test func aRangeOnAnIndexedColumnUsesTheIndex() throws {
        let explained = try queryPlan(try translator.plan(for: request("salary BETWEEN {1000, 6000}")).select)
        #expect(explained.contains("Person_salary_index"), "\(explained)")
    }

    @Test func valuesAreBoundNeverSplicedIntoTheSQL() throws {
        let hostile = "x'; DROP TABLE \"Person\"; --"
        let plan = try translator.plan(for: request("lastName == %@ OR firstName BEGINSWITH[cd] %@ OR salary > %d",
                                                    [.value(.string(hostile)), .value("Émile"), .value(.integer(31337))]))
        #expect(!plan.select.sql.contains("DROP"))
        #expect(!plan.select.sql.contains("mile"))
        #expect(!plan.select.sql.contains("31337"))
        #expect(plan.select.bindings.contains(.text(hostile)))
    }

    @Test func injectionStringsInLiteralsAreJustData() throws {
        let hostile = "x'; DROP TABLE \"Person\"; --"
        for format in ["lastName == %@", "lastName LIKE %@", "lastName CONTAINS[c] %@", "lastName IN {%@, 'a'}", "lastName MATCHES %@"] {
            let pattern = format.contains("MATCHES") ? "x'; DROP TABLE \\\"Person\\\"; --" : hostile
            let fetch = try request(format, [.value(.string(format.contains("MATCHES") ? NSRegularExpression.escapedPattern(for: hostile) : pattern))])
            let (keys, _) = try dataset.actual(fetch, translator: translator)
            #expect(keys == (try dataset.expected(fetch)), "\(format)")
        }
        let count = try dataset.connection.prepare("SELECT COUNT(*) FROM \"Person\"").rows().first?.first
        #expect(count == .integer(24))
    }

    @Test func comparingAStringAttributeWithANumberIsAnEvaluationError() throws {
        let error = #expect(throws: StrataError.self) { try translator.plan(for: request("lastName <= 2")) }
        #expect(error?.code == .predicateEvaluation)
        #expect(error?.context.predicate == "lastName <= 2")
        #expect(error?.context.leftType == "string")
        #expect(error?.context.rightType == "integer")
        // Even when no row would reach the comparison in memory: the model's types decide.
        #expect(throws: StrataError.self) { try translator.plan(for: request("FALSEPREDICATE AND startDate > 5")) }
        #expect(throws: StrataError.self) { try translator.plan(for: request("salary BEGINSWITH 'a'")) }
        #expect(throws: StrataError.self) { try translator.plan(for: request("department < %@", [.value(.object(dataset.id(1001)))])) }
    }

    @Test func otherTranslationErrorsUseTheEvaluatorsCodes() throws {
        func code(_ format: String, entity: String = "Employee", sort: [FetchSortDescriptor] = []) -> StrataError.Code? {
            do {
                _ = try translator.plan(for: request(format, entity: entity, sort: sort))
                return nil
            } catch let error as StrataError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(code("employees.salary > 5", entity: "Department") == .predicateEvaluation)  // to-many without ANY
        #expect(code("salary IN 5") == .predicateEvaluation)
        let oneBound = StoreFetchRequest(entity: dataset.employee, predicate: .comparison(
            FetchComparison(.keyPath("salary"), .between, .collection([.constant(.integer(1))]))))
        #expect(throws: StrataError.self) { try translator.plan(for: oneBound) }
        #expect(code("nickname == 'x'") == .unknownKey)
        #expect(code("lastName MATCHES '(['") == .predicateEvaluation)
        #expect(code("salary > $MISSING") == .predicateEvaluation)
        #expect(code("employees.@sum.lastName > 1", entity: "Department") == .predicateEvaluation)
        #expect(code("TRUEPREDICATE", sort: [FetchSortDescriptor("projects.name")]) == .invalidArgument)
        #expect(code("TRUEPREDICATE", sort: [FetchSortDescriptor("department")]) == .invalidArgument)
        #expect(code("TRUEPREDICATE", sort: [FetchSortDescriptor("fullName")]) == .invalidArgument)
    }

    @Test func substitutionVariablesAreBound() throws {
        var fetch = try request("salary > $MIN AND lastName != $NAME")
        let plan = try translator.plan(for: fetch, variables: ["MIN": 1000, "NAME": "Quinn"])
        #expect(plan.select.bindings.contains(.integer(1000)))
        fetch.predicate = try fetch.predicate?.withSubstitutionVariables(["MIN": 1000, "NAME": "Quinn"])
        let keys = try plan.select.rows(on: dataset.connection).compactMap { row -> Int64? in
            if case .integer(let key)? = row.first { return key } else { return nil }
        }
        #expect(keys == (try dataset.expected(fetch)))
    }

    @Test func aTransientKeyIsLeftAsAResidualAndTheWindowToTheCaller() throws {
        let fetch = try request("salary > 0 AND fullName BEGINSWITH[c] 'a'", sort: [FetchSortDescriptor("lastName")], limit: 2, offset: 1)
        let plan = try translator.plan(for: fetch)
        #expect(plan.residual == (try FetchPredicate(format: "fullName BEGINSWITH[c] 'a'")))
        #expect(!plan.appliesWindow)
        #expect(!plan.select.sql.contains("LIMIT"))
        #expect(plan.select.sql.contains("\"salary\" > ?1"))
        #expect(try dataset.actual(fetch, translator: translator).keys == (try dataset.expected(fetch)))
    }

    @Test func aFullyTranslatedFetchHasNoResidualAndAWindow() throws {
        let fetch = try request("ANY projects.name BEGINSWITH[cd] 'e' OR department.employees.@count > 2",
                                sort: [FetchSortDescriptor("department.name", ascending: false)], limit: 3, offset: 1)
        let plan = try translator.plan(for: fetch)
        #expect(plan.residual == nil)
        #expect(plan.appliesWindow)
        #expect(plan.select.sql.hasSuffix("LIMIT ?1 OFFSET ?2") || plan.select.sql.contains("LIMIT ?"))
        #expect(try dataset.actual(fetch, translator: translator).keys == (try dataset.expected(fetch)))
    }

    @Test func theEntityFilterCoversTheEntityAndItsSubentitiesOnly() throws {
        let person = try #require(dataset.model.entitiesByName["Person"])
        let all = try translator.plan(for: StoreFetchRequest(entity: person))
        #expect(!all.select.sql.contains("_entity\" IN") && !all.select.sql.contains("_entity\" ="))
        #expect(try all.select.rows(on: dataset.connection).count == 24)
        let only = try translator.plan(for: StoreFetchRequest(entity: person, includesSubentities: false))
        #expect(only.select.sql.contains("t.\"_entity\" = \(person.index)"))
        #expect(try only.select.rows(on: dataset.connection).isEmpty)
        let employees = try translator.plan(for: StoreFetchRequest(entity: dataset.employee))
        #expect(employees.select.sql.contains("t.\"_entity\" = \(dataset.employee.index)"))
        let departments = try translator.plan(for: StoreFetchRequest(entity: dataset.department))
        #expect(!departments.select.sql.contains("WHERE"))
    }

    @Test func theCountQueryCountsEveryMatchIgnoringTheWindow() throws {
        let fetch = try request("salary != nil", limit: 2, offset: 1)
        let plan = try translator.plan(for: fetch)
        var all = fetch
        all.fetchLimit = 0
        all.fetchOffset = 0
        let counted = try plan.count.rows(on: dataset.connection).first?.first
        #expect(counted == .integer(Int64(try dataset.expected(all).count)))
    }

    @Test func objectIDsFromAnotherStoreOrTemporaryIDsMatchNoRow() throws {
        let foreign = ManagedObjectID(entity: dataset.department, storeTag: 7, primaryKey: 1001)
        let temporary = ManagedObjectID.temporary(for: dataset.department)
        for id in [foreign, temporary] {
            let plan = try translator.plan(for: request("department == %@", [.value(.object(id))]))
            #expect(try plan.select.rows(on: dataset.connection).isEmpty)
        }
        let mine = try translator.plan(for: request("department == %@", [.value(.object(dataset.id(1001)))]))
        #expect(try mine.select.rows(on: dataset.connection).count
                == dataset.keys(of: dataset.employee).filter { dataset.records[$0]?.department == 1001 }.count)
    }

    @Test func decimalSortKeysOrderLikeTheDecimals() {
        var random = SeededGenerator(seed: 9)
        var values: [Decimal] = ["0", "-0.5", "1e-7", "-1e-7", "100", "99.99", "-100", "12345678901234567890.5", "0.1", "0.10", "-3.5"]
            .compactMap { SQLFunctions.parseDecimal($0) }
        for _ in 0..<300 {
            let mantissa = Int64(bitPattern: random.next() % 2_000_000) - 1_000_000
            values.append(Decimal(sign: mantissa < 0 ? .minus : .plus, exponent: Int(random.next() % 30) - 15, significand: Decimal(mantissa.magnitude)))
        }
        for a in values {
            for b in values.prefix(40) {
                let keyOrder = SQLFunctions.sortKey(a).lexicographicallyPrecedes(SQLFunctions.sortKey(b))
                #expect(keyOrder == (a < b), "\(a) vs \(b)")
                #expect((SQLFunctions.sortKey(a) == SQLFunctions.sortKey(b)) == (a == b), "\(a) vs \(b)")
            }
        }
    }

    @Test func parametersAreRenumberedInOrderOfUse() {
        let query = SQLQuery(sql: "SELECT ?3, ?1, ?3", bindings: [.integer(1), .integer(2), .integer(3)]).compacted()
        #expect(query.sql == "SELECT ?1, ?2, ?1")
        #expect(query.bindings == [.integer(3), .integer(1)])
        let quoted = SQLQuery(sql: "SELECT \"a?2\" FROM t WHERE x = ?2", bindings: [.integer(1), .integer(2)]).compacted()
        #expect(quoted.sql == "SELECT \"a?2\" FROM t WHERE x = ?1")
        #expect(quoted.bindings == [.integer(2)])
    }

    @Test func registeredFunctionsFollowThePredicateTextRules() throws {
        let connection = dataset.connection
        func value(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> SQLiteValue? {
            try connection.prepare(sql).rows(bindings).first?.first
        }
        #expect(try value("SELECT strata_like('Quinn', 'Q*n', 0)") == .integer(1))
        #expect(try value("SELECT strata_like('quinn', 'Q*', 0)") == .integer(0))
        #expect(try value("SELECT strata_like('quinn', 'Q*', 1)") == .integer(1))
        #expect(try value("SELECT strata_like('100%', '100%', 0)") == .integer(1))
        #expect(try value("SELECT strata_like('1000', '100%', 0)") == .integer(0))
        #expect(try value("SELECT strata_beginswith(NULL, 'a', 0)") == .null)
        #expect(try value("SELECT strata_fold('Émile', 3)") == .text("emile"))
        #expect(try value("SELECT strata_compare('0.1', 0.1)") == .integer(0))
        #expect(try value("SELECT strata_compare('0.30000000000000001', '0.3')") == .integer(1))
        #expect(try value("SELECT strata_compare('5000', 5000)") == .integer(0))
        #expect(try value("SELECT strata_decimal_sum(NULL)") == .integer(0))
        #expect(try value("SELECT strata_decimal_sum('0.1,0.2')") == .text("0.3"))
        #expect(try value("SELECT strata_decimal_min('0.5,-3.5,100')") == .text("-3.5"))
        #expect(try value("SELECT strata_matches('abc', 'a|abc', 0)") == .integer(1))
    }
}
