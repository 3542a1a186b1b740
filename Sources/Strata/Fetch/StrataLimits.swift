import Foundation

/// Caps on the work hostile or runaway input can demand: predicate size and nesting, key
/// path length and `MATCHES` work (docs/LIMITS.md).
///
/// Each limit is checked before the work it guards starts — a predicate before its SQL is
/// built, a regular expression before it is compiled — and failing one throws a
/// ``StrataStorage/StrataError`` whose message names the limit, the value found and the remedy.
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
    ///
    /// A value above ``predicateDepthCeiling`` counts as the ceiling
    /// (``effectivePredicateDepth``): deeper recursion could overflow a thread's stack.
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

    /// The largest field one row of an import file (`strata import`) may have, in bytes:
    /// a CSV cell, or a string of a JSON item (default 64 MiB — a quarter of the largest
    /// segment a document decodes, so a row holding one still saves). A file with no line
    /// break, or a quote never closed, fails here instead of filling memory.
    public var maxImportFieldBytes = 64 << 20
    /// The largest row of an import file, in bytes: a CSV record (several lines when a
    /// quoted field holds line breaks) or one item of a JSON array (default 128 MiB). An
    /// import holds one row at a time, so this bounds its memory, whatever the file's size.
    public var maxImportRecordBytes = 128 << 20
    /// How many values one row of an import file may have: the fields of a CSV record (the
    /// header's included) or the strings, numbers, literals, arrays and objects of a JSON
    /// item (default 1,000,000 — a to-many of a million URIs). Bounds the memory a row of
    /// tiny values takes beyond its bytes (`,,,,` is a field per byte).
    public var maxImportRecordValues = 1_000_000

    /// The most ``maxPredicateDepth`` can be: a larger value counts as this. The parser and
    /// the evaluators recurse several frames per level: a debug build overflowed an 8 MiB
    /// stack (every thread's default on Linux) between 1,800 and 2,000 levels, so 1,000
    /// leaves half of it spare (docs/LIMITS.md, "8. Limits the stack sets").
    public static let predicateDepthCeiling = 1_000

    /// ``maxPredicateDepth``, at most ``predicateDepthCeiling``: the depth the parser and
    /// ``FetchPredicate/checkLimits(_:)`` hold a predicate to.
    public var effectivePredicateDepth: Int { min(maxPredicateDepth, Self.predicateDepthCeiling) }

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
                         context: StrataError.Context = .init()) -> StrataError {
        StrataError(code, message, context: context.with { $0.limit = limit; $0.amount = value; $0.maximum = maximum })
    }
}
