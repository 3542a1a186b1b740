import Foundation

extension FetchPredicate {
    /// Whether the subject matches, with SQL's semantics (docs/PREDICATES.md): a result
    /// that is UNKNOWN because of NULLs does not match.
    ///
    /// ```swift
    /// let row = PredicateRow(["name": "Quinn", "salary": nil])
    /// try FetchPredicate(format: "salary != 0").evaluate(with: row)   // false: NULL
    /// try FetchPredicate(format: "salary == nil").evaluate(with: row) // true
    /// ```
    /// - Parameters:
    ///   - subject: the evaluated object (`SELF`).
    ///   - variables: values for `$VARIABLES`.
    /// - Throws: `StrataError(.predicateEvaluation)` for a type error (a string compared
    ///   with a number), a missing variable, a to-many compared without ANY/ALL/NONE or an
    ///   invalid regular expression; `StrataError(.unknownKey)` from the subject.
    /// - Complexity: O(size of the predicate × size of the collections it walks).
    public func evaluate(with subject: any PredicateSubject, variables: [String: PropertyValue] = [:]) throws -> Bool {
        try truth(with: subject, variables: variables) == .isTrue
    }

    /// The three-valued result of evaluating the predicate on `subject`.
    package func truth(with subject: any PredicateSubject, variables: [String: PropertyValue] = [:]) throws -> PredicateTruth {
        try PredicateEvaluator(subject: .object(subject), variables: variables).truth(self)
    }
}

/// A value met while evaluating: a single value, an object, or a collection of either.
package enum PredicateOperand {
    case value(PropertyValue)
    case object(any PredicateSubject)
    case collection([PredicateOperand])

    /// A property value as an operand; a to-many's IDs become a collection.
    init(_ value: PropertyValue) {
        if case .objects(let ids) = value {
            self = .collection(ids.map { .value(.object($0)) })
        } else {
            self = .value(value)
        }
    }

    init(_ resolved: PredicateResolved) {
        switch resolved {
        case .value(let value): self.init(value)
        case .object(let subject?): self = .object(subject)
        case .object(nil): self = .value(.null)
        case .objects(let subjects): self = .collection(subjects.map { .object($0) })
        }
    }
}

/// Walks a predicate over one evaluated object.
struct PredicateEvaluator {
    /// The evaluated object (`SELF`); inside a SUBQUERY, the element.
    var subject: PredicateOperand
    var variables: [String: PropertyValue]
    /// SUBQUERY variables bound to the current element.
    var bindings: [String: PredicateOperand] = [:]
    /// What `now()` gives: one instant for the whole evaluation (a fetch or batch update
    /// pins one for all its rows with ``FetchPredicate/replacingNow(with:)``).
    var now = Date()
    /// Whether `/` and `modulus:by:` by zero throw instead of giving NULL: a batch update
    /// must not write NULL silently (docs/SEMANTICS.md, "Batch requests"); fetches keep
    /// SQL's NULL.
    var refusesDivisionByZero = false

    func truth(_ predicate: FetchPredicate) throws -> PredicateTruth {
        switch predicate {
        case .constant(let flag): return PredicateTruth(flag)
        case .not(let inner): return !(try truth(inner))
        case .and(let terms):
            var result = PredicateTruth.isTrue
            for term in terms {
                result = result && (try truth(term))
                if result == .isFalse { return .isFalse }
            }
            return result
        case .or(let terms):
            var result = PredicateTruth.isFalse
            for term in terms {
                result = result || (try truth(term))
                if result == .isTrue { return .isTrue }
            }
            return result
        case .comparison(let comparison):
            do {
                return try truth(comparison)
            } catch var error as StrataError where error.context.predicate == nil {
                error.context.predicate = comparison.predicateFormat
                throw error
            }
        }
    }

    private func truth(_ comparison: FetchComparison) throws -> PredicateTruth {
        let lhs = try value(comparison.lhs)
        let rhs = try value(comparison.rhs)
        let nullTest = isNullLiteral(comparison.lhs) || isNullLiteral(comparison.rhs)
        guard comparison.modifier != .direct else {
            return try direct(lhs, comparison, rhs, nullTest: nullTest)
        }
        let elements: [PredicateOperand]
        switch lhs {
        case .collection(let items): elements = items
        case .value(let value) where PredicateValueRules.isNull(value): elements = []
        default: elements = [lhs]
        }
        // ANY/ALL/NONE are two-valued, like SQL's EXISTS: an element whose comparison is
        // UNKNOWN does not match.
        var anyMatch = false, allMatch = true
        for element in elements {
            if try direct(element, comparison, rhs, nullTest: nullTest) == .isTrue { anyMatch = true } else { allMatch = false }
        }
        switch comparison.modifier {
        case .any: return PredicateTruth(anyMatch)
        case .all: return PredicateTruth(allMatch)
        default: return PredicateTruth(!anyMatch)
        }
    }

