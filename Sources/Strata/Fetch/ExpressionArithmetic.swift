import Foundation

/// The arithmetic of expressions on single values: the operators `+ - * / **`,
/// `modulus:by:`, the numeric functions of one number and the bitwise functions.
///
/// Pure functions of `PropertyValue`s, so that the store's registered SQL functions compute
/// exactly what memory computes. The rules (docs/PREDICATES.md, "Expressions"):
/// - NULL in any argument gives NULL, as in SQL.
/// - Numbers promote integer (booleans are 0 and 1) → decimal → double: `+ - *` of integers
///   give an integer and overflow is an error; a decimal with integers or decimals gives a
///   decimal; anything with a double gives a double.
/// - `/` gives a double (a decimal when a decimal meets integers or decimals); `/` and
///   `modulus:by:` by zero give NULL (SQL's answer; Foundation's infinity and NaN cannot be
///   stored).
/// - A date plus or minus a number of seconds is a date; a date minus a date is seconds.
package enum ExpressionArithmetic {
    /// A number after promotion: booleans are integers.
    enum Number {
        case integer(Int64)
        case decimal(Decimal)
        case double(Double)

        var double: Double {
            switch self {
            case .integer(let value): return Double(value)
            case .decimal(let value): return NSDecimalNumber(decimal: value).doubleValue
            case .double(let value): return value
            }
        }

        var decimal: Decimal? {
            switch self {
            case .integer(let value): return Decimal(value)
            case .decimal(let value): return value
            case .double: return nil
            }
        }
    }

    /// The value as a number; nil when it is not one (or NULL).
    static func number(_ value: PropertyValue) -> Number? {
        switch value {
        case .integer(let value): return .integer(value)
        case .boolean(let flag): return .integer(flag ? 1 : 0)
        case .decimal(let value): return .decimal(value)
        case .double(let value): return value.isNaN ? nil : .double(value)
        default: return nil
        }
    }

    /// Whether a value is a number equal to zero (a divisor `/` and `modulus:by:` give
    /// NULL for).
    static func isZero(_ value: PropertyValue) -> Bool {
        switch number(value) {
        case .integer(let x)?: return x == 0
        case .decimal(let x)?: return x == 0
        case .double(let x)?: return x == 0
        case nil: return false
        }
    }

    /// `lhs op rhs` for ``FetchFunction/add``, `subtract`, `multiply`, `divide`, `modulus`
    /// and `raise`.
    /// - Throws: `StrataError(.predicateEvaluation)` for values that are not numbers (or a
    ///   date and seconds), naming the operator and both kinds; for integer or decimal
    ///   overflow.
    package static func binary(_ function: FetchFunction, _ lhs: PropertyValue, _ rhs: PropertyValue) throws -> PropertyValue {
        if PredicateValueRules.isNull(lhs) || PredicateValueRules.isNull(rhs) { return .null }
        if let a = number(lhs), let b = number(rhs) { return try numeric(function, a, b) }
        switch (function, lhs, rhs) {
        case (.add, .date(let date), _):
            if let seconds = number(rhs) { return moved(date, by: seconds.double) }
        case (.add, _, .date(let date)):
            if let seconds = number(lhs) { return moved(date, by: seconds.double) }
        case (.subtract, .date(let a), .date(let b)):
            return .double(a.timeIntervalSinceReferenceDate - b.timeIntervalSinceReferenceDate)
        case (.subtract, .date(let date), _):
            if let seconds = number(rhs) { return moved(date, by: -seconds.double) }
        default: break
        }
        let left = ModelValueRules.kindName(lhs), right = ModelValueRules.kindName(rhs)
        let dates = function == .add || function == .subtract ? " (or a date and a number of seconds)" : ""
        throw StrataError(.predicateEvaluation, "\(symbol(function)) needs numbers\(dates), not \(withArticle(left)) and \(withArticle(right))",
                          context: .init { $0.function = function.rawValue; $0.leftType = left; $0.rightType = right })
    }

    /// How errors name a function: its operator where it has one.
    static func symbol(_ function: FetchFunction) -> String {
        function.infixOperator ?? function.rawValue
    }

    private static func moved(_ date: Date, by seconds: Double) -> PropertyValue {
        let time = date.timeIntervalSinceReferenceDate + seconds
        return time.isFinite ? .date(Date(timeIntervalSinceReferenceDate: time)) : .null
    }

    private static func numeric(_ function: FetchFunction, _ a: Number, _ b: Number) throws -> PropertyValue {
        switch function {
        case .add, .subtract, .multiply:
            if case .integer(let x) = a, case .integer(let y) = b {
                let (result, overflow) = switch function {
                case .add: x.addingReportingOverflow(y)
                case .subtract: x.subtractingReportingOverflow(y)
                default: x.multipliedReportingOverflow(by: y)
                }
                if overflow {
                    throw StrataError(.predicateEvaluation, "integer overflow in \(x) \(symbol(function)) \(y)",
                                      context: .init { $0.function = function.rawValue })
                }
                return .integer(result)
            }
            if let (x, y) = decimals(a, b) {
                let result = switch function {
                case .add: x + y
                case .subtract: x - y
                default: x * y
                }
                return try checked(result, function)
            }
            let x = a.double, y = b.double
            return double(function == .add ? x + y : function == .subtract ? x - y : x * y)
        case .divide:
            if let (x, y) = decimals(a, b) {
                return y == 0 ? .null : try checked(x / y, function)
            }
            return b.double == 0 ? .null : double(a.double / b.double)
        case .modulus:
            if case .integer(let x) = a, case .integer(let y) = b {
                guard y != 0 else { return .null }
                // Int64.min % -1 overflows in Swift; SQLite's answer is 0.
                let (remainder, overflow) = x.remainderReportingOverflow(dividingBy: y)
                return .integer(overflow ? 0 : remainder)
            }
            if let (x, y) = decimals(a, b) {
                guard y != 0 else { return .null }
                return try checked(x - truncated(x / y) * y, function)
            }
            return b.double == 0 ? .null : double(fmod(a.double, b.double))
        case .raise:
            if case .decimal(let base) = a, case .integer(let exponent) = b, exponent.magnitude <= 9_999 {
                if exponent >= 0 { return try checked(pow(base, Int(exponent)), function) }
                let power = pow(base, Int(-exponent))
                return power == 0 ? .null : try checked(1 / power, function)
            }
            return double(pow(a.double, b.double))
        default:
            preconditionFailure("\(function.rawValue) is not a binary arithmetic function")
        }
    }

    /// Both as decimals when one is a decimal and neither a double.
    private static func decimals(_ a: Number, _ b: Number) -> (Decimal, Decimal)? {
        switch (a, b) {
        case (.decimal, _), (_, .decimal):
            guard let x = a.decimal, let y = b.decimal else { return nil }
            return (x, y)
        default: return nil
        }
    }

    /// A double result; NaN (as from `pow(-8, 0.5)`) is NULL, as SQLite stores it.
    static func double(_ value: Double) -> PropertyValue {
        value.isNaN ? .null : .double(value)
    }

    private static func checked(_ value: Decimal, _ function: FetchFunction) throws -> PropertyValue {
        guard !value.isNaN else {
            throw StrataError(.predicateEvaluation, "decimal overflow in \(symbol(function))", context: .init { $0.function = function.rawValue })
        }
        return .decimal(value)
    }

    /// The decimal toward zero (rounding a magnitude down is unambiguous).
    static func truncated(_ value: Decimal) -> Decimal {
        var magnitude = value.magnitude, result = Decimal()
        NSDecimalRound(&result, &magnitude, 0, .down)
        return value < 0 ? -result : result
    }

    /// `sqrt: log: ln: exp: abs: floor: ceiling: trunc:` of one number. A square root of a
    /// negative number and a logarithm of a number ≤ 0 are NULL (SQLite's math functions).
    /// - Throws: `StrataError(.predicateEvaluation)` when the value is not a number, or for
    ///   `abs:` of the least integer (overflow).
    package static func unary(_ function: FetchFunction, _ value: PropertyValue) throws -> PropertyValue {
        if PredicateValueRules.isNull(value) { return .null }
        guard let n = number(value) else {
            let kind = ModelValueRules.kindName(value)
            throw StrataError(.predicateEvaluation, "\(function.rawValue) needs a number, not \(withArticle(kind))",
                              context: .init { $0.function = function.rawValue; $0.valueType = kind })
        }
        let x = n.double
        switch function {
        case .squareRoot: return x < 0 ? .null : double(x.squareRoot())
        case .log: return x <= 0 ? .null : double(log10(x))
        case .naturalLogarithm: return x <= 0 ? .null : double(Foundation.log(x))
        case .exponential: return double(Foundation.exp(x))
        case .absoluteValue:
            switch n {
            case .integer(let i):
                guard i != .min else {
                    throw StrataError(.predicateEvaluation, "integer overflow in abs:(\(i))", context: .init { $0.function = function.rawValue })
                }
                return .integer(Swift.abs(i))
            case .decimal(let d): return .decimal(d.magnitude)
            case .double(let d): return .double(Swift.abs(d))
            }
        case .floor, .ceiling, .truncate:
            switch n {
            case .integer(let i): return .integer(i)
            case .double(let d):
                return .double(function == .floor ? Foundation.floor(d) : function == .ceiling ? ceil(d) : trunc(d))
            case .decimal(let d):
                let whole = truncated(d)
                if whole == d || function == .truncate { return .decimal(whole) }
                if function == .floor { return .decimal(d > 0 ? whole : whole - 1) }
                return .decimal(d < 0 ? whole : whole + 1)
            }
        default:
            preconditionFailure("\(function.rawValue) is not a numeric function of one number")
        }
    }

    /// `bitwiseAnd:with: bitwiseOr:with: bitwiseXor:with: leftshift:by: rightshift:by:
    /// onesComplement:` of integers (booleans are 0 and 1). Shifts are SQLite's: by 64 or more
    /// gives 0 (or -1 shifting a negative number right), a negative count shifts the other way.
    /// - Throws: `StrataError(.predicateEvaluation)` for an argument that is not an integer.
    package static func bitwise(_ function: FetchFunction, _ arguments: [PropertyValue]) throws -> PropertyValue {
        if arguments.contains(where: PredicateValueRules.isNull) { return .null }
        let integers = try arguments.map { argument -> Int64 in
            switch argument {
            case .integer(let value): return value
            case .boolean(let flag): return flag ? 1 : 0
            default:
                let kind = ModelValueRules.kindName(argument)
                throw StrataError(.predicateEvaluation, "\(function.rawValue) needs integers, not \(withArticle(kind))",
                                  context: .init { $0.function = function.rawValue; $0.valueType = kind })
            }
        }
        switch function {
        case .bitwiseAnd: return .integer(integers[0] & integers[1])
        case .bitwiseOr: return .integer(integers[0] | integers[1])
        case .bitwiseXor: return .integer(integers[0] ^ integers[1])
        case .leftShift: return .integer(integers[0] << integers[1])
        case .rightShift: return .integer(integers[0] >> integers[1])
        case .onesComplement: return .integer(~integers[0])
        default: preconditionFailure("\(function.rawValue) is not a bitwise function")
        }
    }
}
