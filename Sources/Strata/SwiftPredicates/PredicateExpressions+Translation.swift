import Foundation

// Each node Strata translates, with what it becomes (the table in docs/PREDICATES.md,
// "Swift predicates"). Operands are translated by the translator, which names any node
// that has no conformance here.

typealias SwiftPredicateTerm = SwiftPredicateTranslator.Term

extension PredicateExpressions.Variable: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .value(try translator.expression(for: key, in: self))
    }
}

extension PredicateExpressions.Value: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        try SwiftPredicateTranslator.constant(value, in: self)
    }
}

extension PredicateExpressions.NilLiteral: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm { .value(.constant(.null)) }
}

extension PredicateExpressions.KeyPath: SwiftPredicateNode {
    /// A model property (`$0.salary`: `salary`; `$0.department?.name`: `department.name`),
    /// or a collection's `count` and `isEmpty` (`@count`, `length:` for a string).
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        let base = try translator.value(root)
        if let objectType = Root.Output.self as? ManagedObject.Type {
            let name = try objectType.requirePropertyName(for: keyPath, usedIn: "a Swift predicate")
            return .value(SwiftPredicateTranslator.member(name, of: base))
        }
        let isText = Root.Output.self == String.self || Root.Output.self == String?.self
        let count: FetchExpression = isText ? .function(.length, [base]) : .collectionOperator(.count, of: base, key: nil)
        switch kind {
        case .collectionCount?: return .value(count)
        case .collectionIsEmpty?: return .predicate(.comparison(FetchComparison(count, .equalTo, .constant(.integer(0)))))
        default:
            throw SwiftPredicateTranslator.untranslatable(self, "the key path \(keyPath) of \(Root.Output.self), which is not a model class")
        }
    }
}

extension PredicateExpressions.Equal: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .predicate(try SwiftPredicateTranslator.equal(translator.value(lhs), optional: LHS.Output.self is any SwiftOptional.Type,
                                                      try translator.value(rhs), optional: RHS.Output.self is any SwiftOptional.Type))
    }
}

extension PredicateExpressions.NotEqual: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .predicate(.not(try SwiftPredicateTranslator.equal(translator.value(lhs), optional: LHS.Output.self is any SwiftOptional.Type,
                                                           try translator.value(rhs), optional: RHS.Output.self is any SwiftOptional.Type)))
    }
}

extension PredicateExpressions.Comparison: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        let op: FetchComparison.Operator = switch self.op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqualTo
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqualTo
        }
        return .predicate(.comparison(FetchComparison(try translator.value(lhs), op, try translator.value(rhs))))
    }
}

extension PredicateExpressions.Conjunction: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .predicate(.and([try translator.predicate(lhs), try translator.predicate(rhs)]))
    }
}

extension PredicateExpressions.Disjunction: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .predicate(.or([try translator.predicate(lhs), try translator.predicate(rhs)]))
    }
}

extension PredicateExpressions.Negation: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .predicate(.not(try translator.predicate(wrapped)))
    }
}

// MARK: Arithmetic

extension PredicateExpressions.Arithmetic: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        let function: FetchFunction = switch op {
        case .add: .add
        case .subtract: .subtract
        case .multiply: .multiply
        }
        return .value(.function(function, [try translator.value(lhs), try translator.value(rhs)]))
    }
}

extension PredicateExpressions.FloatDivision: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .value(.function(.divide, [try translator.value(lhs), try translator.value(rhs)]))
    }
}

extension PredicateExpressions.IntDivision: SwiftPredicateNode {
    /// Swift's integer division truncates toward zero; `divide:by:` gives a fraction.
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .value(.function(.truncate, [.function(.divide, [try translator.value(lhs), try translator.value(rhs)])]))
    }
}

extension PredicateExpressions.IntRemainder: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .value(.function(.modulus, [try translator.value(lhs), try translator.value(rhs)]))
    }
}

extension PredicateExpressions.UnaryMinus: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .value(.function(.subtract, [.constant(.integer(0)), try translator.value(wrapped)]))   // the parser's `-x`
    }
}

// MARK: Optionals and conditionals

extension PredicateExpressions.OptionalFlatMap: SwiftPredicateNode {
    /// `$0.department.flatMap { $0.name }` (and `$0.department?.name`): the transform with
    /// its variable standing for the unwrapped value. A key path from a null object is null
    /// already; any other transform is guarded so that nil gives null, as in Swift.
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        let unwrapped = try translator.value(wrapped)
        let transformed = try translator.binding(variable.key, to: unwrapped) { try translator.value(transform) }
        if SwiftPredicateTranslator.isKeyPath(transformed, from: unwrapped) { return .value(transformed) }
        let isNil = FetchPredicate.comparison(FetchComparison(unwrapped, .equalTo, .constant(.null)))
        return .value(.conditional(isNil, then: .constant(.null), else: transformed))
    }
}

