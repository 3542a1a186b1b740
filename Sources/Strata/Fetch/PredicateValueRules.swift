import Foundation

/// SQL's three truth values: a comparison with NULL is `unknown`.
///
/// NOT unknown is unknown; AND and OR follow Kleene's tables; a predicate whose value is
/// unknown does not match.
package enum PredicateTruth: Hashable, Sendable {
    case isTrue, isFalse, unknown

    package init(_ flag: Bool) { self = flag ? .isTrue : .isFalse }

    package static prefix func ! (value: PredicateTruth) -> PredicateTruth {
        switch value {
        case .isTrue: return .isFalse
        case .isFalse: return .isTrue
        case .unknown: return .unknown
        }
    }

    package static func && (lhs: PredicateTruth, rhs: PredicateTruth) -> PredicateTruth {
        if lhs == .isFalse || rhs == .isFalse { return .isFalse }
        if lhs == .unknown || rhs == .unknown { return .unknown }
        return .isTrue
    }

    package static func || (lhs: PredicateTruth, rhs: PredicateTruth) -> PredicateTruth {
        if lhs == .isTrue || rhs == .isTrue { return .isTrue }
        if lhs == .unknown || rhs == .unknown { return .unknown }
        return .isFalse
    }
}

/// How two values compare: the one place for NULL, numeric, string (UTF-8 byte order,
/// folding) and date rules. The SQL translation follows the same table.
package enum PredicateValueRules {
    /// Whether the value is NULL for comparison purposes (NaN is NULL, as SQLite stores it).
    package static func isNull(_ value: PropertyValue) -> Bool {
        switch value {
        case .null: return true
        case .double(let number): return number.isNaN
        default: return false
        }
    }

    /// -1, 0 or 1; nil when either side is NULL.
    ///
    /// Numbers (integer, double, decimal, boolean) compare numerically with each other;
    /// strings by UTF-8 bytes after folding; dates by time; data by bytes; UUIDs and URIs
    /// with each other or with strings; object IDs only for equality (`equalityOnly`).
    /// - Throws: `StrataError(.predicateEvaluation)` for values of incomparable kinds
    ///   (a string and a number) or ordering objects.
    package static func compare(
        _ lhs: PropertyValue, _ rhs: PropertyValue, options: FetchComparison.Options,
        equalityOnly: Bool, operatorName: String
    ) throws -> Int? {
        if isNull(lhs) || isNull(rhs) { return nil }
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)):
            if options.contains(.localeSensitive) { return localeCompare(a, b, options: options) }
            return PredicateText.compare(a, b, options: options)
        case (.date(let a), .date(let b)): return sign(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
        case (.data(let a), .data(let b)): return bytes(Array(a), Array(b))
        case (.uuid(let a), .uuid(let b)): return PredicateText.compare(a.uuidString, b.uuidString)
        case (.uuid(let a), .string(let b)):
            guard let other = UUID(uuidString: b) else { break }
            return PredicateText.compare(a.uuidString, other.uuidString)
        case (.string(let a), .uuid(let b)):
            guard let other = UUID(uuidString: a) else { break }
            return PredicateText.compare(other.uuidString, b.uuidString)
        case (.uri(let a), .uri(let b)): return PredicateText.compare(a.absoluteString, b.absoluteString)
        case (.uri(let a), .string(let b)): return PredicateText.compare(a.absoluteString, b)
        case (.string(let a), .uri(let b)): return PredicateText.compare(a, b.absoluteString)
        case (.object(let a), .object(let b)) where equalityOnly: return a == b ? 0 : 1
        default:
            if let result = numeric(lhs, rhs) { return result }
        }
        throw mismatch(lhs, rhs, operatorName: operatorName)
    }

    /// `[l]`: -1, 0 or 1 as the current locale's collation orders the strings (Foundation's
    /// `compare(_:options:range:locale:)`, with `[c]` and `[d]` as its options), instead of
    /// UTF-8 byte order. Canonically equivalent strings are equal ("é" and "e" + U+0301).
    /// The store registers this function so that SQL orders `[l]` comparisons alike.
    package static func localeCompare(_ lhs: String, _ rhs: String, options: FetchComparison.Options) -> Int {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        switch lhs.compare(rhs, options: folding, range: nil, locale: Locale.current) {
        case .orderedAscending: return -1
        case .orderedSame: return 0
        case .orderedDescending: return 1
        }
    }

    /// The error for comparing values of incomparable kinds.
    package static func mismatch(_ lhs: PropertyValue, _ rhs: PropertyValue, operatorName: String) -> StrataError {
        let left = ModelValueRules.kindName(lhs), right = ModelValueRules.kindName(rhs)
        return StrataError(.predicateEvaluation, "cannot compare \(withArticle(left)) with \(withArticle(right)) using \(operatorName)",
                           context: .init { $0.function = operatorName; $0.leftType = left; $0.rightType = right })
    }

    /// Numeric comparison across integer, double, decimal and boolean; nil if either is not
    /// a number.
    package static func numeric(_ lhs: PropertyValue, _ rhs: PropertyValue) -> Int? {
        switch (integerValue(lhs), integerValue(rhs)) {
        case (let a?, let b?): return a == b ? 0 : (a < b ? -1 : 1)
        default: break
        }
        switch (lhs, rhs) {
        case (.decimal(let a), .decimal(let b)): return decimal(a, b)
        case (.decimal(let a), _): if let b = integerValue(rhs) { return decimal(a, Decimal(b)) }
        case (_, .decimal(let b)): if let a = integerValue(lhs) { return decimal(Decimal(a), b) }
        default: break
        }
        guard let a = lhs.numericValue, let b = rhs.numericValue else { return nil }
        if let i = integerValue(lhs), case .double(let d) = rhs { return integerVersusDouble(i, d) }
        if case .double(let d) = lhs, let i = integerValue(rhs) { return -integerVersusDouble(i, d) }
        return sign(a, b)
    }

    private static func integerValue(_ value: PropertyValue) -> Int64? {
        switch value {
        case .integer(let number): return number
        case .boolean(let flag): return flag ? 1 : 0
        default: return nil
        }
    }

    /// Exact comparison of an integer with a double (no rounding of large integers).
    private static func integerVersusDouble(_ i: Int64, _ d: Double) -> Int {
        if d >= 9_223_372_036_854_775_808.0 { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = Int64(d.rounded(.down))
        if i != whole { return i < whole ? -1 : 1 }
        return d > d.rounded(.down) ? -1 : 0
    }

    private static func decimal(_ a: Decimal, _ b: Decimal) -> Int {
        a == b ? 0 : (a < b ? -1 : 1)
    }

    private static func sign(_ a: Double, _ b: Double) -> Int {
        a == b ? 0 : (a < b ? -1 : 1)
    }

    private static func bytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// The truth of `lhs op rhs` for two single values (not collections), with SQL's NULL
    /// rules: `==`/`!=` are IS NULL / IS NOT NULL when `nullTest` (one side is the literal
    /// NULL); otherwise NULL on either side gives `unknown`.
    package static func truth(
        _ lhs: PropertyValue, _ op: FetchComparison.Operator, _ rhs: PropertyValue,
        options: FetchComparison.Options, nullTest: Bool
    ) throws -> PredicateTruth {
        let name = op.rawValue
        if nullTest, op == .equalTo || op == .notEqualTo {
            let equal: Bool
            switch (isNull(lhs), isNull(rhs)) {
            case (true, true): equal = true
            case (false, false):
                equal = try compare(lhs, rhs, options: options, equalityOnly: true, operatorName: name) == 0
            default: equal = false
            }
            return PredicateTruth(op == .equalTo ? equal : !equal)
        }
        if isNull(lhs) || isNull(rhs) { return .unknown }
        switch op {
        case .equalTo, .notEqualTo:
            let result = try compare(lhs, rhs, options: options, equalityOnly: true, operatorName: name)
            return PredicateTruth((result == 0) == (op == .equalTo))
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            if case .object = lhs { throw orderingObjects(name) }
            if case .object = rhs { throw orderingObjects(name) }
            guard let result = try compare(lhs, rhs, options: options, equalityOnly: false, operatorName: name) else { return .unknown }
            switch op {
            case .lessThan: return PredicateTruth(result < 0)
            case .lessThanOrEqualTo: return PredicateTruth(result <= 0)
            case .greaterThan: return PredicateTruth(result > 0)
            default: return PredicateTruth(result >= 0)
            }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .string(let text) = lhs, case .string(let other) = rhs else {
                throw StrataError(.predicateEvaluation,
                                  "\(name) needs strings on both sides, not \(withArticle(ModelValueRules.kindName(lhs))) and \(withArticle(ModelValueRules.kindName(rhs)))",
                                  context: .init { $0.function = name; $0.leftType = ModelValueRules.kindName(lhs); $0.rightType = ModelValueRules.kindName(rhs) })
            }
            switch op {
            case .beginsWith: return PredicateTruth(PredicateText.beginsWith(text, other, options: options))
            case .endsWith: return PredicateTruth(PredicateText.endsWith(text, other, options: options))
            case .contains: return PredicateTruth(PredicateText.contains(text, other, options: options))
            case .like: return PredicateTruth(PredicateText.like(text, other, options: options))
            default: return PredicateTruth(try PredicateText.matches(text, other, options: options))
            }
        case .between, .in:
            throw StrataError(.predicateEvaluation, "\(name) needs a collection on its right side", context: .init { $0.function = name })
        }
    }

    private static func orderingObjects(_ name: String) -> StrataError {
        StrataError(.predicateEvaluation, "objects can only be compared with == and !=, not \(name)", context: .init { $0.function = name })
    }

    /// SQL's `x IN (list)`: true if an element equals `x`; otherwise unknown if `x` is NULL
    /// or an element is NULL (and the list is not empty); otherwise false.
    package static func membership(
        _ value: PropertyValue, in elements: [PropertyValue], options: FetchComparison.Options
    ) throws -> PredicateTruth {
        var result = PredicateTruth.isFalse
        for element in elements {
            result = result || (try truth(value, .equalTo, element, options: options, nullTest: false))
            if result == .isTrue { return .isTrue }
        }
        return result
    }
}
