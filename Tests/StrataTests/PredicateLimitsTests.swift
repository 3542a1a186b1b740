import Foundation
import Testing
@testable import Strata

/// docs/LIMITS.md: predicates beyond a limit are refused with Strata's own one-line
/// message before any SQL is built, and large-but-legal predicates are translated so that
/// SQLite accepts them (its own "Expression tree is too large" and "parser stack
/// overflow" never reach the user).
@Suite struct PredicateLimits {
    let dataset: SQLTestDataset
    let translator: SQLPredicateTranslator

    init() throws {
        dataset = try SQLTestDataset(seed: 7, employees: 40)
        translator = SQLPredicateTranslator(schema: dataset.schema, storeTag: SQLTestDataset.storeTag)
    }

    func request(_ predicate: FetchPredicate) -> StoreFetchRequest {
        StoreFetchRequest(entity: dataset.employee, predicate: predicate, sortDescriptors: [], fetchLimit: 0, fetchOffset: 0)
    }

    /// SQL (plus any residual) and the evaluator agree.
    func expectSameAsMemory(_ predicate: FetchPredicate, sourceLocation: SourceLocation = #_sourceLocation) throws -> SQLFetchPlan {
        let request = request(predicate)
        let (keys, plan) = try dataset.actual(request, translator: translator)
        #expect(keys == (try dataset.expected(request)), sourceLocation: sourceLocation)
        return plan
    }

    func syntaxError(_ format: String, limits: StrataLimits = StrataLimits()) -> StrataError? {
        #expect(throws: StrataError.self) { try FetchPredicate(format: format, argumentArray: [], limits: limits) }
        do {
            _ = try FetchPredicate(format: format, argumentArray: [], limits: limits)
            return nil
        } catch {
            return error as? StrataError
        }
    }

    // MARK: Wide predicates work

    @Test func anOrOf5000ComparisonsIsTranslatedAndAgreesWithMemory() throws {
        let format = (0..<5_000).map { "salary == \($0 * 13)" }.joined(separator: " OR ")
        let predicate = try FetchPredicate(format: format)
        let plan = try expectSameAsMemory(predicate)
        #expect(plan.residual == nil)
        // Balanced: SQLite's expression depth grows with log(n), never near its 1,000.
        #expect(Strata.SQLTranslation.parenthesisDepth(plan.select.sql) < 10)
    }

    @Test func anAndOf5000ConjunctsAndAnInOf10000ValuesWork() throws {
        let conjuncts = (0..<5_000).map { "salary != \($0 * 7 + 1)" }.joined(separator: " AND ")
        #expect(try expectSameAsMemory(try FetchPredicate(format: conjuncts)).residual == nil)
        let values = (0..<10_000).map { PropertyValue.integer(Int64($0) * 3) }
        let inList = try FetchPredicate(format: "salary IN %@", .list(values))
        #expect(try expectSameAsMemory(inList).residual == nil)
        let anyList = try FetchPredicate(format: "ANY %@ == salary", .list(Array(values.prefix(5_000))))
        _ = try expectSameAsMemory(anyList)
        let strings = (0..<3_000).map { "firstName ==[c] 'n\($0)' OR lastName BEGINSWITH 'x\($0)'" }.joined(separator: " OR ")
        _ = try expectSameAsMemory(try FetchPredicate(format: strings))
    }

    // MARK: Deep predicates: a clear error, or they work

    @Test func a100NestedNotsIsOneClearLineNamingTheColumn() throws {
        let format = String(repeating: "NOT ", count: 100) + "salary > 5"
        let error = try #require(syntaxError(format))
        #expect(error.code == .predicateSyntax)
        #expect(error.message.hasPrefix("predicate syntax error at column "))
        #expect(error.message.contains("nested more than 64 levels deep (limit 64)"))
        #expect(error.context.limit == "maxPredicateDepth")
        #expect(!error.description.contains("\n"))
        #expect(!error.message.contains("SELECT"))
    }

