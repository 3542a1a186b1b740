import Foundation

extension SQLTranslation {
    /// `collection.@op.key` as a correlated aggregate subquery, with the evaluator's
    /// results: `@count` counts elements (NULL ones too), `@sum` of nothing is 0, `@avg`
    /// a double, `@min`/`@max` by the comparison rules; NULL values are ignored.
    mutating func aggregate(_ op: FetchCollectionOperator, of source: SQLOperand, key: String?) throws -> SQLOperand {
        var collection: SQLCollection
        switch source {
        case .collection(let found):
            collection = found
        case .scalar(let scalar) where scalar.isNullLiteral:
            // The collection operator of NULL: nothing.
            return .scalar(op == .count || op == .sum
                ? SQLScalar(sql: "0", kind: .integer) : SQLScalar(sql: "NULL", kind: .null, constant: .null))
        case .list:
            throw SQLResidual(reason: "a collection operator on a literal collection")
        default:
            throw StrataError(.predicateEvaluation, "\(op.rawValue) needs a collection (a to-many key path or {…})",
                              context: .init { $0.function = op.rawValue })
        }
        if let key {
            guard case .collection(let extended) = try follow(key.split(separator: ".").map(String.init), from: .collection(collection)) else {
                throw SQLResidual(reason: "collection operator key")
            }
            collection = extended
        }
        if op == .count {
            return .scalar(SQLScalar(sql: "(\(renderSubquery(collection.scope, select: "COUNT(*)")))", kind: .integer))
        }
        let value: SQLScalar
        switch collection.element {
        case .scalar(let scalar):
            value = scalar
        case .object:
            throw StrataError(.predicateEvaluation, "\(op.rawValue) needs values, not objects; name a key: \(op.rawValue).key",
                              context: .init { $0.function = op.rawValue })
        default:
            throw SQLResidual(reason: "nested collection in \(op.rawValue)")
        }
        if value.isNullLiteral {
            return .scalar(op == .sum ? SQLScalar(sql: "0", kind: .integer) : SQLScalar(sql: "NULL", kind: .null, constant: .null))
        }
        let x = value.sql
        let select: String
        let kind: SQLValueKind
        switch (op, value.kind) {
        case (.sum, .integer), (.sum, .boolean):
            (select, kind) = ("COALESCE(SUM(\(x)), 0)", .integer)
        case (.sum, .double):
            // SUM of REALs is REAL; with no values the evaluator's 0 is an integer.
            (select, kind) = ("COALESCE(SUM(\(x)), 0)", .double)
        case (.sum, .decimal):
            (select, kind) = ("\(SQLFunctions.decimalSum)(group_concat(\(x), ','))", .decimal)
        case (.avg, .integer), (.avg, .boolean):
            (select, kind) = ("CAST(SUM(\(x)) AS REAL) / COUNT(\(x))", .double)
        case (.avg, .double):
            (select, kind) = ("SUM(\(x)) / COUNT(\(x))", .double)
        case (.avg, .decimal):
            (select, kind) = ("\(SQLFunctions.decimalAverage)(group_concat(\(x), ','))", .double)
        case (.sum, _), (.avg, _):
            throw StrataError(.predicateEvaluation, "@sum and @avg need numbers, not \(withArticle(value.kind.name))",
                              context: .init { $0.function = op.rawValue })
        case (.min, .decimal):
            (select, kind) = ("\(SQLFunctions.decimalMinimum)(group_concat(\(x), ','))", .decimal)
        case (.max, .decimal):
            (select, kind) = ("\(SQLFunctions.decimalMaximum)(group_concat(\(x), ','))", .decimal)
        case (.min, _):
            (select, kind) = ("MIN(\(x))", value.kind)
        default:
            (select, kind) = ("MAX(\(x))", value.kind)
        }
        return .scalar(SQLScalar(sql: "(\(renderSubquery(collection.scope, select: select)))", kind: kind))
    }

    /// `SUBQUERY(collection, $x, predicate)`: the collection's rows for which the predicate
    /// (with SELF and `$x` the element) is TRUE.
    mutating func subquery(
        _ source: SQLOperand, variable: String, predicate: FetchPredicate, environment: SQLEnvironment
    ) throws -> SQLOperand {
        var collection: SQLCollection
        switch source {
        case .collection(let found):
            collection = found
        case .scalar(let scalar) where scalar.isNullLiteral:
            throw SQLResidual(reason: "SUBQUERY over NULL")
        case .list:
            throw SQLResidual(reason: "SUBQUERY over a literal collection")
        default:
            throw StrataError(.predicateEvaluation, "SUBQUERY needs a collection (a to-many key path or {…})",
                              context: .init { $0.function = "SUBQUERY" })
        }
        var inner = environment
        inner.subject = collection.element
        inner.variables[variable] = collection.element
        let test = try condition(predicate, in: inner)
        scopes[collection.scope].conditions.append("(\(test))")
        // SUBQUERY of a NULL collection is an empty collection, not NULL.
        collection.nullWhen = nil
        return .collection(collection)
    }

    /// One `ORDER BY` term: NULLs first ascending, last descending (SQLite's order),
    /// strings folded for `.caseInsensitive`/`.localized`, decimals by value.
    /// - Throws: `.invalidArgument` when the key path does not end at a stored attribute
    ///   reached through to-ones; `.unknownKey` for an unknown key.
    mutating func orderTerm(_ descriptor: FetchSortDescriptor) throws -> String {
        let value: SQLOperand
        do {
            value = try follow(descriptor.keyPath.split(separator: ".").map(String.init), from: rootEnvironment.subject)
        } catch let residual as SQLResidual {
            throw StrataError(.invalidArgument, "cannot sort on '\(descriptor.keyPath)': \(residual.reason) is not stored",
                              context: .init { $0.key = descriptor.keyPath })
        }
        guard case .scalar(let scalar) = value else {
            throw StrataError(.invalidArgument,
                              "cannot sort on '\(descriptor.keyPath)': sort keys must be attributes reached through to-one relationships",
                              context: .init { $0.key = descriptor.keyPath })
        }
        return Self.orderTerm(scalar, descriptor)
    }

    /// The `ORDER BY` term for a scalar with the in-memory comparator's meaning: strings
    /// folded first, then binary among strings that fold alike ("Ada" before "ada"), as
    /// FetchSortDescriptor.compareValues orders them; decimals by value.
    static func orderTerm(_ scalar: SQLScalar, _ descriptor: FetchSortDescriptor) -> String {
        let direction = descriptor.ascending ? "ASC" : "DESC"
        let sql = scalar.sql
        switch (scalar.kind, descriptor.comparison) {
        case (.string, .caseInsensitive), (.string, .localized):
            let options = descriptor.comparison == .caseInsensitive
                ? FetchComparison.Options.caseInsensitive : FetchComparison.Options.caseDiacriticInsensitive
            return "\(SQLFunctions.fold)(\(sql), \(options.rawValue)) \(direction), \(sql) \(direction)"
        case (.decimal, _): return "\(SQLFunctions.decimalKey)(\(sql)) \(direction)"
        default: return "\(sql) \(direction)"
        }
    }
}
