import Foundation

extension PredicateEvaluator {
    /// The value of an expression for the current subject.
    func value(_ expression: FetchExpression) throws -> PredicateOperand {
        switch expression {
        case .constant(let value): return PredicateOperand(value)
        case .collection(let elements): return .collection(try elements.map { try value($0) })
        case .evaluatedObject: return subject
        case .variable(let name):
            if let bound = bindings[name] { return bound }
            guard let value = variables[name] else {
                throw StrataError(.predicateEvaluation, "variable $\(name) has no value", context: .init { $0.variable = name })
            }
            return PredicateOperand(value)
        case .keyPath(let path, let base):
            return try follow(path, from: try value(base))
        case .collectionOperator(let op, let collection, let key):
            return .value(try apply(op, to: try value(collection), key: key))
        case .subquery(let collection, let variable, let predicate):
            var matches: [PredicateOperand] = []
            for element in try elements(of: try value(collection), for: "SUBQUERY") {
                var inner = self
                inner.subject = element
                inner.bindings[variable] = element
                if try inner.truth(predicate) == .isTrue { matches.append(element) }
            }
            return .collection(matches)
        case .function(let function, let arguments):
            return try value(of: function, arguments)
        case .conditional(let condition, let then, let otherwise):
            return try value(if: condition, then: then, else: otherwise)
        case .index(let base, let index):
            return try value(of: base, at: index)
        }
    }

    /// Follows a dotted key path: through to-ones to a value, through to-manys to a
    /// (flattened) collection; a NULL on the way gives NULL.
    func follow(_ path: String, from start: PredicateOperand) throws -> PredicateOperand {
        var current = start
        for key in path.split(separator: ".") {
            current = try step(current, String(key))
        }
        return current
    }

    /// One key of an operand: an object's key, every element's key of a collection, and of a
    /// string value the key `length` (its UTF-16 length, as Foundation's key-value coding).
    /// The key `self` (`#self`) of a plain value is the value, as in key-value coding, so
    /// `{1, 2, 3}.@max.#self` is 3 (docs/PREDICATES.md §3).
    func step(_ operand: PredicateOperand, _ key: String) throws -> PredicateOperand {
        switch operand {
        case .object(let subject):
            return PredicateOperand(try subject.predicateValue(forKey: key))
        case .value(let value):
            if PredicateValueRules.isNull(value) { return .value(.null) }
            if key == "self" { return operand }
            if key == "length", case .string(let text) = value { return .value(.integer(Int64(text.utf16.count))) }
            throw StrataError(.predicateEvaluation, "cannot read key \(input: key) of \(withArticle(ModelValueRules.kindName(value))) value",
                              context: .init { $0.key = key })
        case .collection(let elements):
            var result: [PredicateOperand] = []
            for element in elements {
                switch try step(element, key) {
                case .collection(let nested): result.append(contentsOf: nested)
                case let single: result.append(single)
                }
            }
            return .collection(result)
        }
    }

    /// The elements of a collection; NULL is empty.
    private func elements(of operand: PredicateOperand, for what: String) throws -> [PredicateOperand] {
        switch operand {
        case .collection(let elements): return elements
        case .value(let value) where PredicateValueRules.isNull(value): return []
        case .object, .value:
            throw StrataError(.predicateEvaluation, "\(what) needs a collection (a to-many key path or {…})", context: .init { $0.function = what })
        }
    }

    /// `@count @sum @avg @min @max`, ignoring NULLs like SQL's aggregates.
    private func apply(_ op: FetchCollectionOperator, to collection: PredicateOperand, key: String?) throws -> PropertyValue {
        var items = try elements(of: collection, for: op.rawValue)
        if let key {
            items = try items.flatMap { item -> [PredicateOperand] in
                switch try follow(key, from: item) {
                case .collection(let nested): return nested
                case let single: return [single]
                }
            }
        }
        if op == .count { return .integer(Int64(items.count)) }
        let values = try items.compactMap { item -> PropertyValue? in
            guard case .value(let value) = item else {
                throw StrataError(.predicateEvaluation, "\(op.rawValue) needs values, not objects; name a key: \(op.rawValue).key",
                                  context: .init { $0.function = op.rawValue })
            }
            // Not `? nil :` — PropertyValue is ExpressibleByNilLiteral, so that nil would be .null.
            if PredicateValueRules.isNull(value) { return Optional<PropertyValue>.none }
            return value
        }
        switch op {
        case .count: return .integer(Int64(values.count))
        case .sum: return values.isEmpty ? .integer(0) : try ExpressionFunctions.sum(values, name: op.rawValue, needs: "@sum and @avg need")
        case .avg:
            guard !values.isEmpty else { return .null }
            guard let total = try ExpressionFunctions.sum(values, name: op.rawValue, needs: "@sum and @avg need").numericValue else { return .null }
            return .double(total / Double(values.count))
        case .min, .max:
            guard var best = values.first else { return .null }
            for value in values.dropFirst() {
                let order = try PredicateValueRules.compare(value, best, options: [], equalityOnly: false, operatorName: op.rawValue) ?? 0
                if op == .min ? order < 0 : order > 0 { best = value }
            }
            return best
        }
    }
}
