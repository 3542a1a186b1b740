import Foundation

/// The string rules predicates use, in one place so that the SQL functions registered by
/// the store reuse them and memory and store agree.
///
/// - Order and equality are by UTF-8 bytes (SQLite's BINARY collation), not Swift's
///   `String` comparison: precomposed "é" and "e" + U+0301 differ unless `[d]` is given.
/// - `[c]` folds case and `[d]` removes diacritics, with Foundation's Unicode folding.
public enum PredicateText {
    /// The text after applying comparison options: case folding for `[c]`, diacritic
    /// removal for `[d]`; unchanged without options.
    ///
    /// ```swift
    /// PredicateText.fold("Café", options: .caseDiacriticInsensitive) // "cafe"
    /// ```
    public static func fold(_ text: String, options: FetchComparison.Options) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        if folding.isEmpty { return text }
        if let folded = asciiFolded(text, lowercasing: options.contains(.caseInsensitive)) { return folded }
        return text.folding(options: folding, locale: nil)
    }

    /// Foundation's folding of an all-ASCII string, without Foundation: ASCII has no
    /// diacritics, and case folding lowercases A–Z (Foundation's folding goes through
    /// NSString and costs microseconds a call, which a fetch pays once per row). Nil when
    /// the text is not ASCII.
    static func asciiFolded(_ text: String, lowercasing: Bool) -> String? {
        var hasUppercase = false
        for byte in text.utf8 {
            if byte >= 0x80 { return nil }
            if byte >= 0x41 && byte <= 0x5A { hasUppercase = true }
        }
        guard lowercasing, hasUppercase else { return text }
        return String(unsafeUninitializedCapacity: text.utf8.count) { buffer in
            var count = 0
            for byte in text.utf8 {
                buffer[count] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                count += 1
            }
            return count
        }
    }

    /// -1, 0 or 1 comparing the UTF-8 bytes of the folded strings.
    public static func compare(_ lhs: String, _ rhs: String, options: FetchComparison.Options = []) -> Int {
        let left = fold(lhs, options: options).utf8
        let right = fold(rhs, options: options).utf8
        var l = left.makeIterator()
        var r = right.makeIterator()
        while true {
            switch (l.next(), r.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let a?, let b?): if a != b { return a < b ? -1 : 1 }
            }
        }
    }

    /// Whether `text` starts with `prefix` (UTF-8 bytes, after folding).
    public static func beginsWith(_ text: String, _ prefix: String, options: FetchComparison.Options = []) -> Bool {
        Array(fold(text, options: options).utf8).starts(with: fold(prefix, options: options).utf8)
    }

    /// Whether `text` ends with `suffix` (UTF-8 bytes, after folding).
    public static func endsWith(_ text: String, _ suffix: String, options: FetchComparison.Options = []) -> Bool {
        let bytes = Array(fold(text, options: options).utf8)
        let tail = Array(fold(suffix, options: options).utf8)
        return tail.count <= bytes.count && bytes[(bytes.count - tail.count)...].elementsEqual(tail)
    }

    /// Whether `text` contains `part` (UTF-8 bytes, after folding); every string contains "".
    public static func contains(_ text: String, _ part: String, options: FetchComparison.Options = []) -> Bool {
        let bytes = Array(fold(text, options: options).utf8)
        let needle = Array(fold(part, options: options).utf8)
        if needle.isEmpty { return true }
        guard needle.count <= bytes.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// Whether the whole of `text` matches a LIKE pattern: `*` is any run of characters
    /// (Unicode scalars), `?` exactly one, `\*` `\?` `\\` literal.
    ///
    /// ```swift
    /// PredicateText.like("Quinn", "Q*n?") // false: ? needs one more character
    /// ```
    public static func like(_ text: String, _ pattern: String, options: FetchComparison.Options = []) -> Bool {
        let subject = Array(fold(text, options: options).unicodeScalars)
        var tokens: [LikeToken] = []
        var escaping = false
        for scalar in fold(pattern, options: options).unicodeScalars {
            if escaping { tokens.append(.literal(scalar)); escaping = false; continue }
            switch scalar {
            case "\\": escaping = true
            case "*": if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "?": tokens.append(.anyOne)
            default: tokens.append(.literal(scalar))
            }
        }
        if escaping { tokens.append(.literal("\\")) }
        // Greedy matching with one backtrack point per star: O(n·m) at worst.
        var s = 0, p = 0
        var starP = -1, starS = 0
        while s < subject.count {
            if p < tokens.count, tokens[p] == .anyOne || tokens[p] == .literal(subject[s]) {
                s += 1; p += 1
            } else if p < tokens.count, tokens[p] == .anyRun {
                starP = p; starS = s; p += 1
            } else if starP >= 0 {
                p = starP + 1; starS += 1; s = starS
            } else {
                return false
            }
        }
        while p < tokens.count, tokens[p] == .anyRun { p += 1 }
        return p == tokens.count
    }

    private enum LikeToken: Equatable {
        case literal(Unicode.Scalar)
        case anyOne
        case anyRun
    }

    /// Whether the whole of `text` matches the ICU regular expression `pattern`
    /// (`[c]` matches case-insensitively, `[d]` removes diacritics from both first).
    /// Compiled expressions are cached.
    /// - Throws: `StrataError(.predicateEvaluation)` for an invalid regular expression, a
    ///   pattern longer than ``StrataLimits/maxRegexPatternLength``, a string longer than
    ///   ``StrataLimits/maxRegexSubjectLength``, a match needing more backtracking than
    ///   ``StrataLimits/maxRegexWork`` (all of ``StrataLimits/current``) or more than ICU's
    ///   backtracking stack holds.
    public static func matches(_ text: String, _ pattern: String, options: FetchComparison.Options = []) throws -> Bool {
        try matches(text, pattern, options: options, limits: StrataLimits.current)
    }

    /// ``matches(_:_:options:)`` held to `limits`.
    static func matches(_ text: String, _ pattern: String, options: FetchComparison.Options,
                        limits: StrataLimits) throws -> Bool {
        try checkRegexLimits(text, pattern, limits)
        let diacritics = options.intersection(.diacriticInsensitive)
        let subject = fold(text, options: diacritics)
        let regex = try compiled(fold(pattern, options: diacritics), caseInsensitive: options.contains(.caseInsensitive))
        return try boundedMatch(regex, subject, pattern: pattern, maxWork: limits.maxRegexWork)
    }

    /// MATCHES work is bounded by the lengths of pattern and subject, checked before ICU
    /// sees either: backtracking time grows with both.
    static func checkRegexLimits(_ text: String, _ pattern: String, _ limits: StrataLimits) throws {
        let patternLength = pattern.unicodeScalars.count
        if patternLength > limits.maxRegexPatternLength {
            throw StrataLimits.exceeded(
                .predicateEvaluation,
                "MATCHES pattern of \(patternLength) characters is too long (limit \(limits.maxRegexPatternLength))",
                limit: "maxRegexPatternLength", value: patternLength, maximum: limits.maxRegexPatternLength)
        }
        // Counting stops just past the limit, so a huge subject costs no more than the limit.
        var subjectLength = 0
        for _ in text.unicodeScalars {
            subjectLength += 1
            if subjectLength > limits.maxRegexSubjectLength { break }
        }
        if subjectLength > limits.maxRegexSubjectLength {
            throw StrataLimits.exceeded(
                .predicateEvaluation,
                "MATCHES on a string of more than \(limits.maxRegexSubjectLength) characters (limit \(limits.maxRegexSubjectLength))",
                limit: "maxRegexSubjectLength", value: text.unicodeScalars.count, maximum: limits.maxRegexSubjectLength)
        }
    }

    /// Runs ICU with a work budget. Asked to report progress, ICU calls back every ~10,000
    /// steps of its matcher — a count, not a clock — and stops when told to, so
    /// catastrophic backtracking (`(a+)+b` on 40 `a`s would take years) ends after
    /// `maxWork` callbacks with an error. ICU's own failures (its backtracking stack is
    /// full) arrive as the completion report's internal-error flag; `firstMatch` would
    /// report them as "no match", a silently wrong answer.
    private static func boundedMatch(_ regex: NSRegularExpression, _ subject: String, pattern: String,
                                     maxWork: Int) throws -> Bool {
        var matched = false, work = 0, exhausted = false, failed = false
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        regex.enumerateMatches(in: subject, options: [.reportProgress, .reportCompletion], range: range) { result, flags, stop in
            if result != nil {
                matched = true
                stop.pointee = true
            } else if flags.contains(.progress) {
                work += 1
                if work > maxWork {
                    exhausted = true
                    stop.pointee = true
                }
            } else if flags.contains(.completed), flags.contains(.internalError) {
                failed = true
            }
        }
        let length = subject.unicodeScalars.count
        if exhausted {
            throw StrataLimits.exceeded(
                .predicateEvaluation,
                "MATCHES needs more than \(maxWork) units of backtracking on a string of \(length) characters (limit \(maxWork)) — simplify the pattern",
                limit: "maxRegexWork", value: work, maximum: maxWork, context: .init { $0.pattern = pattern })
        }
        if failed {
            throw StrataError(.predicateEvaluation,
                              "MATCHES could not finish on a string of \(length) characters: the pattern backtracks more than ICU's stack holds — simplify the pattern",
                              context: .init { $0.pattern = pattern })
        }
        return matched
    }

    private struct RegexKey: Hashable {
        var pattern: String
        var caseInsensitive: Bool
    }

    private struct RegexBox: @unchecked Sendable {
        // NSRegularExpression is immutable once created and safe to share between threads.
        let regex: NSRegularExpression
    }

    private static let regexCache = Locked<[RegexKey: RegexBox]>([:])
    private static let regexCacheLimit = 256

    private static func compiled(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = RegexKey(pattern: pattern, caseInsensitive: caseInsensitive)
        if let box = regexCache.withLock({ $0[key] }) { return box.regex }
        let regex: NSRegularExpression
        do {
            _ = try NSRegularExpression(pattern: pattern)  // the pattern alone must be valid
            // \A(?: … )\z makes the match cover the whole string, with backtracking, as
            // ICU's matches() does.
            regex = try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z",
                                            options: caseInsensitive ? [.caseInsensitive] : [])
        } catch {
            throw StrataError(.predicateEvaluation, "invalid regular expression \(pattern.debugDescription) in MATCHES",
                              context: .init { $0.pattern = pattern })
        }
        regexCache.withLock { cache in
            if cache.count >= regexCacheLimit { cache.removeAll() }
            cache[key] = RegexBox(regex: regex)
        }
        return regex
    }
}
