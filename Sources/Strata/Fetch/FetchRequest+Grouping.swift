import Foundation

extension FetchRequest {
    /// Whether the request computes its dictionaries (expressions, aggregates, groups)
    /// rather than reading key paths of each record.
    var isComputedFetch: Bool {
        if propertiesToGroupBy != nil || havingPredicate != nil { return true }
        return propertiesToFetch?.contains { if case .expression = $0 { true } else { false } } ?? false
    }

    /// Core Data's rules for grouped fetches, checked before anything runs.
    /// - Throws: `.invalidArgument` naming the property: a grouped request whose result type
    ///   is not `.dictionary`; a having predicate without grouping; a fetched property that
    ///   is neither an aggregate nor grouped by; an aggregate in the group-by list; two
    ///   fetched properties with one name.
    func checkGrouping(of entity: EntityDescription) throws {
        guard isComputedFetch else { return }
        func fail(_ message: String, _ key: String) -> StrataError {
            StrataError(.invalidArgument, message, context: .init { $0.entity = entity.name; $0.key = key })
        }
        let fetched = propertiesToFetch ?? []
        var names: Set<String> = []
        for property in fetched where !names.insert(property.name).inserted {
            throw fail("The fetch request fetches two properties named \(input: property.name); each needs its own name.", property.name)
        }
        if let property = fetched.first(where: { $0.name.isEmpty }) {
            throw fail("The fetch request fetches \(property) with an empty name.", property.name)
        }
        let groups = propertiesToGroupBy ?? []
        if propertiesToGroupBy != nil, resultType != .dictionary {
            throw fail("A fetch request with propertiesToGroupBy needs resultType .dictionary (it is .\(resultType.rawValue)).", "resultType")
        }
        if havingPredicate != nil, groups.isEmpty {
            throw fail("A fetch request with a havingPredicate needs propertiesToGroupBy.", "havingPredicate")
        }
        for group in groups {
            switch group {
            case .key(let path): try Self.checkValuePath(path, from: entity, usedIn: "propertiesToGroupBy")
            case .expression(let description):
                if description.expression.containsAggregate(of: entity) {
                    throw fail("The group-by property \(input: description.name) applies an aggregate; groups are formed by record values.", description.name)
                }
            }
        }
        let aggregated = fetched.contains { $0.expression.containsAggregate(of: entity) }
        guard !groups.isEmpty || aggregated else { return }
        for property in fetched where !property.expression.containsAggregate(of: entity) {
            let grouped = groups.contains { $0 == property || $0.name == property.name || $0.expression == property.expression }
            if grouped { continue }
            throw fail(groups.isEmpty
                ? "The fetch request fetches \(input: property.name) beside aggregates; add it to propertiesToGroupBy or aggregate it."
                : "The fetch request fetches \(input: property.name), which is neither an aggregate nor in propertiesToGroupBy.", property.name)
        }
    }
}

extension FetchExpression {
    /// Whether the expression applies an aggregate function (`sum:` …) to a value of the
    /// fetched record, which in a fetch reduces the records of a group. An aggregate of a
    /// collection the record holds (`sum:(employees.salary)`, `count:({1, 2})`) is the
    /// record's own value, as Foundation evaluates it.
    func containsAggregate(of entity: EntityDescription) -> Bool {
        aggregateArgument(of: entity) != nil || children.contains { $0.containsAggregate(of: entity) }
    }

    /// For `f(x)` with `f` an aggregate over the records, `x`.
    func aggregateArgument(of entity: EntityDescription) -> FetchExpression? {
        guard case .function(let function, let arguments) = self, function.isAggregate, arguments.count == 1,
              !arguments[0].isCollectionValued(from: entity) else { return nil }
        return arguments[0]
    }

    /// Whether the value for one record is a collection (a to-many key path, `{…}`, a SUBQUERY).
    func isCollectionValued(from entity: EntityDescription) -> Bool {
        switch self {
        case .collection, .subquery: return true
        case .keyPath(let path, .evaluatedObject):
            var current = entity
            for key in path.split(separator: ".") {
                guard let relationship = current.relationshipsByName[String(key)] else { return false }
                if relationship.isToMany { return true }
                current = current.destination(of: relationship)
            }
            return false
        default: return false
        }
    }

    /// The expressions directly inside this one.
    var children: [FetchExpression] {
        switch self {
        case .constant, .evaluatedObject, .variable: return []
        case .collection(let elements): return elements
        case .keyPath(_, let base): return [base]
        case .collectionOperator(_, let collection, _): return [collection]
        case .subquery(let collection, _, _): return [collection]
        case .function(_, let arguments): return arguments
        case .conditional(let condition, let then, let otherwise): return condition.expressions + [then, otherwise]
        case .index(let base, let index):
            if case .at(let key) = index { return [base, key] }
            return [base]
        }
    }
}

extension FetchPredicate {
    /// The expressions the predicate compares.
    var expressions: [FetchExpression] {
        switch self {
        case .constant: return []
        case .comparison(let comparison): return [comparison.lhs, comparison.rhs]
        case .and(let terms), .or(let terms): return terms.flatMap(\.expressions)
        case .not(let inner): return inner.expressions
        }
    }
}
