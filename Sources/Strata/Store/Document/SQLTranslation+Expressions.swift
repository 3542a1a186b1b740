import Foundation

/// Expressions in SQL (docs/SQL.md §2b): functions, TERNARY and subscripts, pushed down
/// where SQLite gives the evaluator's exact value, through registered functions where only
/// Swift can, and residual (``SQLResidual``) where the value depends on something SQL does
/// not have (the order of an unordered to-many, `random()`) or its kind is only known per row.
extension SQLTranslation {
    /// NULL, the value of a function of NULL.
    static var nullScalar: SQLScalar { SQLScalar(sql: "NULL", kind: .null, constant: .null) }

    /// `function(arguments)`.
    mutating func function(_ function: FetchFunction, _ arguments: [FetchExpression], in environment: SQLEnvironment) throws -> SQLOperand {
        guard arguments.count == function.argumentCount else {
            throw StrataError(.predicateEvaluation,
                              "\(function.rawValue) takes \(function.argumentCount) argument\(function.argumentCount == 1 ? "" : "s"), not \(arguments.count)",
                              context: .init { $0.function = function.rawValue })
        }
        if function.isAggregate {
            return try aggregateFunction(function, of: try operand(arguments[0], in: environment))
        }
        switch function {
        case .now:
            // One value for the whole fetch, as the evaluator's now().
            return constant(.date(Date()))
        case .random, .randomBelow:
            throw SQLResidual(reason: "\(function.rawValue) has no value SQL and memory share")
        case .noIndex:
            return try operand(arguments[0], in: environment)
        case .castObject:
            return try cast(arguments[0], to: arguments[1], in: environment)
        default:
            break
        }
        var values: [SQLScalar] = []
        for argument in arguments {
            guard case .scalar(let value) = try operand(argument, in: environment) else {
                throw SQLResidual(reason: "\(function.rawValue) of an object or a collection")
            }
            values.append(value)
        }
        if values.contains(where: \.isNullLiteral) { return .scalar(Self.nullScalar) }
        guard let kind = Self.functionKind(function, values.map(\.kind), constants: values.map(\.constant)) else {
            throw SQLResidual(reason: "\(function.rawValue) of \(values.map(\.kind.name).joined(separator: " and "))")
        }
        if let native = Self.nativeSQL(function, values, kind) {
            return .scalar(SQLScalar(sql: native, kind: kind))
        }
        let codes = String(values.compactMap { SQLFunctions.kindCode($0.kind) })
        let call = "\(SQLFunctions.apply)(\(bindText(function.rawValue)), \(bindText(codes)), \(values.map(\.sql).joined(separator: ", ")))"
        return .scalar(SQLScalar(sql: call, kind: kind))
    }

    /// The kind of `function`'s value for arguments of these kinds (ExpressionArithmetic's
    /// promotion: integer and boolean → decimal → double), when SQL computes it exactly
    /// (natively or through `strata_apply`); nil leaves it to memory (an error there, or a
    /// kind that depends on the row).
    static func functionKind(_ function: FetchFunction, _ kinds: [SQLValueKind], constants: [PropertyValue?] = []) -> SQLValueKind? {
        let numeric = kinds.allSatisfy(\.isNumber)
        let integral = kinds.allSatisfy { $0 == .integer || $0 == .boolean }
        let hasDouble = kinds.contains(.double), hasDecimal = kinds.contains(.decimal)
        let promoted: SQLValueKind = hasDouble ? .double : hasDecimal ? .decimal : .integer
        switch function {
        case .add, .subtract, .multiply:
            if numeric { return promoted }
            switch (function, kinds[0], kinds[1]) {
            case (.subtract, .date, .date): return .double
            case (.add, .date, let other), (.add, let other, .date), (.subtract, .date, let other):
                return other.isNumber ? .date : nil
            default: return nil
            }
        case .divide:
            return numeric ? (promoted == .integer ? .double : promoted) : nil
        case .modulus:
            return numeric ? promoted : nil
        case .raise:
            guard numeric else { return nil }
            guard kinds[0] == .decimal, kinds[1] == .integer || kinds[1] == .boolean else { return .double }
            // A decimal power for an integer exponent up to 9,999, which only a constant tells.
            switch constants.count > 1 ? constants[1] : nil {
            case .integer(let exponent)?: return exponent.magnitude <= 9_999 ? .decimal : .double
            case .boolean?: return .decimal
            default: return nil
            }
        case .squareRoot, .log, .naturalLogarithm, .exponential:
            return numeric ? .double : nil
        case .absoluteValue, .floor, .ceiling, .truncate:
            return numeric ? promoted : nil
        case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift, .onesComplement:
            return integral ? .integer : nil
        case .uppercase, .lowercase, .canonical:
            return kinds[0] == .string ? .string : nil
        case .length:
            return kinds[0] == .string ? .integer : nil
        default:
            return nil
        }
    }

