import Foundation

/// Translates store fetches into SQL over the snapshot tables, with exactly the in-memory
/// evaluator's meaning (docs/PREDICATES.md §3, docs/SQL.md).
///
/// The predicate's top-level conjuncts that SQL can decide exactly become the `WHERE`
/// clause; the others come back as a residual predicate for the caller to evaluate in
/// memory on the candidates. Values are always bound parameters; the connection needs the
/// functions of ``SQLFunctions``.
///
/// ```swift
/// let schema = try SnapshotSchema(model: model)
/// let translator = SQLPredicateTranslator(schema: schema)
/// let request = StoreFetchRequest(entity: employee, predicate: try FetchPredicate(format: "salary > %d", 5000),
///                                 sortDescriptors: [FetchSortDescriptor("lastName")], fetchLimit: 10)
/// let plan = try translator.plan(for: request)
/// // plan.select.sql: SELECT t."_pk", t."_entity" FROM "Person" AS t WHERE t."_entity" = 1 AND (t."salary" > ?1)
/// //                  ORDER BY t."lastName" ASC, t."_pk" ASC LIMIT ?2 OFFSET ?3
/// ```
struct SQLPredicateTranslator {
    /// The snapshot schema queried.
    let schema: SnapshotSchema
    /// The tag of the store whose rows the tables hold: an object ID with another tag (or a
    /// temporary one) equals no row. Nil accepts any permanent ID's primary key.
    let storeTag: UInt32?
    /// What a predicate is held to before any SQL is built.
    let limits: StrataLimits

    /// Creates a translator for one document's schema.
    init(schema: SnapshotSchema, storeTag: UInt32? = nil, limits: StrataLimits = .current) {
        self.schema = schema
        self.storeTag = storeTag
        self.limits = limits
    }

    /// The queries for a fetch, and what is left for memory.
    ///
    /// - Parameters:
    ///   - request: the fetch; its predicate's free `$VARIABLES` are replaced from `variables`.
    ///   - variables: substitution variables.
    ///   - selectingValues: whether ``SQLFetchPlan/select`` also returns each row's
    ///     columns (``SnapshotRowLayout/columns``, after `_pk` and the entity), so that a
    ///     fetch reads its records' values in the statement that finds them.
    /// - Returns: the plan; see ``SQLFetchPlan`` for how to run it.
    /// - Throws: `StrataError(.predicateEvaluation)` for what the evaluator rejects (a string
    ///   compared with a number, per the model's attribute types; a to-many compared
    ///   without ANY/ALL/NONE; a missing variable; an invalid MATCHES expression),
    ///   `.unknownKey` for a key the entity does not have, `.invalidArgument` for a sort on
    ///   something that is not a stored attribute; a predicate beyond ``limits``
    ///   (docs/LIMITS.md) is refused with `.predicateEvaluation` before any SQL is built.
    /// - Complexity: O(size of the predicate and sort descriptors).
    func plan(for request: StoreFetchRequest, variables: [String: PropertyValue] = [:],
              selectingValues: Bool = false) throws -> SQLFetchPlan {
        try request.predicate?.checkLimits(limits)
        var translation = SQLTranslation(schema: schema, storeTag: storeTag, entity: request.entity)
        var conditions: [String] = []
        if let filter = entityFilter(request.entity, includesSubentities: request.includesSubentities) {
            conditions.append(filter)
        }
        var residual: [FetchPredicate] = []
        if let after = request.primaryKeyAfter {
            conditions.append("t.\"_pk\" > \(translation.bind(.integer(after)))")
        }
        if let predicate = try request.predicate?.withSubstitutionVariables(variables) {
            conditions += rTreeConditions(Self.conjuncts(of: predicate), entity: request.entity, translation: &translation)
            for conjunct in Self.conjuncts(of: predicate) {
                let saved = translation
                do {
                    let condition = try translation.condition(conjunct, in: translation.rootEnvironment)
                    try translation.checkSQLiteLimits(condition)
                    conditions.append(condition)
                } catch is SQLResidual {
                    translation = saved
                    residual.append(conjunct)
                }
            }
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + SQLTranslation.balanced(conditions, "AND")
        let count = SQLQuery(sql: "SELECT COUNT(*) FROM \(translation.renderFrom(translation.rootScope))\(whereClause)",
                             bindings: translation.bindings).compacted()
        var orderTerms: [String] = []
        for descriptor in request.sortDescriptors {
            orderTerms.append(try translation.orderTerm(descriptor))
        }
        orderTerms.append("t.\"_pk\" ASC")
        var values = ""
        if selectingValues, let layout = schema.rowLayouts[request.entity.rootEntityIndex], !layout.columns.isEmpty {
            values = ", " + layout.selectList(alias: "t")
        }
        var sql = "SELECT t.\"_pk\", \(schema.table(for: request.entity).entitySQL(alias: "t"))\(values) FROM \(translation.renderFrom(translation.rootScope))\(whereClause)"
        sql += " ORDER BY " + orderTerms.joined(separator: ", ")
        if residual.isEmpty, request.fetchLimit > 0 || request.fetchOffset > 0 {
            let limit = translation.bind(.integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1))
            let offset = translation.bind(.integer(Int64(max(0, request.fetchOffset))))
            sql += " LIMIT \(limit) OFFSET \(offset)"
        }
        let remaining: FetchPredicate? = switch residual.count {
        case 0: nil
        case 1: residual[0]
        default: .and(residual)
        }
        return SQLFetchPlan(select: SQLQuery(sql: sql, bindings: translation.bindings).compacted(),
                            count: count, residual: remaining)
    }

    /// `t._entity IN (…)` for the entity (and its descendants), or nil when that is the
    /// whole table. Entity indexes come from the model, not from the request's values.
    private func entityFilter(_ entity: EntityDescription, includesSubentities: Bool) -> String? {
        let root = entity.rootEntity
        if includesSubentities && entity === root { return nil }
        // Without `_entity` the hierarchy is the root alone: every row is the entity.
        guard schema.table(for: root).hasEntityColumn else { return nil }
        let indexes = (includesSubentities ? entity.selfAndDescendants : [entity]).map(\.index).sorted()
        if indexes.count == 1 { return "t.\"_entity\" = \(indexes[0])" }
        return "t.\"_entity\" IN (\(indexes.map(String.init).joined(separator: ", ")))"
    }

    /// The top-level conjuncts: nested ANDs flattened, TRUEPREDICATE dropped.
    static func conjuncts(of predicate: FetchPredicate) -> [FetchPredicate] {
        switch predicate {
        case .and(let terms): return terms.flatMap(conjuncts(of:))
        case .constant(true): return []
        default: return [predicate]
        }
    }
}

/// Thrown inside the translation when a construct cannot be decided exactly in SQL; the
/// enclosing top-level conjunct becomes residual.
struct SQLResidual: Error {
    /// Why, for logs.
    var reason: String
}

/// One `FROM` clause being built: its first table, its joins and its conditions. Scopes
/// nest as correlated subqueries.
struct SQLScope {
    /// `"Table" AS alias`, then ` JOIN …` / ` LEFT JOIN …` pieces.
    var from: [String]
    /// Conditions ANDed into the scope's WHERE (correlation, filters).
    var conditions: [String] = []
    /// Joined to-ones by `alias.relationship`, so each path is joined once.
    var joins: [String: String] = [:]
}
