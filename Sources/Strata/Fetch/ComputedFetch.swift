import Foundation

/// A computed dictionary fetch (expressions, aggregates, groups, having) done in memory
/// over the matching records: the answer whenever SQL cannot give it alone (pending
/// changes, an in-memory store, a construct SQL does not compute), and the reference the
/// SQL answer must equal (docs/SEMANTICS.md "Computed and grouped fetches").
///
/// ```swift
/// let rows = try ComputedFetch(request: request, entity: employee).rows(subjects)
/// ```
///
/// Steps, as SQL runs them: group the records by the group-by values (in the order groups
/// first appear, records in object ID order); compute each fetched property per group,
/// every aggregate reducing the group's values of its argument with the evaluator's
/// aggregate rules (NULLs ignored); keep the groups the having predicate accepts; sort;
/// drop duplicates when asked; apply the offset and limit. Without grouping, a fetch
/// with aggregates is one group of every record (one dictionary, even for no record), and
/// one without aggregates gives a dictionary per record.
struct ComputedFetch {
    let request: FetchRequest<ManagedObject>
    let entity: EntityDescription

    /// What is fetched: the request's properties, or the group-by ones when it names none.
    var fetched: [FetchProperty] { request.propertiesToFetch ?? request.propertiesToGroupBy ?? [] }

    /// Whether the records are reduced to groups (grouping, or an aggregate fetched).
    var aggregates: Bool {
        !(request.propertiesToGroupBy ?? []).isEmpty || fetched.contains { $0.expression.containsAggregate(of: entity) }
    }

