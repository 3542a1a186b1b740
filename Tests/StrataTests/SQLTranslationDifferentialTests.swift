import Foundation
import Testing
@testable import Strata

/// Thousands of random predicates, sort orders and windows: SQL (plus the residual in
/// memory) must return exactly what the in-memory evaluator returns, in the same order.
@Suite struct SQLTranslationDifferential {
    static let seeds: [UInt64] = [1, 2, 3, 0xC0FFEE, 20_240_601, 77, explorationSeed()]
    static let predicatesPerSeed = 600

    @Test(arguments: seeds)
    func sqlResultsEqualInMemoryEvaluationForRandomFetches(seed: UInt64) throws {
        try checkRandomFetches(seed: seed, layout: .current)
    }

    /// Documents of format 1 keep `_entity` on every table and `_version`: the same SQL
    /// translation must read them exactly.
    @Test(arguments: [UInt64(1), 77])
    func sqlResultsEqualInMemoryEvaluationInTheFormat1Layout(seed: UInt64) throws {
        try checkRandomFetches(seed: seed, layout: .entityAndVersionOnEveryTable)
    }

    private func checkRandomFetches(seed: UInt64, layout: SnapshotSchema.Layout) throws {
        let dataset = try SQLTestDataset(seed: seed, layout: layout)
        let translator = SQLPredicateTranslator(schema: dataset.schema, storeTag: SQLTestDataset.storeTag)
        var generator = SQLPredicateGenerator(seed: seed, dataset: dataset)
        var failures = 0, residuals = 0, errors = 0, nonEmpty = 0, expressions = 0, pushedExpressions = 0
        for index in 0..<Self.predicatesPerSeed {
            let request = generator.request()
            let expected = Result { try dataset.expected(request) }
            let actual = Result { try dataset.actual(request, translator: translator) }
            var problem: String?
            switch (expected, actual) {
            case (.success(let keys), .success(let result)):
                if keys != result.keys {
                    problem = "memory \(keys) ≠ SQL \(result.keys)\nSQL: \(result.plan.select)"
                } else if result.plan.residual == nil, request.fetchLimit == 0, request.fetchOffset == 0 {
                    let counted = try result.plan.count.rows(on: dataset.connection).first?.first
                    if counted != .integer(Int64(keys.count)) { problem = "count \(String(describing: counted)) ≠ \(keys.count)" }
                }
                if result.plan.residual != nil { residuals += 1 }
                if let predicate = request.predicate, Self.hasExpression(predicate) {
                    expressions += 1
                    if !(result.plan.residual.map(Self.hasExpression) ?? false) { pushedExpressions += 1 }
                }
                if !keys.isEmpty { nonEmpty += 1 }
            case (.failure(let memory), .failure(let sql)):
                errors += 1
                if (memory as? StrataError)?.code != (sql as? StrataError)?.code {
                    problem = "memory threw \(memory), SQL threw \(sql)"
                }
            case (.failure(let memory), .success(let result)):
                problem = "memory threw \(memory), SQL returned \(result.keys)\nSQL: \(result.plan.select)"
            case (.success(let keys), .failure(let sql)):
                problem = "memory returned \(keys), SQL threw \(sql)"
            }
            if let problem {
                failures += 1
                let sorts = request.sortDescriptors.map { "\($0.keyPath) \($0.ascending ? "asc" : "desc") \($0.comparison)" }
                Issue.record("""
                    seed \(seed) #\(index) entity \(request.entity.name) limit \(request.fetchLimit) offset \(request.fetchOffset)
                    predicate: \(request.predicate?.predicateFormat ?? "nil")
                    sort: \(sorts)
                    \(problem)
                    """)
                if failures >= 5 { break }
            }
        }
        print("seed \(seed): \(Self.predicatesPerSeed) fetches, \(nonEmpty) non-empty, \(residuals) with a residual, \(errors) errors on both sides, "
              + "\(expressions) with expressions (\(pushedExpressions) of them all in SQL)")
        // The generator must exercise real answers and the residual path, not only empty results.
        #expect(nonEmpty > Self.predicatesPerSeed / 3)
        #expect(residuals > 0)
        // Expressions are generated, and most of them run in SQL.
        #expect(expressions > Self.predicatesPerSeed / 10 && pushedExpressions > expressions / 2)
    }

    /// Whether a predicate uses a function, TERNARY or a subscript anywhere.
    static func hasExpression(_ predicate: FetchPredicate) -> Bool {
        switch predicate {
        case .constant: return false
        case .not(let inner): return hasExpression(inner)
        case .and(let terms), .or(let terms): return terms.contains(where: hasExpression)
        case .comparison(let comparison):
            return hasExpression(comparison.lhs) || hasExpression(comparison.rhs)
                || !FetchComparison.Options.caseDiacriticInsensitive.isSuperset(of: comparison.options)
        }
    }

    static func hasExpression(_ expression: FetchExpression) -> Bool {
        switch expression {
        case .function, .conditional, .index: return true
        case .keyPath(let path, let base): return path.hasSuffix(".length") || path == "length" || hasExpression(base)
        case .collection(let items): return items.contains(where: hasExpression)
        case .collectionOperator(_, let base, _): return hasExpression(base)
        case .subquery(let collection, _, let predicate): return hasExpression(collection) || hasExpression(predicate)
        default: return false
        }
    }
}
