/// One side of a comparison in the string-free predicate builder: a key path (optionally
/// quantified with ANY/ALL/NONE), a variable, `SELF` or a value. Literals convert.
///
/// ```swift
/// let p: FetchPredicate = .key("salary") > 5000 && .key("lastName").beginsWith("Q", options: .caseInsensitive)
/// let q: FetchPredicate = .any("employees.salary") > 10 || !(.key("x").in([1, 2, 3]))
/// let r: FetchPredicate = .key("age").between(18, 65) && .key("department") == .object(salesID)
/// ```
public struct FetchOperand: Sendable {
    /// The expression.
    public var expression: FetchExpression
    /// The quantifier, when the operand is a to-many key path.
    public var modifier: FetchComparison.Modifier

    /// Wraps an expression.
    public init(_ expression: FetchExpression, modifier: FetchComparison.Modifier = .direct) {
        self.expression = expression
        self.modifier = modifier
    }

    /// A key path from the evaluated object (collection operators allowed: `employees.@count`).
    public static func key(_ path: String) -> FetchOperand { FetchOperand(.key(path)) }
    /// `ANY path`: at least one element matches.
    public static func any(_ path: String) -> FetchOperand { FetchOperand(.key(path), modifier: .any) }
    /// `ALL path`: every element matches.
    public static func all(_ path: String) -> FetchOperand { FetchOperand(.key(path), modifier: .all) }
    /// `NONE path`: no element matches.
    public static func none(_ path: String) -> FetchOperand { FetchOperand(.key(path), modifier: .none) }
    /// A `$VARIABLE`.
    public static func variable(_ name: String) -> FetchOperand { FetchOperand(.variable(name)) }
    /// `SELF`.
    public static var evaluatedObject: FetchOperand { FetchOperand(.evaluatedObject) }
    /// A constant value.
    public static func value(_ value: PropertyValue) -> FetchOperand { FetchOperand(.constant(value)) }
    /// An object, compared by identity.
    public static func object(_ id: ManagedObjectID) -> FetchOperand { FetchOperand(.constant(.object(id))) }

    private func compare(_ op: FetchComparison.Operator, _ other: FetchExpression, _ options: FetchComparison.Options = []) -> FetchPredicate {
        .comparison(FetchComparison(expression, op, other, modifier: modifier, options: options))
    }

    /// `self BEGINSWITH[options] prefix`.
    public func beginsWith(_ prefix: FetchOperand, options: FetchComparison.Options = []) -> FetchPredicate {
        compare(.beginsWith, prefix.expression, options)
    }
    /// `self ENDSWITH[options] suffix`.
    public func endsWith(_ suffix: FetchOperand, options: FetchComparison.Options = []) -> FetchPredicate {
        compare(.endsWith, suffix.expression, options)
    }
    /// `self CONTAINS[options] part` (substring, or membership for a collection).
    public func contains(_ part: FetchOperand, options: FetchComparison.Options = []) -> FetchPredicate {
        compare(.contains, part.expression, options)
    }
    /// `self LIKE[options] pattern` (`*` and `?` wildcards).
    public func like(_ pattern: FetchOperand, options: FetchComparison.Options = []) -> FetchPredicate {
        compare(.like, pattern.expression, options)
    }
    /// `self MATCHES[options] regex` (whole string).
    public func matches(_ regex: FetchOperand, options: FetchComparison.Options = []) -> FetchPredicate {
        compare(.matches, regex.expression, options)
    }
    /// `self IN {values…}`.
    public func `in`(_ values: [PropertyValue], options: FetchComparison.Options = []) -> FetchPredicate {
        compare(.in, .collection(values.map(FetchExpression.constant)), options)
    }
    /// `self IN collection` (a to-many key path or a variable).
    public func `in`(_ collection: FetchOperand, options: FetchComparison.Options = []) -> FetchPredicate {
        compare(.in, collection.expression, options)
    }
    /// `self BETWEEN {low, high}`, inclusive.
    public func between(_ low: FetchOperand, _ high: FetchOperand) -> FetchPredicate {
        compare(.between, .collection([low.expression, high.expression]))
    }
    /// `self ==[options] other`, for string options.
    public func equalTo(_ other: FetchOperand, options: FetchComparison.Options) -> FetchPredicate {
        compare(.equalTo, other.expression, options)
    }

    /// `lhs == rhs`.
    public static func == (lhs: FetchOperand, rhs: FetchOperand) -> FetchPredicate { lhs.compare(.equalTo, rhs.expression) }
    /// `lhs != rhs`.
    public static func != (lhs: FetchOperand, rhs: FetchOperand) -> FetchPredicate { lhs.compare(.notEqualTo, rhs.expression) }
    /// `lhs < rhs`.
    public static func < (lhs: FetchOperand, rhs: FetchOperand) -> FetchPredicate { lhs.compare(.lessThan, rhs.expression) }
    /// `lhs <= rhs`.
    public static func <= (lhs: FetchOperand, rhs: FetchOperand) -> FetchPredicate { lhs.compare(.lessThanOrEqualTo, rhs.expression) }
    /// `lhs > rhs`.
    public static func > (lhs: FetchOperand, rhs: FetchOperand) -> FetchPredicate { lhs.compare(.greaterThan, rhs.expression) }
    /// `lhs >= rhs`.
    public static func >= (lhs: FetchOperand, rhs: FetchOperand) -> FetchPredicate { lhs.compare(.greaterThanOrEqualTo, rhs.expression) }
}

extension FetchOperand: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    /// An integer constant.
    public init(integerLiteral value: Int64) { self.init(.constant(.integer(value))) }
    /// A double constant.
    public init(floatLiteral value: Double) { self.init(.constant(.double(value))) }
    /// A string constant.
    public init(stringLiteral value: String) { self.init(.constant(.string(value))) }
    /// A boolean constant.
    public init(booleanLiteral value: Bool) { self.init(.constant(.boolean(value))) }
    /// NULL.
    public init(nilLiteral: ()) { self.init(.constant(.null)) }
}

extension FetchPredicate {
    // Implicit member chains (`.key("name").beginsWith("Q")` where a FetchPredicate is
    // expected) look their first member up on FetchPredicate: these forward to FetchOperand.

    /// A key path operand (see ``FetchOperand/key(_:)``).
    public static func key(_ path: String) -> FetchOperand { .key(path) }
    /// An `ANY path` operand.
    public static func any(_ path: String) -> FetchOperand { .any(path) }
    /// An `ALL path` operand.
    public static func all(_ path: String) -> FetchOperand { .all(path) }
    /// A `NONE path` operand.
    public static func none(_ path: String) -> FetchOperand { .none(path) }
    /// A `$VARIABLE` operand.
    public static func variable(_ name: String) -> FetchOperand { .variable(name) }
    /// A constant operand.
    public static func value(_ value: PropertyValue) -> FetchOperand { .value(value) }
    /// An object operand, compared by identity.
    public static func object(_ id: ManagedObjectID) -> FetchOperand { .object(id) }
    /// The `SELF` operand.
    public static var evaluatedObject: FetchOperand { .evaluatedObject }

    /// `lhs AND rhs`, flattening nested ANDs so `a && b && c` is one three-term AND.
    public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
        if case .and(let terms) = lhs, terms.count > 1 { return .and(terms + [rhs]) }
        return .and([lhs, rhs])
    }

    /// `lhs OR rhs`, flattening nested ORs.
    public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
        if case .or(let terms) = lhs, terms.count > 1 { return .or(terms + [rhs]) }
        return .or([lhs, rhs])
    }

    /// `NOT predicate`.
    public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate { .not(predicate) }
}
