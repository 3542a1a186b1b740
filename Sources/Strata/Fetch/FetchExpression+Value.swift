import Foundation
import OrderedCollections

extension FetchExpression {
    /// The value of the expression for one object, Core Data's
    /// `expressionValue(with:context:)`, with the semantics of docs/PREDICATES.md
    /// ("Expressions"): NULL propagates through arithmetic and functions, integer overflow
    /// is an error, division by zero is NULL.
    ///
    /// ```swift
    /// let row = PredicateRow(["salary": 52_000, "name": "Straße"])
    /// try FetchExpression(format: "salary * 2 + 1").value(with: row)      // .integer(104_001)
    /// try FetchExpression.function(.uppercase, [.key("name")]).value(with: row)   // "STRASSE"
    /// try FetchExpression.function(.divide, [.constant(3), .constant(2)]).value(with: nil) // 1.5
    /// ```
    /// A to-many key path or `SUBQUERY` of objects gives `.objects` (their IDs); a collection
    /// of values (`{1, 2}`, `mode:(…)`, `employees.salary`) is read with
    /// ``values(with:variables:)`` instead.
    /// - Parameters:
    ///   - subject: the evaluated object (`SELF`); nil evaluates with `SELF` NULL.
    ///   - variables: values for `$VARIABLES`.
    /// - Throws: `StrataError(.predicateEvaluation)` for a value of the wrong kind (naming the
    ///   function and the kinds), integer overflow, a failed CAST, a missing variable or a
    ///   collection of values; `StrataError(.unknownKey)` from the subject.
    public func value(with subject: (any PredicateSubject)?, variables: [String: PropertyValue] = [:]) throws -> PropertyValue {
        let operand = try evaluate(with: subject, variables: variables)
        switch operand {
        case .value(let value): return value
        case .object(let object): return .object(try Self.objectID(object))
        case .collection(let elements):
            var ids: [ManagedObjectID] = []
            for element in elements {
                switch element {
                case .object(let object): ids.append(try Self.objectID(object))
                case .value(.object(let id)): ids.append(id)
                default:
                    throw StrataError(.predicateEvaluation,
                                      "the value of \(predicateFormat) is a collection of values; read it with values(with:variables:)",
                                      context: .init { $0.expression = predicateFormat })
                }
            }
            return .objects(OrderedSet(ids))
        }
    }

    /// The values of the expression for one object, as a list: a collection's elements
    /// (objects as `.object` IDs), a single value as a list of one, NULL as an empty list.
    ///
    /// ```swift
    /// try FetchExpression(format: "mode:({1, 2, 2, 3, 3})").values(with: nil)   // [2, 3]
    /// ```
    /// - Throws: as ``value(with:variables:)``, except for collections.
    public func values(with subject: (any PredicateSubject)?, variables: [String: PropertyValue] = [:]) throws -> [PropertyValue] {
        func single(_ operand: PredicateOperand) throws -> PropertyValue {
            switch operand {
            case .value(let value): return value
            case .object(let object): return .object(try Self.objectID(object))
            case .collection:
                throw StrataError(.predicateEvaluation, "the value of \(predicateFormat) is a collection of collections",
                                  context: .init { $0.expression = predicateFormat })
            }
        }
        switch try evaluate(with: subject, variables: variables) {
        case .collection(let elements): return try elements.map(single)
        case .value(let value) where PredicateValueRules.isNull(value): return []
        case let operand: return [try single(operand)]
        }
    }

    private func evaluate(with subject: (any PredicateSubject)?, variables: [String: PropertyValue]) throws -> PredicateOperand {
        let evaluator = PredicateEvaluator(subject: subject.map { .object($0) } ?? .value(.null), variables: variables)
        do {
            return try evaluator.value(self)
        } catch var error as StrataError where error.context.expression == nil {
            error.context.expression = predicateFormat
            throw error
        }
    }

    private static func objectID(_ object: any PredicateSubject) throws -> ManagedObjectID {
        guard let id = object.predicateObjectID else {
            throw StrataError(.predicateEvaluation, "the expression's value is an object without an object ID")
        }
        return id
    }
}
