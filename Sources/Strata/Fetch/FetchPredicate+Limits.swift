import Foundation

/// How big a predicate tree is, measured without recursion so that even a tree built in
/// code, deeper than any parser would accept, is measured safely.
struct PredicateMeasure: Equatable {
    /// The deepest chain of nodes: every NOT, AND/OR, comparison and expression is a level.
    var depth = 0
    /// Comparisons, AND/OR/NOT, constants and literal collection elements.
    var terms = 0
    /// The longest key path, in components (collection operators included).
    var longestKeyPath = 0
    /// That key path, for the message.
    var longestKeyPathText = ""

    private enum Node {
        case predicate(FetchPredicate)
        case expression(FetchExpression)
    }

    /// Measures `predicate`; the tree already exists, so measuring it all costs no more
    /// than building it did, and the message can give the true figures.
    init(_ predicate: FetchPredicate) {
        self.init(root: .predicate(predicate))
    }

    /// Measures an expression on its own (``FetchExpression/init(format:_:)``).
    init(_ expression: FetchExpression) {
        self.init(root: .expression(expression))
    }

    private init(root: Node) {
        var stack: [(Node, Int)] = [(root, 1)]
        while let (node, level) = stack.popLast() {
            depth = max(depth, level)
            switch node {
            case .predicate(let predicate):
                terms += 1
                switch predicate {
                case .constant: break
                case .not(let inner): stack.append((.predicate(inner), level + 1))
                case .and(let inner), .or(let inner): stack.append(contentsOf: inner.map { (.predicate($0), level + 1) })
                case .comparison(let comparison):
                    stack.append((.expression(comparison.lhs), level + 1))
                    stack.append((.expression(comparison.rhs), level + 1))
                }
            case .expression(let expression):
                switch expression {
                case .constant, .variable, .evaluatedObject: break
                case .collection(let elements):
                    terms += elements.count
                    stack.append(contentsOf: elements.map { (.expression($0), level + 1) })
                case .keyPath(let path, let base):
                    noteKeyPath(expression, text: path)
                    // SELF under a bare key is implied, not a level of its own.
                    if base != .evaluatedObject { stack.append((.expression(base), level + 1)) }
                case .collectionOperator(let op, let base, let key):
                    noteKeyPath(expression, text: op.rawValue + (key.map { "." + $0 } ?? ""))
                    if base != .evaluatedObject { stack.append((.expression(base), level + 1)) }
                case .subquery(let collection, _, let inner):
                    stack.append((.expression(collection), level + 1))
                    stack.append((.predicate(inner), level + 1))
                case .function(_, let arguments):
                    stack.append(contentsOf: arguments.map { (.expression($0), level + 1) })
                case .conditional(let condition, let then, let otherwise):
                    stack.append((.predicate(condition), level + 1))
                    stack.append((.expression(then), level + 1))
                    stack.append((.expression(otherwise), level + 1))
                case .index(let base, let index):
                    stack.append((.expression(base), level + 1))
                    if case .at(let key) = index { stack.append((.expression(key), level + 1)) }
                }
            }
        }
    }

    private mutating func noteKeyPath(_ expression: FetchExpression, text: String) {
        let count = Self.components(of: expression)
        if count > longestKeyPath {
            longestKeyPath = count
            longestKeyPathText = text
        }
    }

    /// The components of the key path chain ending at `expression` (loop, not recursion).
    static func components(of expression: FetchExpression) -> Int {
        var count = 0
        var current = expression
        while true {
            switch current {
            case .keyPath(let path, let base):
                count += path.split(separator: ".", omittingEmptySubsequences: false).count
                current = base
            case .collectionOperator(_, let base, let key):
                count += 1 + (key.map { $0.split(separator: ".", omittingEmptySubsequences: false).count } ?? 0)
                current = base
            default:
                return count
            }
        }
    }

    /// Throws the first limit exceeded, with Strata's own message (docs/LIMITS.md).
    func check(against limits: StrataLimits, code: StrataError.Code, context: StrataError.Context = .init()) throws {
        if depth > limits.effectivePredicateDepth {
            throw StrataLimits.exceeded(
                code, "predicate nested \(depth) levels deep (limit \(limits.effectivePredicateDepth)) — simplify the predicate",
                limit: "maxPredicateDepth", value: depth, maximum: limits.effectivePredicateDepth, context: context)
        }
        if terms > limits.maxPredicateTerms {
            throw StrataLimits.exceeded(
                code, "predicate too complex: \(terms) terms (limit \(limits.maxPredicateTerms)) — split the query",
                limit: "maxPredicateTerms", value: terms, maximum: limits.maxPredicateTerms, context: context)
        }
        if longestKeyPath > limits.maxKeyPathComponents {
            throw StrataLimits.exceeded(
                code, "key path \(longestKeyPathText.debugDescription) has \(longestKeyPath) components (limit \(limits.maxKeyPathComponents))",
                limit: "maxKeyPathComponents", value: longestKeyPath, maximum: limits.maxKeyPathComponents, context: context)
        }
    }
}

extension FetchPredicate {
    /// Checks the predicate against `limits`: nesting depth, number of terms and key path
    /// length (docs/LIMITS.md). Fetches from a document run this before any SQL is built.
    ///
    /// ```swift
    /// var p = try FetchPredicate(format: "salary > 5000")
    /// for _ in 0..<100 { p = .not(p) }
    /// try p.checkLimits()   // throws: predicate nested 102 levels deep (limit 64) — simplify the predicate
    /// ```
    /// - Throws: `StrataError(.predicateEvaluation)` naming the limit, with
    ///   `context.limit` (the ``StrataLimits`` property), `context.amount` (the predicate's
    ///   figure) and `context.maximum`.
    /// - Complexity: O(size of the predicate).
    public func checkLimits(_ limits: StrataLimits = .current) throws {
        try PredicateMeasure(self).check(against: limits, code: .predicateEvaluation)
    }
}
