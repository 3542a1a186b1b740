import Foundation

/// The SQL functions the fetch translation calls, implemented with the predicate
/// evaluator's own rules (`PredicateText`, `PredicateValueRules`) so that SQL and memory
/// give the same answers. docs/SQL.md lists them.
///
/// Every function returns NULL when an argument is NULL (SQL's UNKNOWN), except the
/// aggregates' helpers, which read NULL as "no values".
///
/// ```swift
/// let connection = try SQLiteConnection(path: path)
/// try SQLFunctions.register(on: connection)
/// // SELECT strata_like('Quinn', 'Q*n', 0)  → 1
/// ```
package enum SQLFunctions {
    /// The names of the functions ``register(on:)`` installs.
    package static let names: [String] = [
        fold, beginsWith, endsWith, contains, like, matches, compare, decimalKey,
        decimalSum, decimalAverage, decimalMinimum, decimalMaximum,
    ] + expressionNames

    /// `strata_fold(text, options)`: `PredicateText.fold` (options: the bits of
    /// `FetchComparison.Options`, 1 `[c]`, 2 `[d]`, 4 `[l]`, 8 `[n]`).
    static let fold = "strata_fold"
    /// `strata_beginswith(text, prefix, options)`: 1, 0 or NULL.
    static let beginsWith = "strata_beginswith"
    /// `strata_endswith(text, suffix, options)`.
    static let endsWith = "strata_endswith"
    /// `strata_contains(text, part, options)`.
    static let contains = "strata_contains"
    /// `strata_like(text, pattern, options)`: the format language's LIKE (`*`, `?`).
    static let like = "strata_like"
    /// `strata_matches(text, regex, options)`: whole-string ICU regular expression.
    static let matches = "strata_matches"
    /// `strata_compare(a, b)`: -1, 0, 1 or NULL comparing two numbers, where INTEGER is an
    /// integer, REAL a double and TEXT a decimal (how snapshots store them).
    static let compare = "strata_compare"
    /// `strata_decimal_key(text)`: a BLOB whose byte order is the decimal's numeric order.
    static let decimalKey = "strata_decimal_key"
    /// `strata_decimal_sum(group_concat(x, ','))`: the exact decimal sum as TEXT; 0 for none.
    static let decimalSum = "strata_decimal_sum"
    /// `strata_decimal_avg(group_concat(x, ','))`: the average as REAL; NULL for none.
    static let decimalAverage = "strata_decimal_avg"
    /// `strata_decimal_min(group_concat(x, ','))`: the least decimal as TEXT; NULL for none.
    static let decimalMinimum = "strata_decimal_min"
    /// `strata_decimal_max(group_concat(x, ','))`: the greatest decimal as TEXT; NULL for none.
    static let decimalMaximum = "strata_decimal_max"

    /// Installs the translation's functions on a connection. Call it once per connection
    /// before running a query from ``SQLPredicateTranslator``.
    /// - Throws: ``StrataStorage/StrataError`` `.sqlite` when SQLite refuses a registration.
    package static func register(on connection: SQLiteConnection) throws {
        try connection.registerFunction(name: fold, argumentCount: 2, deterministic: true) { arguments in
            guard case .text(let text) = arguments[0] else { return arguments[0] }
            return .text(PredicateText.fold(text, options: try options(arguments[1])))
        }
        let textTests: [(String, (String, String, FetchComparison.Options) throws -> Bool)] = [
            (beginsWith, PredicateText.beginsWith), (endsWith, PredicateText.endsWith),
            (contains, PredicateText.contains), (like, PredicateText.like), (matches, PredicateText.matches),
        ]
        for (name, test) in textTests {
            try connection.registerFunction(name: name, argumentCount: 3, deterministic: true) { arguments in
                if arguments[0].isNull || arguments[1].isNull { return .null }
                guard case .text(let text) = arguments[0], case .text(let other) = arguments[1] else {
                    throw StrataError(.predicateEvaluation, "\(name) needs two strings")
                }
                return .integer(try test(text, other, try options(arguments[2])) ? 1 : 0)
            }
        }
        try connection.registerFunction(name: compare, argumentCount: 2, deterministic: true) { arguments in
            guard let lhs = try number(arguments[0]), let rhs = try number(arguments[1]) else { return .null }
            guard let order = PredicateValueRules.numeric(lhs, rhs) else { return .null }
            return .integer(Int64(order))
        }
        try connection.registerFunction(name: decimalKey, argumentCount: 1, deterministic: true) { arguments in
            guard let value = try number(arguments[0]) else { return .null }
            guard case .decimal(let decimal) = value else {
                return .blob(sortKey(Decimal(value.numericValue ?? 0)))
            }
            return .blob(sortKey(decimal))
        }
        try connection.registerFunction(name: decimalSum, argumentCount: 1, deterministic: true) { arguments in
            let values = try decimals(arguments[0])
            if values.isEmpty { return .integer(0) }
            return .text(values.reduce(Decimal(0), +).description)
        }
        try connection.registerFunction(name: decimalAverage, argumentCount: 1, deterministic: true) { arguments in
            let values = try decimals(arguments[0])
            guard !values.isEmpty, let total = PropertyValue.decimal(values.reduce(Decimal(0), +)).numericValue else {
                return .null
            }
            return .real(total / Double(values.count))
        }
        try connection.registerFunction(name: decimalMinimum, argumentCount: 1, deterministic: true) { arguments in
            try decimals(arguments[0]).min().map { .text($0.description) } ?? .null
        }
        try connection.registerFunction(name: decimalMaximum, argumentCount: 1, deterministic: true) { arguments in
            try decimals(arguments[0]).max().map { .text($0.description) } ?? .null
        }
        try registerExpressions(on: connection)
    }

    /// The comparison options encoded as an integer argument (bit 1 `[c]`, 2 `[d]`, 4 `[l]`, 8 `[n]`).
    static func options(_ value: SQLiteValue) throws -> FetchComparison.Options {
        guard case .integer(let bits) = value, (0...15).contains(bits) else {
            throw StrataError(.predicateEvaluation, "invalid comparison options \(value)")
        }
        return FetchComparison.Options(rawValue: UInt8(bits))
    }

    /// A stored number as the evaluator sees it: INTEGER an integer, REAL a double, TEXT a
    /// decimal; nil for NULL.
    static func number(_ value: SQLiteValue) throws -> PropertyValue? {
        switch value {
        case .null: return nil
        case .integer(let number): return .integer(number)
        case .real(let number): return number.isNaN ? nil : .double(number)
        case .text(let text):
            guard let decimal = parseDecimal(text) else {
                throw StrataError(.predicateEvaluation, "\(text.debugDescription) is not a decimal number")
            }
            return .decimal(decimal)
        case .blob:
            throw StrataError(.predicateEvaluation, "cannot compare data with a number")
        }
    }

    /// Parses decimal text as snapshots store it (`Decimal.description`, POSIX locale).
    static func parseDecimal(_ text: String) -> Decimal? {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// The decimals in a `group_concat(x, ',')` result (NULL: none).
    private static func decimals(_ value: SQLiteValue) throws -> [Decimal] {
        switch value {
        case .null: return []
        case .integer(let number): return [Decimal(number)]
        case .text(let text):
            return try text.split(separator: ",").map { part in
                guard let decimal = parseDecimal(String(part)) else {
                    throw StrataError(.predicateEvaluation, "\(String(part).debugDescription) is not a decimal number")
                }
                return decimal
            }
        default:
            throw StrataError(.predicateEvaluation, "decimal aggregates need decimal text, not \(value)")
        }
    }

    /// Bytes that sort like the decimal's value: a sign byte (0x40 negative, 0x80 zero, 0xC0
    /// positive), then for non-zero values the decimal exponent (biased, big-endian) and the
    /// significant digits without trailing zeros, ended by 0x00; negative values complement
    /// everything after the sign byte, which reverses their order.
    static func sortKey(_ decimal: Decimal) -> [UInt8] {
        if decimal.isZero || decimal.isNaN { return [0x80] }
        let text = (decimal < 0 ? -decimal : decimal).description
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts.first.map(String.init) ?? ""
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        var digits = Array((whole + fraction).utf8).filter { (48...57).contains($0) }
        let leading = digits.prefix { $0 == 48 }.count
        digits.removeFirst(leading)
        while digits.last == 48 { digits.removeLast() }
        // value = 0.d1d2… × 10^exponent
        let exponent = whole.utf8.filter { (48...57).contains($0) }.count - leading
        let biased = UInt16(clamping: exponent + 32_768)
        var body: [UInt8] = [UInt8(biased >> 8), UInt8(biased & 0xFF)]
        body += digits.map { $0 - 47 }  // '0'…'9' → 1…10, above the 0x00 end byte
        body.append(0)
        if decimal < 0 { return [0x40] + body.map { ~$0 } }
        return [0xC0] + body
    }
}
