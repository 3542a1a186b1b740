import Foundation

/// The functions of the expression language on values: one entry for the scalar functions
/// (``apply(_:_:now:)``) and one for the aggregates (``aggregate(_:_:)``, ``mode(_:)``).
///
/// Pure functions of `PropertyValue`s, shared by the in-memory evaluator and the store's
/// registered SQL functions, so that both give the same answer. Semantics are in
/// docs/PREDICATES.md ("Expressions").
package enum ExpressionFunctions {
    /// A scalar (not aggregate) function applied to argument values.
    /// - Parameter now: what `now()` gives: one instant for a whole fetch or batch update.
    /// - Throws: `StrataError(.predicateEvaluation)` for a wrong number of arguments, values
    ///   of the wrong kind (naming the function and the kinds), overflow, a failed CAST.
    package static func apply(_ function: FetchFunction, _ arguments: [PropertyValue], now: Date) throws -> PropertyValue {
        try checkCount(function, arguments.count)
        switch function {
        case .add, .subtract, .multiply, .divide, .modulus, .raise:
            return try ExpressionArithmetic.binary(function, arguments[0], arguments[1])
        case .squareRoot, .log, .naturalLogarithm, .exponential, .absoluteValue, .floor, .ceiling, .truncate:
            return try ExpressionArithmetic.unary(function, arguments[0])
        case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift, .onesComplement:
            return try ExpressionArithmetic.bitwise(function, arguments)
        case .uppercase, .lowercase, .length, .canonical:
            return try text(function, arguments[0])
        case .now: return .date(now)
        case .random: return .double(Double.random(in: 0..<1))
        case .randomBelow: return try random(below: arguments[0])
        case .noIndex: return arguments[0]
        case .castObject: return try ExpressionCast.cast(arguments[0], to: arguments[1])
        case .sum, .count, .min, .max, .average, .median, .mode, .standardDeviation:
            return try aggregate(function, arguments[0].isNull ? [] : [arguments[0]])
        }
    }

    /// Checks a function's argument count.
    package static func checkCount(_ function: FetchFunction, _ count: Int) throws {
        guard count == function.argumentCount else {
            let expected = function.argumentCount == 1 ? "1 argument" : "\(function.argumentCount) arguments"
            throw StrataError(.predicateEvaluation, "\(function.rawValue) takes \(expected), found \(count)",
                              context: .init { $0.function = function.rawValue })
        }
    }

    /// `uppercase:` and `lowercase:` (Foundation's full Unicode mappings: "straße" becomes
    /// "STRASSE"), `canonical:` (the `[cd]` folding: "Café" becomes "cafe") and `length:` (UTF-16 code units, as `NSString.length`).
    package static func text(_ function: FetchFunction, _ value: PropertyValue) throws -> PropertyValue {
        if PredicateValueRules.isNull(value) { return .null }
        guard case .string(let string) = value else {
            let kind = ModelValueRules.kindName(value)
            throw StrataError(.predicateEvaluation, "\(function.rawValue) needs a string, not \(withArticle(kind))",
                              context: .init { $0.function = function.rawValue; $0.valueType = kind })
        }
        switch function {
        case .uppercase: return .string(string.uppercased())
        case .lowercase: return .string(string.lowercased())
        case .canonical: return .string(PredicateText.fold(string, options: .caseDiacriticInsensitive))
        default: return .integer(Int64(string.utf16.count))
        }
    }

    private static func random(below bound: PropertyValue) throws -> PropertyValue {
        if PredicateValueRules.isNull(bound) { return .null }
        guard case .integer(let limit) = bound, limit > 0 else {
            throw StrataError(.predicateEvaluation, "random:(n) needs a positive integer, not \(bound)",
                              context: .init { $0.function = FetchFunction.randomBelow.rawValue })
        }
        return .integer(Int64.random(in: 0..<limit))
    }

    /// An aggregate of the non-NULL values (NULLs are skipped, as SQL's aggregates and the
    /// collection operators do): `sum:` of nothing is 0, `count:` counts the non-NULL
    /// values, `average: min: max: median: stddev:` of nothing are NULL. `mode:` is
    /// ``mode(_:)``; here it gives its first value.
    /// - Throws: `StrataError(.predicateEvaluation)` for objects where numbers are needed,
    ///   values that are not numbers for `sum: average: median: stddev:`, values of
    ///   incomparable kinds for `min: max:`, integer overflow in `sum:`.
    package static func aggregate(_ function: FetchFunction, _ values: [PropertyValue]) throws -> PropertyValue {
        let present = values.filter { !PredicateValueRules.isNull($0) }
        if function == .count { return .integer(Int64(present.count)) }
        if function == .mode { return try mode(present).first ?? .null }
        for value in present {
            if case .object = value {
                throw StrataError(.predicateEvaluation, "\(function.rawValue) needs values, not objects; name a key path of the objects",
                                  context: .init { $0.function = function.rawValue })
            }
        }
        switch function {
        case .sum: return present.isEmpty ? .integer(0) : try sum(present, name: function.rawValue)
        case .min, .max:
            guard var best = present.first else { return .null }
            for value in present.dropFirst() {
                let order = try PredicateValueRules.compare(value, best, options: [], equalityOnly: false, operatorName: function.rawValue) ?? 0
                if function == .min ? order < 0 : order > 0 { best = value }
            }
            return best
        default:
            guard !present.isEmpty else { return .null }
            let numbers = try doubles(present, function.rawValue)
            let mean = numbers.reduce(0, +) / Double(numbers.count)
            switch function {
            case .average: return ExpressionArithmetic.double(mean)
            case .median:
                let sorted = numbers.sorted()
                let middle = sorted.count / 2
                return .double(sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2)
            default:
                let variance = numbers.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(numbers.count)
                return ExpressionArithmetic.double(variance.squareRoot())
            }
        }
    }

    /// `mode:`: the most frequent non-NULL values, in order of first appearance (all of
    /// them when several are equally frequent); empty for no values. Values are equal as
    /// `==` finds them (1 and 1.0 are one value).
    package static func mode(_ values: [PropertyValue]) throws -> [PropertyValue] {
        var distinct: [(value: PropertyValue, count: Int)] = []
        for value in values where !PredicateValueRules.isNull(value) {
            var found = false
            for index in distinct.indices {
                let kindsMeet = (try? PredicateValueRules.compare(value, distinct[index].value, options: [],
                                                                  equalityOnly: true, operatorName: "mode:")) ?? 1
                if kindsMeet == 0 {
                    distinct[index].count += 1
                    found = true
                    break
                }
            }
            if !found { distinct.append((value, 1)) }
        }
        let most = distinct.map(\.count).max() ?? 0
        return distinct.filter { $0.count == most }.map(\.value)
    }

    private static func doubles(_ values: [PropertyValue], _ name: String) throws -> [Double] {
        try values.map { value in
            guard let number = ExpressionArithmetic.number(value) else {
                throw StrataError(.predicateEvaluation, "\(name) needs numbers, not \(withArticle(ModelValueRules.kindName(value)))",
                                  context: .init { $0.function = name })
            }
            return number.double
        }
    }

    /// The sum of non-NULL numbers: integer while every value is an integer (overflow is an
    /// error, as in SQLite), decimal when decimals meet integers, else double.
    /// - Parameters:
    ///   - name: the function or operator, for the overflow error.
    ///   - needs: how the kind error begins ("sum: needs", "@sum and @avg need").
    package static func sum(_ values: [PropertyValue], name: String, needs: String? = nil) throws -> PropertyValue {
        var integer: Int64 = 0, decimal = Decimal(0), double = 0.0
        var kind = 0  // 0 integer, 1 decimal, 2 double
        for value in values {
            switch value {
            case .integer, .boolean:
                let number: Int64
                if case .integer(let n) = value { number = n } else { number = value.numericValue == 1 ? 1 : 0 }
                let (result, overflow) = integer.addingReportingOverflow(number)
                if overflow { throw StrataError(.predicateEvaluation, "integer overflow in \(name)", context: .init { $0.function = name }) }
                integer = result
            case .decimal(let d): decimal += d; kind = Swift.max(kind, 1)
            case .double(let d): double += d; kind = 2
            default:
                throw StrataError(.predicateEvaluation, "\(needs ?? name + " needs") numbers, not \(withArticle(ModelValueRules.kindName(value)))",
                                  context: .init { $0.function = name })
            }
        }
        switch kind {
        case 0: return .integer(integer)
        case 1: return .decimal(decimal + Decimal(integer))
        default: return .double(double + Double(integer) + NSDecimalNumber(decimal: decimal).doubleValue)
        }
    }
}
