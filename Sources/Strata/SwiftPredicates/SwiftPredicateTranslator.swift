import Foundation

/// Turns a Foundation `Predicate` (what `#Predicate` builds) into a ``FetchPredicate`` with
/// the same answer, node by node (docs/PREDICATES.md, "Swift predicates").
///
/// Each `PredicateExpressions` type Strata understands conforms to
/// ``SwiftPredicateNode`` (`PredicateExpressions+Translation.swift`); anything else is an
/// error naming the construct. Key paths become property names through the model class's
/// ``ManagedObject/propertyName(for:)``; the predicate's variables become the fetched
/// object, a `SUBQUERY` variable, or (inside `flatMap`) the expression they unwrap.
final class SwiftPredicateTranslator {
    /// What a translated node stands for: a test, or a value (an expression; a constant
    /// list; a range still to be tested against).
    enum Term {
        case predicate(FetchPredicate)
        case value(FetchExpression)
        case range(lower: FetchExpression, upper: FetchExpression, closed: Bool)
    }

    /// The expressions the predicate's variables stand for.
    private var bindings: [PredicateExpressions.VariableID: FetchExpression] = [:]
    /// How many `SUBQUERY` variables were named, for fresh names.
    private var subqueryVariables = 0

    /// Translates a predicate over objects of `Root`.
    /// - Throws: `.invalidArgument` naming a construct Strata cannot translate;
    ///   `.unknownKey` naming a key path the class does not map.
    static func translate<Root: ManagedObject>(_ predicate: Predicate<Root>) throws -> FetchPredicate {
        let translator = SwiftPredicateTranslator()
        translator.bindings[predicate.variable.key] = .evaluatedObject
        return try translator.predicate(predicate.expression)
    }

    // MARK: Terms

    /// The term a node stands for.
    func term(_ node: Any) throws -> Term {
        guard let node = node as? any SwiftPredicateNode else { throw Self.untranslatable(node) }
        return try node.translate(in: self)
    }

    /// A node as a test: a value node is compared with `true`.
    func predicate(_ node: Any) throws -> FetchPredicate {
        switch try term(node) {
        case .predicate(let predicate): return predicate
        case .value(.constant(.boolean(let flag))): return .constant(flag)
        case .value(let expression): return .comparison(FetchComparison(expression, .equalTo, .constant(.boolean(true))))
        case .range: throw Self.untranslatable(node, "a range used as a value")
        }
    }

    /// A node as a value: a test becomes a Boolean value (`TERNARY(test, YES, NO)`).
    func value(_ node: Any) throws -> FetchExpression {
        switch try term(node) {
        case .value(let expression): return expression
        case .predicate(let predicate): return Self.booleanValue(of: predicate)
        case .range: throw Self.untranslatable(node, "a range used as a value")
        }
    }

    static func booleanValue(of predicate: FetchPredicate) -> FetchExpression {
        if case .constant(let flag) = predicate { return .constant(.boolean(flag)) }
        return .conditional(predicate, then: .constant(.boolean(true)), else: .constant(.boolean(false)))
    }

    // MARK: Variables

    /// The expression a variable stands for.
    func expression(for variable: PredicateExpressions.VariableID, in node: Any) throws -> FetchExpression {
        guard let bound = bindings[variable] else { throw Self.untranslatable(node, "a variable no enclosing expression binds") }
        return bound
    }

    /// Binds a variable to an expression while `body` translates the nodes it is used in.
    func binding<T>(_ variable: PredicateExpressions.VariableID, to expression: FetchExpression, _ body: () throws -> T) rethrows -> T {
        let previous = bindings[variable]
        bindings[variable] = expression
        defer { bindings[variable] = previous }
        return try body()
    }

    /// A fresh `SUBQUERY` variable name: `$strata_v1`, `$strata_v2`...
    func newSubqueryVariable() -> String {
        subqueryVariables += 1
        return "strata_v\(subqueryVariables)"
    }

    // MARK: Key paths

    /// `base.name`, written as the string parser writes it (`department.name` on the
    /// fetched object, one key path), so that SQL translation sees the same tree.
    static func member(_ name: String, of base: FetchExpression) -> FetchExpression {
        if case .keyPath(let path, let root) = base { return .keyPath(path + "." + name, on: root) }
        return .keyPath(name, on: base)
    }

    /// Whether an expression reads a key path from `base`, so that a null `base` makes it
    /// null as Swift's optional chaining does.
    static func isKeyPath(_ expression: FetchExpression, from base: FetchExpression) -> Bool {
        guard case .keyPath(let path, let root) = expression else { return false }
        if root == base { return true }
        if case .keyPath(let basePath, let baseRoot) = base { return baseRoot == root && path.hasPrefix(basePath + ".") }
        return false
    }