    /// The result dictionaries for the matching records (in object ID order).
    /// - Throws: evaluation errors; `.typeMismatch` for a value that cannot be the
    ///   expression description's result type.
    func rows(_ subjects: [any PredicateSubject]) throws -> [[String: PropertyValue]] {
        let groupBy = request.propertiesToGroupBy ?? []
        var groups: [[any PredicateSubject]] = []
        if !aggregates {
            groups = subjects.map { [$0] }
        } else if groupBy.isEmpty {
            groups = [subjects]
        } else {
            var index: [[GroupKey]: Int] = [:]
            for subject in subjects {
                let key = try groupBy.map { GroupKey(try Self.value(of: $0.expression, for: subject, name: $0.name)) }
                if let at = index[key] {
                    groups[at].append(subject)
                } else {
                    index[key] = groups.count
                    groups.append([subject])
                }
            }
        }
        var results: [(row: [String: PropertyValue], first: (any PredicateSubject)?)] = []
        for group in groups {
            var row: [String: PropertyValue] = [:]
            for property in fetched {
                let value = try Self.value(of: reduced(property.expression, over: group), for: group.first ?? PredicateRow(), name: property.name)
                let typed = try Self.convert(value, of: property)
                if !typed.isNull { row[property.name] = typed }
            }
            if let having = request.havingPredicate {
                let subject = GroupSubject(row: row, names: Set(fetched.map(\.name)), first: group.first)
                let reducedHaving = try having.mapExpressions { try reduced($0, over: group) }
                guard try reducedHaving.evaluate(with: subject) else { continue }
            }
            results.append((row, group.first))
        }
        if !request.sortDescriptors.isEmpty {
            let names = Set(fetched.map(\.name))
            let keyed = try results.enumerated().map { position, result in
                let keys = try request.sortDescriptors.map { descriptor -> PropertyValue in
                    if names.contains(descriptor.keyPath) { return result.row[descriptor.keyPath] ?? .null }
                    return try result.first?.resolvedValue(atKeyPath: descriptor.keyPath) ?? .null
                }
                return (position: position, keys: keys, row: result.row)
            }
            let sorted = keyed.sorted { lhs, rhs in
                let order = FetchSortDescriptor.compare(lhs.keys, rhs.keys, by: request.sortDescriptors)
                return order != 0 ? order < 0 : lhs.position < rhs.position
            }
            results = sorted.map { ($0.row, nil) }
        }
        var rows = results.map(\.row)
        if request.returnsDistinctResults {
            var seen: Set<[String: GroupKey]> = []
            rows = rows.filter { seen.insert($0.mapValues(GroupKey.init)).inserted }
        }
        return StoreFetchMerge.window(rows, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    /// The expression with each aggregate over the records replaced by the same function
    /// of the literal collection of the group's values (`sum:(salary)` → `sum:({10, 20})`),
    /// so the evaluator's aggregate rules apply unchanged.
    private func reduced(_ expression: FetchExpression, over group: [any PredicateSubject]) throws -> FetchExpression {
        guard aggregates else { return expression }
        if case .function(let function, _) = expression, let argument = expression.aggregateArgument(of: entity) {
            var values: [FetchExpression] = []
            for subject in group {
                switch try PredicateEvaluator(subject: .object(subject), variables: [:]).value(argument) {
                case .collection(let elements): values += try elements.map { .constant(try Self.single($0, name: function.rawValue)) }
                case let single: values.append(.constant(try Self.single(single, name: function.rawValue)))
                }
            }
            return .function(function, [.collection(values)])
        }
        return try expression.mapChildren { try reduced($0, over: group) }
    }

    /// An expression's value for one record (or group's first record).
    static func value(of expression: FetchExpression, for subject: any PredicateSubject, name: String) throws -> PropertyValue {
        try single(try PredicateEvaluator(subject: .object(subject), variables: [:]).value(expression), name: name)
    }

    /// One property value from an operand: objects become their IDs.
    private static func single(_ operand: PredicateOperand, name: String) throws -> PropertyValue {
        switch operand {
        case .value(let value): return value
        case .object(let subject): return subject.predicateObjectID.map(PropertyValue.object) ?? .null
        case .collection(let elements):
            var ids: [ManagedObjectID] = []
            for element in elements {
                guard case .object(let subject) = element, let id = subject.predicateObjectID else {
                    throw StrataError(.typeMismatch, "The fetched property \(input: name) is a collection of values; a dictionary holds one value per key.",
                                      context: .init { $0.key = name })
                }
                ids.append(id)
            }
            return .objects(.init(ids))
        }
    }

    /// A value as the expression description's result type: numbers convert between
    /// integer (toward zero, as SQLite's CAST), double and decimal; other types must match.
    static func convert(_ value: PropertyValue, of property: FetchProperty) throws -> PropertyValue {
        guard case .expression(let description) = property, !value.isNull else { return value }
        func mismatch() -> StrataError {
            StrataError(.typeMismatch, "The fetched expression \(input: description.name) gives \(ModelValueRules.kindName(value)) \(value), not \(withArticle(description.resultType.rawValue)): declare the type it computes (the description's resultType; `AS name:type` in `strata fetch --select`).",
                        context: .init { $0.key = description.name })
        }
        switch description.resultType.valueKind {
        case .integer:
            switch value {
            case .integer: return value
            case .boolean(let flag): return .integer(flag ? 1 : 0)
            case .double, .decimal:
                guard let number = value.numericValue, number.isFinite, let whole = Int64(exactly: number.rounded(.towardZero)) else { throw mismatch() }
                return .integer(whole)
            default: throw mismatch()
            }
        case .double:
            guard let number = value.numericValue else { throw mismatch() }
            return .double(number)
        case .decimal:
            switch value {
            case .decimal: return value
            case .integer(let whole): return .decimal(Decimal(whole))
            case .double(let number): return .decimal(Decimal(number))
            case .boolean(let flag): return .decimal(flag ? 1 : 0)
            default: throw mismatch()
            }
        case .boolean:
            switch value {
            case .boolean: return value
            case .integer(let whole): return .boolean(whole != 0)
            default: throw mismatch()
            }
        case .string, .date, .data, .uuid, .uri:
            // Relationship values pass through (a key path's destination).
            switch value {
            case .object, .objects: return value
            default:
                guard value.valueKind == description.resultType.valueKind else { throw mismatch() }
                return value
            }
        }
    }
}

/// A value as SQLite's `GROUP BY` and `DISTINCT` tell values apart: strings by their
/// Unicode scalars (SQLite compares bytes; Swift's `==` would merge "é" precomposed and
/// decomposed), everything else as ``PropertyValue``'s equality.
struct GroupKey: Hashable {
    let value: PropertyValue
    init(_ value: PropertyValue) { self.value = value }

    static func == (lhs: GroupKey, rhs: GroupKey) -> Bool {
        if case .string(let a) = lhs.value, case .string(let b) = rhs.value { return a.unicodeScalars.elementsEqual(b.unicodeScalars) }
        return lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) {
        if case .string(let text) = value {
            hasher.combine(0)
            for scalar in text.unicodeScalars { hasher.combine(scalar.value) }
        } else {
            hasher.combine(value)
        }
    }
}

/// A group as the having predicate sees it: the fetched names first, then the key paths
/// of the group's first record (the group-by values are the same for every record).
private struct GroupSubject: PredicateSubject {
    let row: [String: PropertyValue]
    let names: Set<String>
    let first: (any PredicateSubject)?

    func predicateValue(forKey key: String) throws -> PredicateResolved {
        if names.contains(key) { return .value(row[key] ?? .null) }
        guard let first else { return .value(.null) }
        return try first.predicateValue(forKey: key)
    }

    var predicateObjectID: ManagedObjectID? { nil }
}

extension FetchExpression {
    /// The expression with its direct children replaced.
    func mapChildren(_ transform: (FetchExpression) throws -> FetchExpression) throws -> FetchExpression {
        switch self {
        case .constant, .evaluatedObject, .variable: return self
        case .collection(let elements): return .collection(try elements.map(transform))
        case .keyPath(let path, let base): return .keyPath(path, on: try transform(base))
        case .collectionOperator(let op, let collection, let key): return .collectionOperator(op, of: try transform(collection), key: key)
        case .subquery(let collection, let variable, let predicate): return .subquery(collection: try transform(collection), variable: variable, predicate: predicate)
        case .function(let function, let arguments): return .function(function, try arguments.map(transform))
        case .conditional(let condition, let then, let otherwise):
            return .conditional(try condition.mapExpressions(transform), then: try transform(then), else: try transform(otherwise))
        case .index(let base, let index):
            if case .at(let key) = index { return .index(try transform(base), .at(try transform(key))) }
            return .index(try transform(base), index)
        }
    }
}

extension FetchPredicate {
    /// The predicate with each compared expression replaced.
    func mapExpressions(_ transform: (FetchExpression) throws -> FetchExpression) throws -> FetchPredicate {
        switch self {
        case .constant: return self
        case .comparison(var comparison):
            comparison.lhs = try transform(comparison.lhs)
            comparison.rhs = try transform(comparison.rhs)
            return .comparison(comparison)
        case .and(let terms): return .and(try terms.map { try $0.mapExpressions(transform) })
        case .or(let terms): return .or(try terms.map { try $0.mapExpressions(transform) })
        case .not(let inner): return .not(try inner.mapExpressions(transform))
        }
    }
}
