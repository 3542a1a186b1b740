import Foundation

extension SQLTranslation {
    /// A predicate as a three-valued SQL expression (NULL is UNKNOWN), the evaluator's
    /// Kleene logic being SQL's own.
    mutating func condition(_ predicate: FetchPredicate, in environment: SQLEnvironment) throws -> String {
        switch predicate {
        case .constant(let flag): return flag ? "1" : "0"
        // NOT NOT x is x in Kleene logic too (NOT NOT UNKNOWN is UNKNOWN); dropping the
        // pair keeps a chain of NOTs from nesting SQL past what SQLite's parser takes.
        case .not(.not(let inner)): return try condition(inner, in: environment)
        case .not(let inner): return "NOT (\(try condition(inner, in: environment)))"
        case .and(let terms):
            if terms.isEmpty { return "1" }
            return Self.balanced(try terms.map { "(\(try condition($0, in: environment)))" }, "AND")
        case .or(let terms):
            if terms.isEmpty { return "0" }
            if let merged = Self.mergingEqualities(terms) {
                // One `col IN (…)` per key serves an index; if the merged form cannot be
                // translated, the terms as written give the error (or residual) they would.
                let saved = self
                do {
                    return Self.balanced(try merged.map { "(\(try condition($0, in: environment)))" }, "OR")
                } catch {
                    self = saved
                }
            }
            return Self.balanced(try terms.map { "(\(try condition($0, in: environment)))" }, "OR")
        case .comparison(let comparison):
            do {
                return try self.comparison(comparison, in: environment)
            } catch var error as StrataError where error.context.predicate == nil {
                error.context.predicate = comparison.predicateFormat
                throw error
            }
        }
    }

    /// One comparison: quantifiers over collections become EXISTS / NOT EXISTS.
    private mutating func comparison(_ comparison: FetchComparison, in environment: SQLEnvironment) throws -> String {
        let lhs = try operand(comparison.lhs, in: environment)
        let rhs = try operand(comparison.rhs, in: environment)
        let nullTest = Self.isNullLiteral(comparison.lhs) || Self.isNullLiteral(comparison.rhs)
        guard comparison.modifier != .direct else {
            return try direct(lhs, comparison, rhs, nullTest: nullTest)
        }
        switch lhs {
        case .collection(let collection):
            let test = try direct(collection.element, comparison, rhs, nullTest: nullTest)
            switch comparison.modifier {
            case .any: return "EXISTS (\(renderSubquery(collection.scope, select: "1", extra: ["(\(test))"])))"
            case .all: return "NOT EXISTS (\(renderSubquery(collection.scope, select: "1", extra: ["(\(test)) IS NOT TRUE"])))"
            default: return "NOT EXISTS (\(renderSubquery(collection.scope, select: "1", extra: ["(\(test))"])))"
            }
        case .list(let elements):
            let tests = try elements.map { "(\(try direct($0, comparison, rhs, nullTest: nullTest))) IS TRUE" }
            switch comparison.modifier {
            case .any: return tests.isEmpty ? "0" : Self.balanced(tests, "OR")
            case .all: return tests.isEmpty ? "1" : Self.balanced(tests, "AND")
            default: return tests.isEmpty ? "1" : "NOT " + Self.balanced(tests, "OR")
            }
        case .scalar, .object:
            // A single value is a one-element collection; NULL is an empty one.
            if lhs.isNullLiteral { return comparison.modifier == .any ? "0" : "1" }
            let test = try direct(lhs, comparison, rhs, nullTest: nullTest)
            let value = lhs.nullableSQL ?? "NULL"
            switch comparison.modifier {
            case .any: return "(CASE WHEN \(value) IS NULL THEN 0 ELSE (\(test)) IS TRUE END)"
            case .all: return "(CASE WHEN \(value) IS NULL THEN 1 ELSE (\(test)) IS TRUE END)"
            default: return "(CASE WHEN \(value) IS NULL THEN 1 ELSE (\(test)) IS NOT TRUE END)"
            }
        }
    }

    /// Whether the expression is the literal NULL (which makes `==`/`!=` IS NULL tests).
    static func isNullLiteral(_ expression: FetchExpression) -> Bool {
        if case .constant(let value) = expression { return PredicateValueRules.isNull(value) }
        return false
    }