    /// SQLite's own operators where they give the evaluator's value: double arithmetic (IEEE,
    /// as Swift's; SQLite's division by zero is NULL, the rule) and seconds added to dates
    /// (stored as REAL seconds). Integer `+ - *` are not: SQLite turns an overflow into a
    /// REAL where the evaluator throws.
    private static func nativeSQL(_ function: FetchFunction, _ values: [SQLScalar], _ kind: SQLValueKind) -> String? {
        guard values.count == 2, kind == .double || kind == .date,
              values.allSatisfy({ $0.kind == .integer || $0.kind == .boolean || $0.kind == .double || $0.kind == .date }) else { return nil }
        let a = values[0].sql, b = values[1].sql
        switch function {
        case .add: return "(\(a) + \(b))"
        case .subtract: return "(\(a) - \(b))"
        case .multiply: return "(\(a) * \(b))"
        // CAST keeps two integers from SQLite's integer division.
        case .divide: return "(CAST(\(a) AS REAL) / \(b))"
        default: return nil
        }
    }

    /// `sum:` `count:` `min:` `max:` `average:` `median:` `stddev:` over a to-many collection,
    /// as correlated aggregate subqueries (NULLs ignored, as the collection operators).
    private mutating func aggregateFunction(_ function: FetchFunction, of source: SQLOperand) throws -> SQLOperand {
        guard case .collection(let collection) = source else {
            throw SQLResidual(reason: "\(function.rawValue) of something other than a to-many key path")
        }
        if function == .mode { throw SQLResidual(reason: "mode: gives a collection") }
        if function == .count {
            let counted: String
            switch collection.element {
            case .scalar(let scalar) where scalar.isNullLiteral: return .scalar(SQLScalar(sql: "0", kind: .integer))
            case .scalar(let scalar): counted = scalar.sql
            case .object(let object): counted = object.pk
            default: throw SQLResidual(reason: "count: of a nested collection")
            }
            return .scalar(SQLScalar(sql: "(\(renderSubquery(collection.scope, select: "COUNT(\(counted))")))", kind: .integer))
        }
        let computedInSwift: Bool = switch function {
        case .average, .median, .standardDeviation: true
        // The evaluator adds doubles in element order; SQLite's SUM differs in the last bits.
        case .sum: collection.element.kindIfScalar == .double
        default: false
        }
        if computedInSwift, case .scalar(let value) = collection.element, value.kind.isNumber,
           let code = SQLFunctions.kindCode(value.kind) {
            // REALs as 17 significant digits ('!' lifts SQLite's 16-digit cap): they round-trip.
            // printf makes "0.0" of NULL, which group_concat must skip.
            let text = value.kind == .double
                ? "(CASE WHEN \(value.sql) IS NULL THEN NULL ELSE printf('%!.17g', \(value.sql)) END)" : value.sql
            let select = "\(SQLFunctions.aggregate)(\(bindText(function.rawValue)), \(bindText(String(code))), group_concat(\(text), ','))"
            // A double, or NULL (the sum of nothing is the integer 0, equal to 0.0 in SQL too).
            return .scalar(SQLScalar(sql: "(\(renderSubquery(collection.scope, select: select)))", kind: .double))
        }
        switch function {
        case .sum: return try aggregate(.sum, of: source, key: nil)
        case .min: return try aggregate(.min, of: source, key: nil)
        case .max: return try aggregate(.max, of: source, key: nil)
        default: throw SQLResidual(reason: "\(function.rawValue) of values that are not numbers")
        }
    }