    // MARK: Equality

    /// Swift's `==`, which is two-valued: `nil == "R"` is false and `nil == nil` true, where
    /// a fetch predicate's `department.name == "R"` is UNKNOWN for a NULL name (so that
    /// `NOT` of it would not match either; docs/PREDICATES.md §3). A side whose Swift type
    /// is optional is tested for NULL first; a non-optional side is taken as never NULL.
    static func equal(_ lhs: FetchExpression, optional lhsOptional: Bool,
                      _ rhs: FetchExpression, optional rhsOptional: Bool) -> FetchPredicate {
        let plain = FetchPredicate.comparison(FetchComparison(lhs, .equalTo, rhs))
        // A literal nil makes `==` an IS NULL test, two-valued already.
        if lhs == .constant(.null) || rhs == .constant(.null) { return plain }
        let nullable = [(lhs, lhsOptional), (rhs, rhsOptional)].filter(\.1).map(\.0)
        if nullable.isEmpty { return plain }
        let bothValues = FetchPredicate.and(nullable.map { .comparison(FetchComparison($0, .notEqualTo, .constant(.null))) } + [plain])
        guard nullable.count == 2 else { return bothValues }
        let bothNil = FetchPredicate.and(nullable.map { .comparison(FetchComparison($0, .equalTo, .constant(.null))) })
        return .or([bothValues, bothNil])
    }

    // MARK: Constants

    /// A Swift value as a constant: a convertible value, an object, or a list of them.
    static func constant(_ value: Any, in node: Any) throws -> Term {
        if let convertible = value as? any PropertyValueConvertible { return .value(.constant(convertible.propertyValue)) }
        if let object = value as? ManagedObject { return .value(.constant(.object(object.objectID))) }
        if let range = value as? any SwiftRangeValue {
            let bounds = range.strataBounds
            guard case .value(let lower) = try constant(bounds.lower, in: node),
                  case .value(let upper) = try constant(bounds.upper, in: node) else { throw untranslatable(node) }
            return .range(lower: lower, upper: upper, closed: bounds.closed)
        }
        if let sequence = value as? any Sequence {
            let elements = try elements(of: sequence).map { element -> FetchExpression in
                guard case .value(let expression) = try constant(element, in: node) else { throw untranslatable(node) }
                return expression
            }
            return .value(.collection(elements))
        }
        // nil of a type that does not convert (an optional object).
        if let optional = value as? any SwiftOptional {
            guard let wrapped = optional.wrappedValue else { return .value(.constant(.null)) }
            return try constant(wrapped, in: node)
        }
        throw untranslatable(node, "a constant of type \(type(of: value))")
    }

    /// A sequence's elements, opened from `any Sequence`.
    private static func elements<S: Sequence>(of sequence: S) -> [Any] {
        sequence.map { $0 as Any }
    }

    // MARK: Errors

    /// The error for a node Strata does not translate, naming its construct
    /// (`PredicateExpressions.StringContainsRegex`).
    static func untranslatable(_ node: Any, _ detail: String? = nil) -> StrataError {
        let construct = constructName(of: node)
        let what = detail.map { "\(construct) (\($0))" } ?? construct
        return StrataError(
            .invalidArgument,
            "A Swift predicate uses \(what), which Strata cannot translate to a fetch predicate; docs/PREDICATES.md (\"Swift predicates\") lists what it translates. A string predicate (FetchPredicate(format:)) may say it.",
            context: .init { $0.key = construct })
    }

    /// `PredicateExpressions.Conjunction` for a `Conjunction<…, …>` node.
    static func constructName(of node: Any) -> String {
        let full = String(describing: type(of: node))
        let name = full.prefix { $0 != "<" }
        return "PredicateExpressions." + name
    }
}

/// A `PredicateExpressions` node Strata translates.
protocol SwiftPredicateNode {
    /// The term the node stands for, its operands translated by `translator`.
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTranslator.Term
}

/// A range constant (`1...5`, `lo..<hi` captured as a value): its bounds.
protocol SwiftRangeValue {
    var strataBounds: (lower: Any, upper: Any, closed: Bool) { get }
}

extension ClosedRange: SwiftRangeValue {
    var strataBounds: (lower: Any, upper: Any, closed: Bool) { (lowerBound, upperBound, true) }
}

extension Range: SwiftRangeValue {
    var strataBounds: (lower: Any, upper: Any, closed: Bool) { (lowerBound, upperBound, false) }
}

/// An `Optional` of any type, so that an `Any` (or a type) holding one can be recognized.
protocol SwiftOptional {
    var wrappedValue: Any? { get }
}

extension Optional: SwiftOptional {
    var wrappedValue: Any? { self.map { $0 as Any } }
}
