import Foundation

/// The new values of a batch update: its assignments checked against the model before any
/// record is read, then each record's values computed from its old row.
///
/// Constants are coerced and validated once, up front (a bad constant is refused even when
/// no record matches); expressions are evaluated per record with ``RowSubject`` and their
/// results coerced and validated like constants, so a value that fails for any record
/// refuses the whole batch, the error naming the record and the key.
enum BatchUpdateValues {
    /// The slot an assignment sets and its expression, constants already coerced.
    /// - Throws: `.unknownKey` for a key (or a key path's first key) the entity lacks,
    ///   `.invalidArgument` for a relationship or transient key or a `$VARIABLE`, `.typeMismatch` and
    ///   `.validation` for a constant that does not fit the attribute.
    static func assignment(_ expression: FetchExpression, forKey key: String,
                           of entity: EntityDescription) throws -> (slot: Int, expression: FetchExpression) {
        let context = StrataError.Context { $0.entity = entity.name; $0.key = key }
        guard let slot = entity.slot(forKey: key) else {
            throw StrataError(.unknownKey, "The batch update sets \(input: key), which is not a property of entity '\(entity.name)'.",
                              context: context)
        }
        guard case .attribute(let index) = entity.slotKinds[slot] else {
            throw StrataError(.invalidArgument, "The batch update sets the relationship '\(entity.name).\(key)'; only attributes can be set.",
                              context: context)
        }
        let attribute = entity.attributes[index]
        guard !attribute.isTransient else {
            throw StrataError(.invalidArgument, "The batch update sets the transient attribute '\(entity.name).\(key)', which the store does not hold.",
                              context: context)
        }
        if let derivation = attribute.derivation {
            throw StrataError(.invalidArgument, "The batch update sets '\(entity.name).\(key)', which is derived from '\(derivation.predicateFormat)'; the batch computes it when it changes an input.",
                              context: context.with { $0.expression = derivation.predicateFormat })
        }
        if case .constant(let value) = expression {
            return (slot, .constant(try checked(value, for: attribute, of: entity, object: nil, source: nil)))
        }
        var variables: Set<String> = []
        expression.collectVariables(into: &variables, bound: [])
        if let variable = variables.sorted().first {
            throw StrataError(.invalidArgument, "The batch update sets '\(entity.name).\(key)' to \(expression.predicateFormat), which uses $\(variable); substitute variables before the request.",
                              context: context.with { $0.variable = variable })
        }
        for root in expression.rootKeys.sorted() where entity.slot(forKey: root) == nil {
            throw StrataError(.unknownKey, "The batch update sets '\(entity.name).\(key)' to \(expression.predicateFormat), which reads '\(root)', not a property of entity '\(entity.name)'.",
                              context: context.with { $0.expression = expression.predicateFormat })
        }
        return (slot, expression)
    }

    /// The new values of one record's assigned slots, each computed from its old `row`
    /// (so `a = b, b = a` swaps); constants are taken as they are.
    /// - Throws: evaluation errors (a division by zero among them: `context.kind ==
    ///   .divisionByZero`), `.typeMismatch` and `.validation`, each naming the record
    ///   (`context.object`) and the key.
    static func values(_ assignments: [(slot: Int, expression: FetchExpression)], for id: ManagedObjectID, row: [PropertyValue],
                       rowSource: @escaping (ManagedObjectID) throws -> [PropertyValue]?) throws -> [PropertyValue] {
        let entity = id.entity
        var evaluator = PredicateEvaluator(subject: .object(RowSubject(objectID: id, values: row, rowSource: rowSource)), variables: [:])
        // NULL from a division by zero would be written as the new value of every record
        // the batch matched; Core Data raises for it too.
        evaluator.refusesDivisionByZero = true
        return try assignments.map { slot, expression in
            if case .constant(let value) = expression { return value }
            let key = entity.slotNames[slot]
            let context = StrataError.Context { $0.entity = entity.name; $0.key = key; $0.object = id.description; $0.expression = expression.predicateFormat }
            guard case .attribute(let index) = entity.slotKinds[slot] else {
                throw StrataError(.invalidArgument, "The batch update sets the relationship '\(entity.name).\(key)'; only attributes can be set.",
                                  context: context)
            }
            let result: PredicateOperand
            do {
                result = try evaluator.value(expression)
            } catch var error as StrataError {
                error.message = "The batch update's \(entity.name).\(key) = \(expression.predicateFormat) fails for \(id): \(error.message)"
                error.context.entity = error.context.entity ?? context.entity
                error.context.key = error.context.key ?? context.key
                error.context.object = error.context.object ?? context.object
                error.context.expression = error.context.expression ?? context.expression
                throw error
            }
            let value: PropertyValue
            switch result {
            case .value(let single): value = single
            case .object(let object):
                // An object (a to-one key path) reaches the coercion, which names its kind.
                value = object.predicateObjectID.map(PropertyValue.object) ?? .null
            case .collection:
                throw StrataError(.typeMismatch, "The batch update's \(entity.name).\(key) = \(expression.predicateFormat) gives a collection for \(id); an attribute takes one value.",
                                  context: context)
            }
            return try checked(value, for: entity.attributes[index], of: entity, object: id, source: expression)
        }
    }