    private func direct(
        _ lhs: PredicateOperand, _ comparison: FetchComparison, _ rhs: PredicateOperand, nullTest: Bool
    ) throws -> PredicateTruth {
        let op = comparison.op
        switch (op, lhs, rhs) {
        case (.in, .collection, _):
            throw toManyError(op)
        case (.in, _, .collection(let elements)):
            return try PredicateValueRules.membership(scalar(lhs, op), in: elements.map { try scalar($0, op) }, options: comparison.options)
        case (.in, _, .value(let value)) where PredicateValueRules.isNull(value):
            return .unknown
        case (.in, _, .value(.string(let text))):
            // Foundation: with a string on its right, IN finds a substring ("ell" IN "hello").
            let part = try scalar(lhs, op)
            if PredicateValueRules.isNull(part) { return .unknown }
            guard case .string(let needle) = part else {
                let kind = ModelValueRules.kindName(part)
                throw StrataError(.predicateEvaluation, "IN with a string on its right side finds a substring and needs a string on its left, not \(withArticle(kind))",
                                  context: .init { $0.function = op.rawValue; $0.leftType = kind })
            }
            return PredicateTruth(PredicateText.contains(text, needle, options: comparison.options))
        case (.in, _, _):
            throw StrataError(.predicateEvaluation, "IN needs a collection or a to-many key path on its right side")
        case (.contains, .collection(let elements), _):
            if case .collection = rhs { throw toManyError(op) }
            return try PredicateValueRules.membership(scalar(rhs, op), in: elements.map { try scalar($0, op) }, options: comparison.options)
        case (.between, .collection, _):
            throw toManyError(op)
        case (.between, _, .collection(let bounds)):
            guard bounds.count == 2 else {
                throw StrataError(.predicateEvaluation, "BETWEEN needs exactly two bounds, found \(bounds.count)")
            }
            let value = try scalar(lhs, op)
            let low = try PredicateValueRules.truth(value, .greaterThanOrEqualTo, scalar(bounds[0], op), options: comparison.options, nullTest: false)
            let high = try PredicateValueRules.truth(value, .lessThanOrEqualTo, scalar(bounds[1], op), options: comparison.options, nullTest: false)
            return low && high
        case (.between, _, .value(let value)) where PredicateValueRules.isNull(value):
            return .unknown
        case (.between, _, _):
            throw StrataError(.predicateEvaluation, "BETWEEN needs a collection {low, high} on its right side")
        case (_, .collection, _), (_, _, .collection):
            throw toManyError(op)
        default:
            return try PredicateValueRules.truth(scalar(lhs, op, nullTest: nullTest), op, scalar(rhs, op, nullTest: nullTest),
                                                 options: comparison.options, nullTest: nullTest)
        }
    }

    private func toManyError(_ op: FetchComparison.Operator) -> StrataError {
        StrataError(.predicateEvaluation,
                    "\(op.rawValue) cannot compare a collection (a to-many key path) directly; use ANY, ALL or NONE, IN or CONTAINS",
                    context: .init { $0.function = op.rawValue })
    }

    /// A single value: objects become their IDs. In a test against nil (`nullTest`) an
    /// object without an ID (a composite that is not nil) is simply some value.
    private func scalar(_ operand: PredicateOperand, _ op: FetchComparison.Operator, nullTest: Bool = false) throws -> PropertyValue {
        if nullTest, case .object(let subject) = operand, subject.predicateObjectID == nil { return .boolean(true) }
        return try operand.singleValue(use: "compared with \(op.rawValue)") { toManyError(op) }
    }

    /// Whether the expression is the literal NULL (or a variable holding NULL), which makes
    /// `==`/`!=` an IS NULL test.
    private func isNullLiteral(_ expression: FetchExpression) -> Bool {
        switch expression {
        case .constant(let value): return PredicateValueRules.isNull(value)
        case .variable(let name):
            if bindings[name] != nil { return false }
            return variables[name].map(PredicateValueRules.isNull) ?? false
        default: return false
        }
    }
}

extension PredicateOperand {
    /// The operand as one value, an object standing for its ID.
    /// - Parameters:
    ///   - use: what the value is for, completing "an object without an object ID cannot be …".
    ///   - collectionError: the error for a collection, which has no single value.
    func singleValue(use: String, collectionError: () -> StrataError) throws -> PropertyValue {
        switch self {
        case .value(let value): return value
        case .object(let subject):
            guard let id = subject.predicateObjectID else {
                throw StrataError(.predicateEvaluation, "an object without an object ID cannot be \(use)")
            }
            return .object(id)
        case .collection:
            throw collectionError()
        }
    }
}
