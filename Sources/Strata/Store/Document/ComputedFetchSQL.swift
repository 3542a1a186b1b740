import Foundation

/// A computed dictionary fetch as one SQL statement over the snapshot tables:
/// `SELECT expr, … FROM … WHERE … GROUP BY … HAVING … ORDER BY … LIMIT … OFFSET …`.
///
/// Scalar parts go through the predicate translator (``SQLTranslation/operand(_:in:)``),
/// so they mean exactly what the evaluator computes; the aggregates over the records are
/// SQL's (`count`, `min`/`max` of numbers and dates, `sum`/`avg` of integers, booleans and
/// doubles; `sum:` of nothing is 0 as in memory). Anything else — a construct the
/// translator leaves to memory, an aggregate SQL does not compute exactly (decimals,
/// `median:`, `mode:`, `stddev:`), a relationship fetched, `DISTINCT` with an order on
/// what is not fetched — gives nil, and the fetch is computed in memory (``ComputedFetch``),
/// which is the reference this must equal.
///
/// ```swift
/// let built = try ComputedFetchSQL(schema: schema, storeTag: tag, limits: limits).build(request, entity: employee)
/// // SELECT d1."name", coalesce(sum(t."salary"), 0) FROM "Person" AS t LEFT JOIN "Department" AS d1 …
/// //   WHERE t."_entity" = 2 GROUP BY d1."name" ORDER BY d1."name" ASC, min(t."_pk")
/// ```
struct ComputedFetchSQL {
    let schema: SnapshotSchema
    let storeTag: UInt32?
    let limits: StrataLimits

    /// The statement and, per fetched property, its kind in SQL.
    struct Built {
        var query: SQLQuery
        var columns: [(property: FetchProperty, kind: SQLValueKind)]
    }