    /// A comparison of two operands, none quantified: the evaluator's `direct`.
    private mutating func direct(_ lhs: SQLOperand, _ comparison: FetchComparison, _ rhs: SQLOperand, nullTest: Bool) throws -> String {
        let op = comparison.op
        switch (op, lhs, rhs) {
        case (.in, .collection, _), (.in, .list, _):
            throw toManyError(op)
        case (.in, _, .list(let elements)):
            return try membership(lhs, in: elements, options: comparison.options)
        case (.in, _, .collection(let collection)):
            return try membership(lhs, in: collection, options: comparison.options)
        case (.in, .scalar(let part), .scalar(let text)) where text.kind == .string:
            // `'ove' IN lastName`: Foundation's substring test, CONTAINS turned around.
            if part.isNullLiteral { return "NULL" }
            guard part.kind == .string else { throw SQLResidual(reason: "IN a string with \(withArticle(part.kind.name)) on the left") }
            return "\(SQLFunctions.contains)(\(text.sql), \(part.sql), \(comparison.options.rawValue))"
        case (.in, _, _):
            if rhs.isNullLiteral { return "NULL" }
            throw StrataError(.predicateEvaluation, "IN needs a collection or a to-many key path on its right side")
        case (.contains, .list(let elements), _):
            if case .collection = rhs { throw toManyError(op) }
            if case .list = rhs { throw toManyError(op) }
            return try membership(rhs, in: elements, options: comparison.options)
        case (.contains, .collection(let collection), _):
            if case .collection = rhs { throw toManyError(op) }
            if case .list = rhs { throw toManyError(op) }
            return try membership(rhs, in: collection, options: comparison.options)
        case (.between, .collection, _), (.between, .list, _):
            throw toManyError(op)
        case (.between, _, .list(let bounds)):
            guard bounds.count == 2 else {
                throw StrataError(.predicateEvaluation, "BETWEEN needs exactly two bounds, found \(bounds.count)")
            }
            let low = try scalarComparison(lhs, .greaterThanOrEqualTo, bounds[0], options: comparison.options, nullTest: false)
            let high = try scalarComparison(lhs, .lessThanOrEqualTo, bounds[1], options: comparison.options, nullTest: false)
            return "((\(low)) AND (\(high)))"
        case (.between, _, _):
            if rhs.isNullLiteral { return "NULL" }
            throw StrataError(.predicateEvaluation, "BETWEEN needs a collection {low, high} on its right side")
        case (_, .collection, _), (_, .list, _), (_, _, .collection), (_, _, .list):
            throw toManyError(op)
        default:
            return try scalarComparison(lhs, op, rhs, options: comparison.options, nullTest: nullTest)
        }
    }

    private func toManyError(_ op: FetchComparison.Operator) -> StrataError {
        StrataError(.predicateEvaluation,
                    "\(op.rawValue) cannot compare a collection (a to-many key path) directly; use ANY, ALL or NONE, IN or CONTAINS",
                    context: .init { $0.function = op.rawValue })
    }

    /// `x IN {a, b, …}`: SQL's IN (Kleene OR of the equalities; FALSE when empty).
    private mutating func membership(_ value: SQLOperand, in elements: [SQLOperand], options: FetchComparison.Options) throws -> String {
        if elements.isEmpty { return "0" }
        if elements.contains(where: { if case .collection = $0 { return true }; if case .list = $0 { return true }; return false }) {
            throw toManyError(.in)
        }
        // An indexable plain IN when no folding or decimal arithmetic is involved.
        if case .scalar(let scalar) = value, options.isEmpty || scalar.kind != .string, scalar.kind != .decimal,
           scalar.kind != .null, scalar.kind != .uuid {
            let constants = elements.compactMap { element -> SQLScalar? in
                guard case .scalar(let item) = element, item.constant != nil else { return nil }
                return item
            }
            if constants.count == elements.count,
               constants.allSatisfy({ $0.kind == .null || Self.plainlyComparable(scalar.kind, $0.kind) }) {
                return "(\(scalar.sql) IN (\(constants.map(\.sql).joined(separator: ", "))))"
            }
        }
        let tests = try elements.map { try scalarComparison(value, .equalTo, $0, options: options, nullTest: false) }
        return Self.balanced(tests.map { "(\($0))" }, "OR")
    }

    /// `x IN collection`: TRUE if an element equals x; else UNKNOWN if a comparison is;
    /// else FALSE; UNKNOWN for a NULL collection.
    private mutating func membership(_ value: SQLOperand, in collection: SQLCollection, options: FetchComparison.Options) throws -> String {
        if case .collection = value { throw toManyError(.in) }
        if case .list = value { throw toManyError(.in) }
        let test = try scalarComparison(value, .equalTo, collection.element, options: options, nullTest: false)
        let found = renderSubquery(collection.scope, select: "1", extra: ["(\(test))"])
        let unknown = renderSubquery(collection.scope, select: "1", extra: ["(\(test)) IS NULL"])
        let nullCase = collection.nullWhen.map { "WHEN \($0) THEN NULL " } ?? ""
        return "(CASE \(nullCase)WHEN EXISTS (\(found)) THEN 1 WHEN EXISTS (\(unknown)) THEN NULL ELSE 0 END)"
    }

    /// Kinds SQLite compares exactly as the evaluator does with plain operators.
    static func plainlyComparable(_ a: SQLValueKind, _ b: SQLValueKind) -> Bool {
        if a.isNumber && b.isNumber { return a != .decimal && b != .decimal }
        switch (a, b) {
        case (.string, .string), (.date, .date), (.data, .data), (.uuid, .uuid), (.uri, .uri), (.uri, .string), (.string, .uri):
            return true
        default:
            return false
        }
    }
}
