import Foundation

/// Caps on the work hostile or runaway input can demand: predicate size and nesting, key
/// path length and `MATCHES` work (docs/LIMITS.md).
///
/// Each limit is checked before the work it guards starts — a predicate before its SQL is
/// built, a regular expression before it is compiled — and failing one throws a
/// ``StrataError`` whose message names the limit, the value found and the remedy.
///
/// The defaults are far above what real predicates need. ``current`` is the process-wide
/// value the predicate parser and the evaluator use; `DocumentStore.Configuration.limits`
/// is what one document's fetches are checked against (it starts as ``current``).
///
/// ```swift
/// var limits = StrataLimits()
/// limits.maxPredicateTerms = 50_000
/// StrataLimits.current = limits            // every parser and evaluator from now on
/// var configuration = DocumentStore.Configuration()
/// configuration.limits = limits            // one document's fetches
/// ```
public struct StrataLimits: Sendable, Hashable {
    /// How deeply a predicate may nest: NOT, parentheses, AND/OR inside each other,
    /// SUBQUERY and nested expressions each add a level (default 64). The parser's
    /// recursion is bounded by it, so no input can overflow the stack.
    public var maxPredicateDepth = 64
    /// How many terms a predicate may have: every comparison, every AND/OR/NOT and every
    /// element of a literal collection (`{…}` or a `%@` list) counts one (default 20,000 —
    /// an OR of 5,000 comparisons or an `IN` of 10,000 values is well inside).
    public var maxPredicateTerms = 20_000
    /// How many components a key path may have, collection operators included
    /// (`department.manager.name` has 3; default 16).
    public var maxKeyPathComponents = 16
    /// The longest `MATCHES` regular expression, in Unicode scalars (default 1,000).
    public var maxRegexPatternLength = 1_000
    /// The longest string `MATCHES` will test, in Unicode scalars (default 1,000,000). ICU's
    /// backtracking can take time that grows steeply with the subject's length; this
    /// bounds it without a timer.
    public var maxRegexSubjectLength = 1_000_000
    /// How much backtracking one `MATCHES` test may do, in ICU's work units of about
    /// 10,000 steps of its matcher each (default 1,000: about a second at most on a busy
    /// two-core machine). A pattern such as `(a+)+b` needs exponential work on a few dozen
    /// characters; the match stops at this budget and throws instead of running for years.
    /// The units are counted, not timed, so a test gives the same answer on any machine.
    public var maxRegexWork = 1_000

    /// The defaults.
    public init() {}

    private static let storage = Locked(StrataLimits())

    /// The limits the predicate parser (`FetchPredicate(format:)`), the in-memory
    /// evaluator's `MATCHES` and new `DocumentStore.Configuration`s use (default: the
    /// defaults). Setting it affects the whole process; it is safe from any thread.
    public static var current: StrataLimits {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// The error for a value above a limit: `"<what> (limit N) — <remedy>"`.
    static func exceeded(_ code: StrataError.Code, _ message: String, limit: String, value: Int, maximum: Int,
                         context: [String: String] = [:]) -> StrataError {
        var context = context
        context["limit"] = limit
        context["value"] = String(value)
        context["maximum"] = String(maximum)
        return StrataError(code, message, context: context)
    }
}
