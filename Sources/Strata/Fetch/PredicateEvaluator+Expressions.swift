import Foundation

/// Evaluation of functions, `TERNARY` and subscripts (docs/PREDICATES.md, "Expressions").
extension PredicateEvaluator {
    /// A function applied to its arguments: aggregates reduce a collection, `noindex:` passes
    /// its argument through, the others apply to single values.
    func value(of function: FetchFunction, _ arguments: [FetchExpression]) throws -> PredicateOperand {
        try ExpressionFunctions.checkCount(function, arguments.count)
        switch function {
        case .noIndex: return try value(arguments[0])
        case .count:
            // Counted without reading identities: objects need no object ID to be counted.
            switch try value(arguments[0]) {
            case .collection(let items):
                let present = items.filter { item in
                    if case .value(let v) = item { return !PredicateValueRules.isNull(v) }
                    return true
                }
                return .value(.integer(Int64(present.count)))
            case .value(let v) where PredicateValueRules.isNull(v): return .value(.integer(0))
            default: return .value(.integer(1))
            }
        case _ where function.isAggregate:
            let values = try aggregated(try value(arguments[0]), function)
            if function == .mode { return .collection(try ExpressionFunctions.mode(values).map { .value($0) }) }
            return .value(try ExpressionFunctions.aggregate(function, values))
        default:
            let values = try arguments.map { try single(try value($0), for: function) }
            if refusesDivisionByZero, function == .divide || function == .modulus, ExpressionArithmetic.isZero(values[1]) {
                let expression = FetchExpression.function(function, arguments).predicateFormat
                throw StrataError(.predicateEvaluation, "division by zero in \(expression.count > 200 ? String(expression.prefix(200)) + "…" : expression)",
                                  context: .init { $0.kind = .divisionByZero; $0.function = function.rawValue })
            }
            return .value(try ExpressionFunctions.apply(function, values, now: now))
        }
    }

    /// `TERNARY(predicate, a, b)`: `a` when the predicate is true; `b` when it is false or
    /// UNKNOWN (as SQL's CASE WHEN). Only the chosen branch is evaluated.
    func value(if condition: FetchPredicate, then: FetchExpression, else otherwise: FetchExpression) throws -> PredicateOperand {
        try truth(condition) == .isTrue ? value(then) : value(otherwise)
    }

    /// A subscript. Of a collection: `[FIRST]` and `[LAST]` (NULL when empty), `[SIZE]`, `[n]`
    /// (0-based; NULL out of range, where Foundation raises), `['key']` (the key of every
    /// element). Of an object: `['key']`. Of NULL: NULL (`[SIZE]` is 0, as `@count`).
    func value(of base: FetchExpression, at index: FetchIndex) throws -> PredicateOperand {
        let operand = try value(base)
        var elements: [PredicateOperand]? {
            switch operand {
            case .collection(let items): return items
            case .value(let value) where PredicateValueRules.isNull(value): return []
            default: return nil
            }
        }
        switch index {
        case .first, .last, .size:
            guard let elements else { throw subscriptError(index, operand) }
            switch index {
            case .first: return elements.first ?? .value(.null)
            case .last: return elements.last ?? .value(.null)
            default: return .value(.integer(Int64(elements.count)))
            }
        case .at(let expression):
            let key = try single(try value(expression), for: nil)
            switch key {
            case _ where PredicateValueRules.isNull(key): return .value(.null)
            case .integer(let position):
                guard let elements else { throw subscriptError(index, operand) }
                return position >= 0 && position < elements.count ? elements[Int(position)] : .value(.null)
            case .string(let name):
                return try step(operand, name)
            default:
                let kind = ModelValueRules.kindName(key)
                throw StrataError(.predicateEvaluation, "a subscript needs an integer index or a string key, not \(withArticle(kind))",
                                  context: .init { $0.valueType = kind })
            }
        }
    }

    private func subscriptError(_ index: FetchIndex, _ operand: PredicateOperand) -> StrataError {
        let written = switch index {
        case .first: "[FIRST]"
        case .last: "[LAST]"
        case .size: "[SIZE]"
        case .at: "[n]"
        }
        let kind = switch operand {
        case .object: "an object"
        case .value(let value): "\(withArticle(ModelValueRules.kindName(value)))"
        case .collection: "a collection"
        }
        return StrataError(.predicateEvaluation, "the subscript \(written) needs a collection (a to-many key path or {…}), not \(kind)",
                           context: .init { $0.expression = written })
    }

    /// A single value for a function argument or subscript: an object stands for its ID.
    private func single(_ operand: PredicateOperand, for function: FetchFunction?) throws -> PropertyValue {
        let name = function.map { $0.rawValue } ?? "a subscript"
        return try operand.singleValue(use: "an argument of \(name)") {
            StrataError(.predicateEvaluation,
                        "\(name) needs a single value, not a collection (a to-many key path); reduce it with sum:, count:, min:, … or a [subscript]",
                        context: .init { $0.function = name })
        }
    }

    /// The values an aggregate reduces: a collection's elements (objects as their IDs),
    /// NULL as nothing, a single value as itself.
    private func aggregated(_ operand: PredicateOperand, _ function: FetchFunction) throws -> [PropertyValue] {
        switch operand {
        case .collection(let items): return try items.map { try single($0, for: function) }
        case .value(let value) where PredicateValueRules.isNull(value): return []
        default: return [try single(operand, for: function)]
        }
    }
}