    /// Builds the statement, or nil when SQL cannot give the in-memory answer exactly.
    func build(_ request: FetchRequest<ManagedObject>, entity: EntityDescription) throws -> Built? {
        try request.predicate?.checkLimits(limits)
        try request.havingPredicate?.checkLimits(limits)
        let plan = ComputedFetch(request: request, entity: entity)
        let aggregates = plan.aggregates
        var translation = SQLTranslation(schema: schema, storeTag: storeTag, entity: entity)
        var environment = translation.rootEnvironment
        do {
            var conditions: [String] = []
            if let filter = entityFilter(entity, includesSubentities: request.includesSubentities) { conditions.append(filter) }
            if let predicate = request.predicate {
                for conjunct in SQLPredicateTranslator.conjuncts(of: predicate) {
                    conditions.append(try translation.condition(conjunct, in: environment))
                }
            }
            var columns: [(property: FetchProperty, kind: SQLValueKind)] = []
            var selected: [String] = []
            for property in plan.fetched {
                let scalar = try value(property.expression, aggregates: aggregates, entity: entity, &translation, &environment)
                columns.append((property, scalar.kind))
                selected.append(scalar.sql)
                // Names stand for their values in HAVING and ORDER BY.
                environment.variables[Self.nameVariable(property.name)] = .scalar(scalar)
            }
            var groupTerms: [String] = []
            for property in request.propertiesToGroupBy ?? [] {
                groupTerms.append(try value(property.expression, aggregates: false, entity: entity, &translation, &environment).sql)
            }
            var havingSQL = ""
            if let having = request.havingPredicate {
                let names = Set(plan.fetched.map(\.name))
                let named = try having.mapExpressions { try Self.naming($0, names) }
                let reduced = try named.mapExpressions { try aggregateVariables($0, entity: entity, &translation, &environment) }
                havingSQL = " HAVING " + (try translation.condition(reduced, in: environment))
            }
            var orderTerms: [String] = []
            for descriptor in request.sortDescriptors {
                let names = Set(plan.fetched.map(\.name))
                let expression = try Self.naming(.key(descriptor.keyPath), names)
                let scalar = try value(expression, aggregates: aggregates, entity: entity, &translation, &environment)
                orderTerms.append(SQLTranslation.orderTerm(scalar, descriptor))
            }
            if request.returnsDistinctResults {
                // Keeping the first of equal dictionaries in order is GROUP BY the fetched
                // values when the order reads only them.
                let names = Set(plan.fetched.map(\.name))
                guard !aggregates, request.sortDescriptors.allSatisfy({ names.contains($0.keyPath) }) else { return nil }
                groupTerms = selected
            }
            orderTerms.append(aggregates || request.returnsDistinctResults ? "min(t.\"_pk\")" : "t.\"_pk\"")
            let whereClause = conditions.isEmpty ? "" : " WHERE " + SQLTranslation.balanced(conditions, "AND")
            var sql = "SELECT \(selected.isEmpty ? "1" : selected.joined(separator: ", ")) FROM \(translation.renderFrom(translation.rootScope))\(whereClause)"
            if !groupTerms.isEmpty { sql += " GROUP BY " + groupTerms.joined(separator: ", ") }
            sql += havingSQL
            sql += " ORDER BY " + orderTerms.joined(separator: ", ")
            if request.fetchLimit > 0 || request.fetchOffset > 0 {
                let limit = translation.bind(.integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1))
                let offset = translation.bind(.integer(Int64(request.fetchOffset)))
                sql += " LIMIT \(limit) OFFSET \(offset)"
            }
            try translation.checkSQLiteLimits(sql)
            return Built(query: SQLQuery(sql: sql, bindings: translation.bindings).compacted(), columns: columns)
        } catch is SQLResidual {
            return nil
        }
    }

    /// The result dictionaries of the statement's rows.
    static func dictionaries(_ rows: [[SQLiteValue]], _ built: Built) throws -> [[String: PropertyValue]] {
        try rows.map { row in
            var dictionary: [String: PropertyValue] = [:]
            for (index, column) in built.columns.enumerated() {
                let raw = try SnapshotValueCoding.decode(row[index], as: column.kind.attributeType, column: column.property.name)
                let value = try ComputedFetch.convert(raw, of: column.property)
                if !value.isNull { dictionary[column.property.name] = value }
            }
            return dictionary
        }
    }

    // MARK: Pieces

    /// The SQL of one value: the translator's scalar, aggregates over the records replaced
    /// by SQL aggregates first.
    private func value(_ expression: FetchExpression, aggregates: Bool, entity: EntityDescription,
                       _ translation: inout SQLTranslation, _ environment: inout SQLEnvironment) throws -> SQLScalar {
        let reduced = aggregates ? try aggregateVariables(expression, entity: entity, &translation, &environment) : expression
        guard case .scalar(let scalar) = try translation.operand(reduced, in: environment) else {
            throw SQLResidual(reason: "a fetched relationship or collection")
        }
        return scalar
    }

    /// The expression with each aggregate over the records replaced by a variable bound to
    /// its SQL (the translator reads variables from the environment).
    private func aggregateVariables(_ expression: FetchExpression, entity: EntityDescription,
                                    _ translation: inout SQLTranslation, _ environment: inout SQLEnvironment) throws -> FetchExpression {
        if case .function(let function, _) = expression, let argument = expression.aggregateArgument(of: entity) {
            let name = "_strata_aggregate_\(environment.variables.count)"
            environment.variables[name] = .scalar(try aggregate(function, argument, &translation, environment))
            return .variable(name)
        }
        var transformed = translation, transformedEnvironment = environment
        let result = try expression.mapChildren { child in
            try aggregateVariables(child, entity: entity, &transformed, &transformedEnvironment)
        }
        (translation, environment) = (transformed, transformedEnvironment)
        return result
    }

    /// One SQL aggregate, where SQLite computes the evaluator's value exactly.
    private func aggregate(_ function: FetchFunction, _ argument: FetchExpression,
                           _ translation: inout SQLTranslation, _ environment: SQLEnvironment) throws -> SQLScalar {
        let operand = try translation.operand(argument, in: environment)
        let sql: String, kind: SQLValueKind
        switch operand {
        case .scalar(let scalar): (sql, kind) = (scalar.sql, scalar.kind)
        case .object(let object): (sql, kind) = (object.pk, .integer)
            guard function == .count else { throw SQLResidual(reason: "an aggregate of objects") }
        default: throw SQLResidual(reason: "an aggregate of a collection")
        }
        switch (function, kind) {
        case (.count, _): return SQLScalar(sql: "count(\(sql))", kind: .integer)
        case (.sum, .integer), (.sum, .boolean): return SQLScalar(sql: "coalesce(sum(\(sql)), 0)", kind: .integer)
        case (.sum, .double): return SQLScalar(sql: "coalesce(sum(\(sql)), 0)", kind: .double)
        case (.average, .integer), (.average, .boolean), (.average, .double): return SQLScalar(sql: "avg(\(sql))", kind: .double)
        case (.min, .integer), (.min, .double), (.min, .date), (.max, .integer), (.max, .double), (.max, .date):
            return SQLScalar(sql: "\(function == .min ? "min" : "max")(\(sql))", kind: kind)
        default: throw SQLResidual(reason: "\(function.rawValue) of \(kind.name) values")
        }
    }

    /// A key path naming a fetched property becomes the variable bound to its value.
    private static func naming(_ expression: FetchExpression, _ names: Set<String>) throws -> FetchExpression {
        if case .keyPath(let path, .evaluatedObject) = expression, names.contains(path) { return .variable(nameVariable(path)) }
        return try expression.mapChildren { try naming($0, names) }
    }

    private static func nameVariable(_ name: String) -> String { "_strata_name_\(name)" }

    /// `t._entity IN (…)`, as for record fetches.
    private func entityFilter(_ entity: EntityDescription, includesSubentities: Bool) -> String? {
        let root = entity.rootEntity
        if includesSubentities && entity === root { return nil }
        guard schema.table(for: root).hasEntityColumn else { return nil }
        let indexes = (includesSubentities ? entity.selfAndDescendants : [entity]).map(\.index).sorted()
        return "t.\"_entity\" IN (\(indexes.map(String.init).joined(separator: ", ")))"
    }
}

extension SQLValueKind {
    /// The attribute type a column of this kind is read as.
    var attributeType: AttributeType {
        switch self {
        case .integer, .null: return .integer64
        case .boolean: return .boolean
        case .double: return .double
        case .decimal: return .decimal
        case .string: return .string
        case .date: return .date
        case .data: return .binaryData
        case .uuid: return .uuid
        case .uri: return .uri
        }
    }
}