    @Test func deepNestingWithinARaisedLimitWorksInSQL() throws {
        var limits = StrataLimits()
        limits.maxPredicateDepth = 400
        let nots = try FetchPredicate(format: String(repeating: "NOT ", count: 101) + "salary > 5000",
                                      argumentArray: [], limits: limits)
        let deepTranslator = SQLPredicateTranslator(schema: dataset.schema, storeTag: SQLTestDataset.storeTag, limits: limits)
        var request = request(nots)
        var (keys, plan) = try dataset.actual(request, translator: deepTranslator)
        #expect(keys == (try dataset.expected(request)))
        #expect(plan.residual == nil, "NOT NOT is dropped, so 101 NOTs are one in SQL")
        // Alternating AND/OR 120 deep: too deep for SQLite's parser, so it runs in memory.
        var format = "salary > 0"
        for level in 0..<120 {
            format = level % 2 == 0 ? "(rating > \(level) OR \(format))" : "(firstName != 'x\(level)' AND \(format))"
        }
        request = self.request(try FetchPredicate(format: format, argumentArray: [], limits: limits))
        (keys, plan) = try dataset.actual(request, translator: deepTranslator)
        #expect(keys == (try dataset.expected(request)))
        #expect(plan.residual != nil)
        // Within the default limit, every shape SQLite could choke on is still answered.
        var shallow = "salary > 0"
        for level in 0..<30 {
            shallow = level % 3 == 0 ? "NOT (rating > \(level) OR \(shallow))"
                : level % 3 == 1 ? "(ANY projects.name != 'p\(level)' AND \(shallow))" : "(firstName != 'x' OR \(shallow))"
        }
        _ = try expectSameAsMemory(try FetchPredicate(format: shallow))
    }

    @Test func a100000DeepParenthesisNestIsAnErrorNotACrash() throws {
        let format = String(repeating: "(", count: 100_000) + "salary > 5" + String(repeating: ")", count: 100_000)
        let error = try #require(syntaxError(format))
        #expect(error.message.contains("predicate syntax error at column 65: predicate nested more than 64 levels deep"))
        let unclosed = try #require(syntaxError(String(repeating: "(", count: 100_000)))
        #expect(unclosed.context.limit == "maxPredicateDepth")
        let braces = try #require(syntaxError("salary IN " + String(repeating: "{", count: 100_000)))
        #expect(braces.context.limit == "maxPredicateDepth")
        let subqueries = try #require(syntaxError(String(repeating: "SUBQUERY(projects, $p, ", count: 50_000)))
        #expect(subqueries.context.limit == "maxPredicateDepth")
    }

    // MARK: Each limit is configurable

