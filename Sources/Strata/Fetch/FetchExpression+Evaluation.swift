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
                throw StrataError(.predicateEvaluation, "variable $\(name) has no value", context: ["variable": name])
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
        case .function, .conditional, .index:
            throw StrataError(.predicateEvaluation, "expression \(expression.predicateFormat) cannot be evaluated yet",
                              context: ["expression": expression.predicateFormat])
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

    private func step(_ operand: PredicateOperand, _ key: String) throws -> PredicateOperand {
        switch operand {
        case .object(let subject):
            return PredicateOperand(try subject.predicateValue(forKey: key))
        case .value(let value):
            if PredicateValueRules.isNull(value) { return .value(.null) }
            throw StrataError(.predicateEvaluation, "cannot read key '\(key)' of a \(ModelValueRules.kindName(value)) value",
                              context: ["key": key])
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
            throw StrataError(.predicateEvaluation, "\(what) needs a collection (a to-many key path or {…})", context: ["operator": what])
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
                                  context: ["operator": op.rawValue])
            }
            // Not `? nil :` — PropertyValue is ExpressibleByNilLiteral, so that nil would be .null.
            if PredicateValueRules.isNull(value) { return Optional<PropertyValue>.none }
            return value
        }
        switch op {
        case .count: return .integer(Int64(values.count))
        case .sum: return values.isEmpty ? .integer(0) : try sum(values)
        case .avg:
            guard !values.isEmpty else { return .null }
            guard let total = try sum(values).numericValue else { return .null }
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

    /// The sum of non-NULL numbers: integer while every value is an integer (overflow is an
    /// error, as in SQLite), decimal when decimals meet integers, else double.
    private func sum(_ values: [PropertyValue]) throws -> PropertyValue {
        var integer: Int64 = 0, decimal = Decimal(0), double = 0.0
        var kind = 0  // 0 integer, 1 decimal, 2 double
        for value in values {
            switch value {
            case .integer, .boolean:
                let number: Int64
                if case .integer(let n) = value { number = n } else { number = value.numericValue == 1 ? 1 : 0 }
                let (result, overflow) = integer.addingReportingOverflow(number)
                if overflow { throw StrataError(.predicateEvaluation, "integer overflow in @sum") }
                integer = result
            case .decimal(let d): decimal += d; kind = Swift.max(kind, 1)
            case .double(let d): double += d; kind = 2
            default:
                throw StrataError(.predicateEvaluation, "@sum and @avg need numbers, not a \(ModelValueRules.kindName(value))")
            }
        }
        switch kind {
        case 0: return .integer(integer)
        case 1: return .decimal(decimal + Decimal(integer))
        default: return .double(double + Double(integer) + NSDecimalNumber(decimal: decimal).doubleValue)
        }
    }
}
