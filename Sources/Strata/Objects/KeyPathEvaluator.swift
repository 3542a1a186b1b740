import Foundation

/// Walks key paths over objects for key-value coding.
enum KeyPathEvaluator {
    static let operators: Set<String> = ["@count", "@sum", "@avg", "@min", "@max"]

    static func evaluate(_ keys: [String], from objects: [ManagedObject], isCollection: Bool) throws -> KeyPathValue {
        guard let key = keys.first else {
            let ids = objects.map { PropertyValue.object($0.objectID) }
            return isCollection ? .multiple(ids) : .single(ids.first ?? .null)
        }
        let rest = Array(keys.dropFirst())
        if key.hasPrefix("@") {
            guard isCollection else {
                throw StrataError(.unknownKey, "Collection operator \(key) needs a to-many key path before it.", context: .init { $0.key = key })
            }
            return try aggregate(key, rest, objects)
        }
        if rest.isEmpty {
            var values: [PropertyValue] = []
            for object in objects {
                let value = try object.value(forKey: key)
                if case .objects(let ids) = value, isCollection {
                    values.append(contentsOf: ids.map(PropertyValue.object))
                } else {
                    values.append(value)
                }
            }
            return isCollection ? .multiple(values) : .single(values.first ?? .null)
        }
        var next: [ManagedObject] = []
        var toMany = isCollection
        for object in objects {
            let value = try object.value(forKey: key)
            guard let context = object.context else { continue }
            switch value {
            case .object(let id): next.append(context.object(with: id))
            case .objects(let ids):
                toMany = true
                next.append(contentsOf: ids.map { context.object(with: $0) })
            case .null: continue
            default:
                throw StrataError(.unknownKey, "\(input: key) of \(object.entity.name) is an attribute; the key path cannot continue through it.",
                                  context: .init { $0.entity = object.entity.name; $0.key = key })
            }
        }
        if !toMany && next.isEmpty {
            if rest.first?.hasPrefix("@") == true { return .single(.null) }
            return .single(.null)
        }
        return try evaluate(rest, from: next, isCollection: toMany)
    }

    private static func aggregate(_ op: String, _ rest: [String], _ objects: [ManagedObject]) throws -> KeyPathValue {
        if op == "@count" { return .single(.integer(Int64(objects.count))) }
        guard operators.contains(op) else {
            throw StrataError(.unknownKey, "Unknown collection operator \(op).", context: .init { $0.key = op })
        }
        guard !rest.isEmpty, case .multiple(let values) = try evaluate(rest, from: objects, isCollection: true) else {
            throw StrataError(.unknownKey, "\(op) needs a key after it (\(op).salary).", context: .init { $0.key = op })
        }
        return .single(aggregate(op, values))
    }

    /// SQL-like aggregates: NULLs are ignored; @sum of nothing is 0; @avg/@min/@max of
    /// nothing is null.
    static func aggregate(_ op: String, _ values: [PropertyValue]) -> PropertyValue {
        let present = values.filter { !$0.isNull }
        switch op {
        case "@sum":
            if present.allSatisfy({ if case .integer = $0 { return true } else { return false } }) {
                return .integer(present.reduce(Int64(0)) { sum, value in
                    if case .integer(let v) = value { return sum &+ v } else { return sum }
                })
            }
            return .double(present.compactMap(\.numericValue).reduce(0, +))
        case "@avg":
            let numbers = present.compactMap(\.numericValue)
            return numbers.isEmpty ? .null : .double(numbers.reduce(0, +) / Double(numbers.count))
        case "@min", "@max":
            guard var best = present.first else { return .null }
            for value in present.dropFirst() {
                let less = ValueOrdering.compare(value, best) == .orderedAscending
                if (op == "@min") == less { best = value }
            }
            return best
        default:
            return .null
        }
    }
}

/// A total order on values of one kind, used for @min/@max and sorting.
enum ValueOrdering {
    static func compare(_ lhs: PropertyValue, _ rhs: PropertyValue) -> ComparisonResult {
        switch (lhs, rhs) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let a), .string(let b)):
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        case (.date(let a), .date(let b)): return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        default:
            if let a = lhs.numericValue, let b = rhs.numericValue {
                return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
            }
            let a = lhs.description, b = rhs.description
            return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        }
    }
}