    /// `value` coerced to the attribute's type and checked against its constraints.
    private static func checked(_ value: PropertyValue, for attribute: AttributeDescription, of entity: EntityDescription,
                                object: ManagedObjectID?, source: FetchExpression?) throws -> PropertyValue {
        let key = attribute.name
        var context = StrataError.Context { $0.entity = entity.name; $0.key = key }
        // Where the value came from, for a computed one: the expression and the record.
        var origin = ""
        if let object, let source {
            context.object = object.description
            context.expression = source.predicateFormat
            origin = " (\(source.predicateFormat) for \(object))"
        }
        guard let coerced = ModelValueRules.coerce(value, to: attribute.attributeType) else {
            var hint = ""
            if attribute.attributeType.isInteger, case .double = value { hint = "; round it with trunc:(…), floor:(…) or ceiling:(…)" }
            throw StrataError(
                .typeMismatch,
                "The batch update sets '\(entity.name).\(key)' to \(withArticle(ModelValueRules.kindName(value))) value (\(value))\(origin); the attribute's type is \(attribute.attributeType.rawValue)\(hint).",
                context: context)
        }
        let problems = AttributeConstraints.problems(of: coerced, for: attribute)
        if !problems.isEmpty {
            throw StrataError(
                .validation, "The batch update sets '\(entity.name).\(key)' to an invalid value\(origin): \(problems.joined(separator: "; ")).",
                problems: problems.map { StrataError.Problem(entityName: entity.name, object: object?.description, key: key, reason: $0) },
                context: context)
        }
        return coerced
    }
}

extension FetchExpression {
    /// The first keys of the key paths read from the evaluated object (not those inside a
    /// SUBQUERY's predicate, which read its elements): what must be properties of the entity.
    var rootKeys: Set<String> {
        switch self {
        case .keyPath(let path, .evaluatedObject):
            return [String(path.prefix { $0 != "." })]
        case .constant, .evaluatedObject, .variable: return []
        case .keyPath(_, let base): return base.rootKeys
        case .collection(let elements), .function(_, let elements):
            return elements.reduce(into: []) { $0.formUnion($1.rootKeys) }
        case .collectionOperator(_, let collection, _): return collection.rootKeys
        case .subquery(let collection, _, _): return collection.rootKeys
        case .conditional(let condition, let then, let otherwise):
            return condition.rootKeys.union(then.rootKeys).union(otherwise.rootKeys)
        case .index(let base, let index):
            if case .at(let key) = index { return base.rootKeys.union(key.rootKeys) }
            return base.rootKeys
        }
    }
}

extension FetchPredicate {
    /// The first keys of the key paths the predicate reads from the evaluated object.
    var rootKeys: Set<String> {
        switch self {
        case .constant: return []
        case .comparison(let comparison): return comparison.lhs.rootKeys.union(comparison.rhs.rootKeys)
        case .and(let terms), .or(let terms): return terms.reduce(into: []) { $0.formUnion($1.rootKeys) }
        case .not(let inner): return inner.rootKeys
        }
    }
}
