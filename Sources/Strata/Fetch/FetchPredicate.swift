/// A fetch predicate: the abstract syntax of Core Data's NSPredicate format language.
///
/// Build one from a format string, with the builder operators, or directly from the cases;
/// print it back with ``predicateFormat``; evaluate it in memory with
/// ``evaluate(with:variables:)``. The same tree is what the store translates to SQL, so the
/// cases are kept few and easy to walk.
///
/// ```swift
/// let p = try FetchPredicate(format: "salary > %d AND lastName BEGINSWITH[c] %@", 5000, "q")
/// let q: FetchPredicate = .key("salary") > 5000 && .key("lastName").beginsWith("q", options: .caseInsensitive)
/// // p == q
/// ```
///
/// Semantics (SQL's, so that memory and store agree) are stated in docs/PREDICATES.md.
public indirect enum FetchPredicate: Hashable, Sendable {
    /// `TRUEPREDICATE` (`true`) or `FALSEPREDICATE` (`false`).
    case constant(Bool)
    /// One comparison: `lhs op rhs`, possibly with a modifier and options.
    case comparison(FetchComparison)
    /// All of the predicates (an empty list is true).
    case and([FetchPredicate])
    /// Any of the predicates (an empty list is false).
    case or([FetchPredicate])
    /// The negation (three-valued: NOT UNKNOWN is UNKNOWN).
    case not(FetchPredicate)
}

/// One comparison of two expressions, NSComparisonPredicate's shape.
///
/// ```swift
/// FetchComparison(.keyPath("name"), .beginsWith, .constant("A"), options: .caseInsensitive)
/// ```
public struct FetchComparison: Hashable, Sendable {
    /// The comparison operators of the format language.
    public enum Operator: String, Hashable, Sendable, CaseIterable {
        /// `==`, `=`: equal (IS NULL when one side is the literal NULL).
        case equalTo = "=="
        /// `!=`, `<>`: not equal (IS NOT NULL when one side is the literal NULL).
        case notEqualTo = "!="
        /// `<`.
        case lessThan = "<"
        /// `<=`, `=<`.
        case lessThanOrEqualTo = "<="
        /// `>`.
        case greaterThan = ">"
        /// `>=`, `=>`.
        case greaterThanOrEqualTo = ">="
        /// `BETWEEN {low, high}`, inclusive at both ends.
        case between = "BETWEEN"
        /// `IN {…}` or `IN toManyKeyPath`: membership.
        case `in` = "IN"
        /// `BEGINSWITH`: string prefix.
        case beginsWith = "BEGINSWITH"
        /// `ENDSWITH`: string suffix.
        case endsWith = "ENDSWITH"
        /// `CONTAINS`: substring, or membership when the left side is a collection.
        case contains = "CONTAINS"
        /// `LIKE`: whole-string match with `*` and `?` wildcards.
        case like = "LIKE"
        /// `MATCHES`: whole-string ICU regular expression.
        case matches = "MATCHES"
    }

    /// How the left side is quantified when it is a collection.
    public enum Modifier: String, Hashable, Sendable, CaseIterable {
        /// No quantifier: the left side is a single value.
        case direct = ""
        /// `ANY` (also written `SOME`): at least one element matches.
        case any = "ANY"
        /// `ALL`: every element matches (true for an empty collection).
        case all = "ALL"
        /// `NONE`: no element matches (true for an empty collection).
        case none = "NONE"
    }

    /// String comparison options: `[c]`, `[d]`, `[l]`, `[n]` and their combinations.
    public struct Options: OptionSet, Hashable, Sendable {
        /// The bits.
        public let rawValue: UInt8
        /// Creates options from bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// `[c]`: compare after Unicode case folding.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: compare after removing diacritics.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[cd]`.
        public static let caseDiacriticInsensitive: Options = [.caseInsensitive, .diacriticInsensitive]
        /// `[l]`: compare as the current locale orders strings.
        public static let localeSensitive = Options(rawValue: 4)
        /// `[n]`: the strings are already normalized (a promise that lets comparison skip
        /// folding); see docs/PREDICATES.md for what Strata does with it.
        public static let normalized = Options(rawValue: 8)

        /// The bracketed suffix as written in a format string: "", "[c]", "[cd]", "[cdl]", …
        /// (letters in the order c, d, l, n).
        public var formatSuffix: String {
            let letters = [(Options.caseInsensitive, "c"), (.diacriticInsensitive, "d"), (.localeSensitive, "l"), (.normalized, "n")]
                .filter { contains($0.0) }.map(\.1).joined()
            return letters.isEmpty ? "" : "[" + letters + "]"
        }
    }

    /// The left expression.
    public var lhs: FetchExpression
    /// The operator.
    public var op: Operator
    /// The right expression.
    public var rhs: FetchExpression
    /// The quantifier applied to the left side.
    public var modifier: Modifier
    /// String comparison options.
    public var options: Options

    /// Creates a comparison.
    public init(
        _ lhs: FetchExpression, _ op: Operator, _ rhs: FetchExpression,
        modifier: Modifier = .direct, options: Options = []
    ) {
        self.lhs = lhs
        self.op = op
        self.rhs = rhs
        self.modifier = modifier
        self.options = options
    }
}