    /// `CAST(value, 'Type')` where the kind of the result follows from the value's kind
    /// (ExpressionCast's table): kept as stored, `CAST(x AS REAL)` for numbers to dates,
    /// `strata_apply` for the others. Strings to numbers or dates are residual (the kind, or
    /// whether it converts, depends on the text).
    private mutating func cast(_ value: FetchExpression, to type: FetchExpression, in environment: SQLEnvironment) throws -> SQLOperand {
        guard case .constant(.string(let name)) = type else {
            throw SQLResidual(reason: "CAST to a type that is not a constant")
        }
        guard case .scalar(let scalar) = try operand(value, in: environment) else {
            throw SQLResidual(reason: "CAST of an object or a collection")
        }
        if scalar.isNullLiteral, ExpressionCast.typeNames.contains(name) { return .scalar(Self.nullScalar) }
        let kind: SQLValueKind
        switch (name, scalar.kind) {
        case ("NSNumber", .integer), ("NSNumber", .double), ("NSNumber", .decimal), ("NSString", .string), ("NSDate", .date),
             ("NSDecimalNumber", .decimal):
            return .scalar(scalar)
        case ("NSNumber", .date):
            return .scalar(SQLScalar(sql: scalar.sql, kind: .double))
        case ("NSDate", .integer), ("NSDate", .double), ("NSDate", .boolean):
            return .scalar(SQLScalar(sql: "CAST(\(scalar.sql) AS REAL)", kind: .date))
        case ("NSNumber", .boolean): kind = .integer
        case ("NSDate", .decimal): kind = .date
        case ("NSString", .integer), ("NSString", .double), ("NSString", .decimal), ("NSString", .boolean), ("NSString", .date):
            kind = .string
        case ("NSDecimalNumber", .integer), ("NSDecimalNumber", .boolean), ("NSDecimalNumber", .double):
            kind = .decimal
        default:
            throw SQLResidual(reason: "CAST of \(withArticle(scalar.kind.name)) to \(name)")
        }
        guard let code = SQLFunctions.kindCode(scalar.kind) else { throw SQLResidual(reason: "CAST of \(withArticle(scalar.kind.name))") }
        let call = "\(SQLFunctions.apply)(\(bindText(FetchFunction.castObject.rawValue)), \(bindText(String(code) + "s")), \(scalar.sql), \(bindText(name)))"
        return .scalar(SQLScalar(sql: call, kind: kind))
    }

    /// `TERNARY(predicate, a, b)`: `CASE WHEN` (UNKNOWN takes the else branch, as in memory),
    /// when both branches have one kind (or one is NULL).
    mutating func conditional(_ predicate: FetchPredicate, then a: FetchExpression, else b: FetchExpression,
                              in environment: SQLEnvironment) throws -> SQLOperand {
        let test = try condition(predicate, in: environment)
        guard case .scalar(let first) = try operand(a, in: environment),
              case .scalar(let second) = try operand(b, in: environment) else {
            throw SQLResidual(reason: "TERNARY giving objects or collections")
        }
        let kind: SQLValueKind
        if first.kind == second.kind || second.isNullLiteral {
            kind = first.kind
        } else if first.isNullLiteral {
            kind = second.kind
        } else {
            throw SQLResidual(reason: "TERNARY with \(withArticle(first.kind.name)) and \(withArticle(second.kind.name)) branch")
        }
        return .scalar(SQLScalar(sql: "(CASE WHEN \(test) THEN \(first.sql) ELSE \(second.sql) END)", kind: kind))
    }

    /// `base[FIRST]`, `[LAST]`, `[SIZE]`, `[n]`, `['key']`: a literal collection's element
    /// chosen now, a to-many's size as `COUNT(*)`, an object's key as a key path. The first
    /// or n-th element of a to-many is residual: SQL does not have its in-memory order.
    mutating func subscripted(_ base: FetchExpression, _ index: FetchIndex, in environment: SQLEnvironment) throws -> SQLOperand {
        let value = try operand(base, in: environment)
        switch (value, index) {
        case (.list(let items), .size):
            return constant(.integer(Int64(items.count)))
        case (.list(let items), .first) where !items.isEmpty:
            return items[0]
        case (.list(let items), .last) where !items.isEmpty:
            return items[items.count - 1]
        case (.list(let items), .at(.constant(.integer(let n)))) where n >= 0 && n < items.count:
            return items[Int(n)]
        case (_, .at(.constant(let key))) where PredicateValueRules.isNull(key):
            return .scalar(Self.nullScalar)
        case (.scalar(let scalar), .size) where scalar.isNullLiteral:
            return constant(.integer(0))
        case (.scalar(let scalar), .first) where scalar.isNullLiteral, (.scalar(let scalar), .last) where scalar.isNullLiteral:
            return .scalar(Self.nullScalar)
        case (.list, .first), (.list, .last), (.list, .at(.constant(.integer))):
            // Of an empty collection, or out of range: NULL (where Foundation raises).
            return .scalar(Self.nullScalar)
        case (.collection(let collection), .size):
            // A collection behind a NULL to-one has no rows: 0, as memory's NULL [SIZE].
            return .scalar(SQLScalar(sql: "(\(renderSubquery(collection.scope, select: "COUNT(*)")))", kind: .integer))
        case (.object, .at(.constant(.string(let key)))) where !key.contains("."):
            return try follow([key], from: value)
        default:
            throw SQLResidual(reason: "this subscript is evaluated in memory")
        }
    }

    /// `text.length`, the last key of a key path on a string: its UTF-16 length.
    mutating func stringLength(_ text: SQLScalar) -> SQLOperand {
        let call = "\(SQLFunctions.apply)(\(bindText(FetchFunction.length.rawValue)), \(bindText("s")), \(text.sql))"
        return .scalar(SQLScalar(sql: call, kind: .integer))
    }
}