    @Test func theTermLimitIsCheckedBeforeSQLIsBuilt() throws {
        var limits = StrataLimits()
        limits.maxPredicateTerms = 100
        let format = (0..<200).map { "salary == \($0)" }.joined(separator: " OR ")
        let error = try #require(syntaxError(format, limits: limits))
        #expect(error.message == "predicate too complex: 201 terms (limit 100) — split the query")
        #expect(error.context.limit == "maxPredicateTerms" && error.context.amount == 201)
        // A predicate built in code meets the same check in the translator.
        let built = FetchPredicate.or((0..<30_000).map { _ in try! FetchPredicate(format: "salary == 1") })
        let stored = try #require(throws: StrataError.self) { try translator.plan(for: request(built)) }
        #expect(stored.code == .predicateEvaluation)
        #expect(stored.message == "predicate too complex: 30001 terms (limit 20000) — split the query")
        limits.maxPredicateTerms = 40_000
        let roomy = SQLPredicateTranslator(schema: dataset.schema, storeTag: SQLTestDataset.storeTag, limits: limits)
        _ = try roomy.plan(for: request(built))
        // Collection elements count as terms.
        limits.maxPredicateTerms = 50
        let list = try #require(throws: StrataError.self) {
            try FetchPredicate(format: "salary IN %@", argumentArray: [.list((0..<60).map { .integer($0) })], limits: limits)
        }
        #expect(list.message.contains("61 terms (limit 50)"))
    }

    @Test func theDepthLimitIsConfigurableAndCheckedOnBuiltPredicates() throws {
        var limits = StrataLimits()
        limits.maxPredicateDepth = 5
        #expect(throws: StrataError.self) { try FetchPredicate(format: "NOT NOT NOT NOT NOT a == 1", argumentArray: [], limits: limits) }
        _ = try FetchPredicate(format: "NOT NOT a == 1", argumentArray: [], limits: limits)
        var built = try FetchPredicate(format: "salary > 5000")
        for _ in 0..<100 { built = .not(built) }
        let error = try #require(throws: StrataError.self) { try built.checkLimits() }
        #expect(error.message == "predicate nested 102 levels deep (limit 64) — simplify the predicate")
        let stored = try #require(throws: StrataError.self) { try translator.plan(for: request(built)) }
        #expect(stored.message == error.message)
    }

    @Test func theKeyPathLimitNamesTheComponent() throws {
        let path = (0..<20).map { _ in "manager" }.joined(separator: ".") + ".salary"
        let error = try #require(syntaxError("\(path) > 5"))
        #expect(error.message == "predicate syntax error at column 129: key path has 21 components (limit 16)")
        var limits = StrataLimits()
        limits.maxKeyPathComponents = 2
        #expect(throws: StrataError.self) { try FetchPredicate(format: "manager.manager.salary > 1", argumentArray: [], limits: limits) }
        #expect(throws: StrataError.self) { try FetchPredicate(format: "%K > 1", argumentArray: [.key("a.b.c")], limits: limits) }
        _ = try FetchPredicate(format: "manager.salary > 1", argumentArray: [], limits: limits)
        let built = FetchPredicate.comparison(FetchComparison(.keyPath("a.b.c.d"), .greaterThan, .constant(.integer(1))))
        #expect(throws: StrataError.self) { try built.checkLimits(limits) }
    }

    @Test func matchesWorkIsBoundedByPatternAndSubjectLength() throws {
        var limits = StrataLimits()
        let long = String(repeating: "a", count: limits.maxRegexPatternLength + 1)
        let pattern = try #require(throws: StrataError.self) { try PredicateText.checkRegexLimits("x", long, limits) }
        #expect(pattern.message == "MATCHES pattern of 1001 characters is too long (limit 1000)")
        limits.maxRegexSubjectLength = 10
        let subject = try #require(throws: StrataError.self) { try PredicateText.checkRegexLimits(String(repeating: "b", count: 11), "b*", limits) }
        #expect(subject.context.limit == "maxRegexSubjectLength")
        try PredicateText.checkRegexLimits(String(repeating: "b", count: 10), "b*", limits)
        // The process-wide limits reach the evaluator.
        #expect(throws: StrataError.self) {
            try FetchPredicate(format: "name MATCHES %@", .value(.string(long))).evaluate(with: PredicateRow(["name": "a"]))
        }
        #expect(try FetchPredicate(format: "name MATCHES 'a+'").evaluate(with: PredicateRow(["name": "aaa"])))
    }

    @Test func catastrophicBacktrackingStopsAtTheWorkBudget() throws {
        // (a+)+b on 40 a's needs about 2^40 steps: without the budget this test would not end.
        let forty = String(repeating: "a", count: 40)
        let error = try #require(throws: StrataError.self) { try PredicateText.matches(forty, "(a+)+b") }
        #expect(error.message == "MATCHES needs more than 1000 units of backtracking on a string of 40 characters (limit 1000) — simplify the pattern")
        #expect(error.code == .predicateEvaluation && error.context.limit == "maxRegexWork" && error.context.pattern == "(a+)+b")
        #expect(throws: StrataError.self) {
            try FetchPredicate(format: "name MATCHES '(a+)+b'").evaluate(with: PredicateRow(["name": .string(forty)]))
        }
        // The budget counts work, so a long subject with an ordinary pattern meets a small one
        // and passes the default; a character class ICU scans without stepping passes both.
        var small = StrataLimits()
        small.maxRegexWork = 5
        let long = String(repeating: "a", count: 200_000)
        let budget = try #require(throws: StrataError.self) { try PredicateText.matches(long, ".*(x|y).*", options: [], limits: small) }
        #expect(budget.message.hasPrefix("MATCHES needs more than 5 units of backtracking on a string of 200000 characters"))
        #expect(try PredicateText.matches(long, ".*(x|y).*", options: [], limits: StrataLimits()) == false)
        #expect(try PredicateText.matches(long, "[a-z]+", options: [], limits: small))
        #expect(try PredicateText.matches(long, "a+", options: [], limits: StrataLimits()))
        #expect(try PredicateText.matches("aaab", "(a+)+b", options: [], limits: small))
    }

    @Test func aFullICUBacktrackingStackIsAnErrorNotAMismatch() throws {
        // Each repetition of a group with alternatives keeps a backtracking frame: a million
        // of them overflow ICU's stack, which firstMatch used to report as "no match".
        let error = try #require(throws: StrataError.self) {
            try PredicateText.matches(String(repeating: "a", count: 1_000_000), "(a|b)*")
        }
        #expect(error.message == "MATCHES could not finish on a string of 1000000 characters: the pattern backtracks more than ICU's stack holds — simplify the pattern")
        #expect(try PredicateText.matches(String(repeating: "a", count: 1_000), "(a|b)*"))
    }

    @Test func anOrOfEqualitiesOnOneKeyBecomesOneInList() throws {
        func plan(_ count: Int, also extra: String = "") throws -> SQLFetchPlan {
            let format = (0..<count).map { "salary == \($0 * 13)" }.joined(separator: " OR ") + extra
            return try translator.plan(for: request(try FetchPredicate(format: format)))
        }
        let wide = try plan(5_000, also: " OR rating == 2")
        #expect(wide.select.sql.contains("t.\"salary\" IN (?1, ?2, "))
        #expect(!wide.select.sql.contains(" OR t.\"salary\" ="))
        let narrow = try plan(8)
        let explained = try dataset.connection.prepare("EXPLAIN QUERY PLAN " + narrow.select.sql).rows(narrow.select.bindings)
            .compactMap { row in if case .text(let detail)? = row.last { return detail } else { return nil } }
            .joined(separator: "\n")
        #expect(explained.contains("Person_salary_index"), "\(explained)")
        // Equalities to NULL (IS NULL), with a quantifier or on other keys stay as written.
        _ = try expectSameAsMemory(try FetchPredicate(format: "salary == 5000 OR salary == nil OR salary == 0 OR rating == 3"))
        _ = try expectSameAsMemory(try FetchPredicate(format: "firstName ==[c] 'ada' OR firstName ==[c] 'ZOË' OR firstName == 'emile'"))
        _ = try expectSameAsMemory(try FetchPredicate(format: "ANY projects.name == 'Engine' OR ANY projects.name == 'Zeta'"))
        _ = try expectSameAsMemory(try FetchPredicate(format: "NOT (manager.salary == 5000 OR manager.salary == 52000)"))
        let mismatch = try #require(throws: StrataError.self) {
            try translator.plan(for: request(try FetchPredicate(format: "firstName == 1 OR firstName == 2")))
        }
        #expect(mismatch.code == .predicateEvaluation && mismatch.message.contains("=="))
    }

    @Test func aContextFetchChecksAPredicateBuiltInCode() throws {
        let directory = try TemporaryDirectory()
        let stack = try DocumentStack.create(directory.file())
        defer { try? stack.store.close() }
        var deep = try FetchPredicate(format: "salary > 5")
        for _ in 0..<500 { deep = .not(deep) }
        let request = FetchRequest(entityName: "Employee")
        request.predicate = deep
        let error = try #require(throws: StrataError.self) { try stack.context.fetch(request) }
        #expect(error.message == "predicate nested 502 levels deep (limit 64) — simplify the predicate")
    }

    @Test func aDocumentHoldsFetchesToItsConfiguredLimits() throws {
        let directory = try TemporaryDirectory()
        var configuration = DocumentStore.Configuration()
        configuration.limits.maxPredicateTerms = 10
        let stack = try DocumentStack.create(directory.file(), configuration: configuration)
        defer { try? stack.store.close() }
        let employee = try stack.model.entity(named: "Employee")
        func fetch(_ format: String) throws -> [ManagedObjectID] {
            try stack.store.fetchObjectIDs(StoreFetchRequest(
                entity: employee, predicate: try FetchPredicate(format: format), sortDescriptors: [], fetchLimit: 0, fetchOffset: 0))
        }
        _ = try fetch("salary == 1 OR salary == 2")
        let wide = (0..<20).map { "salary == \($0)" }.joined(separator: " OR ")
        let error = try #require(throws: StrataError.self) { try fetch(wide) }
        #expect(error.message == "predicate too complex: 21 terms (limit 10) — split the query")
        #expect(throws: StrataError.self) {
            try stack.store.countObjects(StoreFetchRequest(
                entity: employee, predicate: try FetchPredicate(format: wide), sortDescriptors: [], fetchLimit: 0, fetchOffset: 0))
        }
    }

    @Test func anSQLiteErrorQuotesOnlyTheStartOfALongStatement() throws {
        let sql = "SELECT " + (0..<3_000).map { "x\($0)" }.joined(separator: " + ") + " FROM nowhere"
        let error = try #require(throws: StrataError.self) { try dataset.connection.execute(sql) }
        #expect(error.code == .sqlite)
        #expect(error.message.count < 400, "\(error.message)")
        #expect(error.context.sql == sql)
    }

    @Test func theDefaultsAreTheDocumentedOnes() {
        let limits = StrataLimits()
        #expect(limits.maxPredicateDepth == 64 && limits.maxPredicateTerms == 20_000 && limits.maxKeyPathComponents == 16)
        #expect(limits.maxRegexPatternLength == 1_000 && limits.maxRegexSubjectLength == 1_000_000 && limits.maxRegexWork == 1_000)
        #expect(DocumentStore.Configuration().limits == StrataLimits.current)
    }
}