extension PredicateExpressions.NilCoalesce: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        let value = try translator.value(lhs)
        let isNil = FetchPredicate.comparison(FetchComparison(value, .equalTo, .constant(.null)))
        return .value(.conditional(isNil, then: try translator.value(rhs), else: value))
    }
}

extension PredicateExpressions.ForcedUnwrap: SwiftPredicateNode {
    /// The value itself: where Swift's evaluation would throw on nil, the fetch compares a
    /// null (which matches nothing but `== nil`).
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .value(try translator.value(inner))
    }
}

extension PredicateExpressions.Conditional: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        let test = try translator.predicate(self.test)
        let whenTrue = try translator.term(trueBranch), whenFalse = try translator.term(falseBranch)
        if case .predicate(let yes) = whenTrue, case .predicate(let no) = whenFalse {
            return .predicate(.or([.and([test, yes]), .and([.not(test), no])]))
        }
        return .value(.conditional(test, then: try translator.value(trueBranch), else: try translator.value(falseBranch)))
    }
}

// MARK: Sequences and strings

extension PredicateExpressions.SequenceContains: SwiftPredicateNode {
    /// `["a", "b"].contains($0.name)`: `name IN {"a", "b"}`; `$0.projects.contains(p)`:
    /// `p IN projects`.
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .predicate(.comparison(FetchComparison(try translator.value(element), .in, try translator.value(sequence))))
    }
}

extension PredicateExpressions.SequenceContainsWhere: SwiftPredicateNode {
    /// `$0.employees.contains { $0.salary > 5 }`: `SUBQUERY(employees, $v, $v.salary > 5).@count > 0`.
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        let collection = try translator.value(sequence)
        let name = translator.newSubqueryVariable()
        let test = try translator.binding(variable.key, to: .variable(name)) { try translator.predicate(self.test) }
        let matching = FetchExpression.collectionOperator(.count, of: .subquery(collection: collection, variable: name, predicate: test), key: nil)
        return .predicate(.comparison(FetchComparison(matching, .greaterThan, .constant(.integer(0)))))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: SwiftPredicateNode {
    /// `$0.employees.allSatisfy { … }`: no member fails the test (`SUBQUERY(…, NOT test).@count == 0`).
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        let collection = try translator.value(sequence)
        let name = translator.newSubqueryVariable()
        let test = try translator.binding(variable.key, to: .variable(name)) { try translator.predicate(self.test) }
        let failing = FetchExpression.collectionOperator(.count, of: .subquery(collection: collection, variable: name, predicate: .not(test)), key: nil)
        return .predicate(.comparison(FetchComparison(failing, .equalTo, .constant(.integer(0)))))
    }
}

extension PredicateExpressions.Filter: SwiftPredicateNode {
    /// `$0.employees.filter { … }`: `SUBQUERY(employees, $v, …)`, a collection (its
    /// `count` is `@count`).
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        let collection = try translator.value(sequence)
        let name = translator.newSubqueryVariable()
        let test = try translator.binding(variable.key, to: .variable(name)) { try translator.predicate(filter) }
        return .value(.subquery(collection: collection, variable: name, predicate: test))
    }
}

extension PredicateExpressions.SequenceStartsWith: SwiftPredicateNode {
    /// `$0.name.starts(with: "A")`: `name BEGINSWITH "A"`.
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .predicate(.comparison(FetchComparison(try translator.value(base), .beginsWith, try translator.value(prefix))))
    }
}

extension PredicateExpressions.CollectionContainsCollection: SwiftPredicateNode {
    /// `$0.name.contains("ar")`: `name CONTAINS "ar"`.
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .predicate(.comparison(FetchComparison(try translator.value(base), .contains, try translator.value(other))))
    }
}

// MARK: Ranges

extension PredicateExpressions.ClosedRange: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .range(lower: try translator.value(lower), upper: try translator.value(upper), closed: true)
    }
}

extension PredicateExpressions.Range: SwiftPredicateNode {
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        .range(lower: try translator.value(lower), upper: try translator.value(upper), closed: false)
    }
}

extension PredicateExpressions.RangeExpressionContains: SwiftPredicateNode {
    /// `(1...5).contains($0.rating)`: `rating >= 1 AND rating <= 5` (`<` for `..<`).
    func translate(in translator: SwiftPredicateTranslator) throws -> SwiftPredicateTerm {
        guard case .range(let lower, let upper, let closed) = try translator.term(range) else {
            throw SwiftPredicateTranslator.untranslatable(self, "a range that is not a constant or a ... or ..< expression")
        }
        let value = try translator.value(element)
        return .predicate(.and([
            .comparison(FetchComparison(value, .greaterThanOrEqualTo, lower)),
            .comparison(FetchComparison(value, closed ? .lessThanOrEqualTo : .lessThan, upper)),
        ]))
    }
}
