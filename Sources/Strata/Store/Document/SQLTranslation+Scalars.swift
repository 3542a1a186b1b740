import Foundation

extension SQLTranslation {
    /// `lhs op rhs` for two single values or objects: `PredicateValueRules.truth` in SQL.
    ///
    /// Plain SQL operators where SQLite compares exactly as the evaluator (numbers without
    /// decimals, strings without options, dates, data, UUIDs, URIs), so an index on the
    /// column serves them; `strata_compare` for decimals, `strata_fold` for `[c]`/`[d]`,
    /// `strata_beginswith`… for the string operators.
    mutating func scalarComparison(
        _ lhs: SQLOperand, _ op: FetchComparison.Operator, _ rhs: SQLOperand,
        options: FetchComparison.Options, nullTest: Bool
    ) throws -> String {
        let name = op.rawValue
        if nullTest, op == .equalTo || op == .notEqualTo {
            switch (lhs.isNullLiteral, rhs.isNullLiteral) {
            case (true, true): return op == .equalTo ? "1" : "0"
            case (true, false), (false, true):
                let other = lhs.isNullLiteral ? rhs : lhs
                guard let value = other.nullableSQL else { throw SQLResidual(reason: "NULL test on a collection") }
                return "(\(value) IS \(op == .equalTo ? "" : "NOT ")NULL)"
            case (false, false): break
            }
        }
        if lhs.isNullLiteral || rhs.isNullLiteral { return "NULL" }
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)):
            switch op {
            case .equalTo: return objectEquality(a, b)
            case .notEqualTo: return "NOT \(objectEquality(a, b))"
            case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
                throw StrataError(.predicateEvaluation, "objects can only be compared with == and !=, not \(name)",
                                  context: .init { $0.function = name })
            default:
                throw StrataError(.predicateEvaluation, "\(name) needs strings on both sides, not a object and a object",
                                  context: .init { $0.function = name; $0.leftType = "object"; $0.rightType = "object" })
            }
        case (.object, .scalar(let b)):
            throw mismatch("object", b.kind.name, op: op)
        case (.scalar(let a), .object):
            throw mismatch(a.kind.name, "object", op: op)
        case (.scalar(let a), .scalar(let b)):
            return try scalars(a, op, b, options: options)
        default:
            throw SQLResidual(reason: "comparison of collections")
        }
    }

    private func mismatch(_ left: String, _ right: String, op: FetchComparison.Operator) -> StrataError {
        let name = op.rawValue
        switch op {
        case .beginsWith, .endsWith, .contains, .like, .matches:
            return StrataError(.predicateEvaluation, "\(name) needs strings on both sides, not \(withArticle(left)) and \(withArticle(right))",
                               context: .init { $0.function = name; $0.leftType = left; $0.rightType = right })
        default:
            return StrataError(.predicateEvaluation, "cannot compare \(withArticle(left)) with \(withArticle(right)) using \(name)",
                               context: .init { $0.function = name; $0.leftType = left; $0.rightType = right })
        }
    }

    /// Two non-NULL single values.
    private mutating func scalars(_ a: SQLScalar, _ op: FetchComparison.Operator, _ b: SQLScalar, options: FetchComparison.Options) throws -> String {
        switch op {
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard a.kind == .string, b.kind == .string else { throw mismatch(a.kind.name, b.kind.name, op: op) }
            let function: String
            switch op {
            case .beginsWith: function = SQLFunctions.beginsWith
            case .endsWith: function = SQLFunctions.endsWith
            case .contains: function = SQLFunctions.contains
            case .like: function = SQLFunctions.like
            default:
                guard case .string(let pattern)? = b.constant else {
                    throw SQLResidual(reason: "MATCHES with a pattern that is not a constant")
                }
                _ = try PredicateText.matches("", pattern, options: options)  // rejects an invalid expression now
                function = SQLFunctions.matches
            }
            let call = "\(function)(\(a.sql), \(b.sql), \(options.rawValue))"
            if op == .beginsWith, a.constant == nil, FetchComparison.Options.caseDiacriticInsensitive.isSuperset(of: options), case .string(let prefix)? = b.constant,
               let range = prefixRange(prefix, options: options, column: a.sql) {
                return "(\(range) AND \(call))"
            }
            return call
        case .between, .in:
            throw StrataError(.predicateEvaluation, "\(op.rawValue) needs a collection on its right side", context: .init { $0.function = op.rawValue })
        default:
            break
        }
        let sqlOperator: String = switch op {
        case .equalTo: "="
        case .notEqualTo: "<>"
        case .lessThan: "<"
        case .lessThanOrEqualTo: "<="
        case .greaterThan: ">"
        default: ">="
        }
        if a.kind.isNumber && b.kind.isNumber {
            if a.kind == .decimal || b.kind == .decimal {
                return "(\(SQLFunctions.compare)(\(a.sql), \(b.sql)) \(sqlOperator) 0)"
            }
            return "(\(a.sql) \(sqlOperator) \(b.sql))"
        }
        switch (a.kind, b.kind) {
        case (.string, .string):
            if options.isEmpty { return "(\(a.sql) \(sqlOperator) \(b.sql))" }
            if !FetchComparison.Options.caseDiacriticInsensitive.isSuperset(of: options) {
                // [l] and [n]: the evaluator's own comparison, as a registered function.
                return "(\(SQLFunctions.compareText)(\(a.sql), \(b.sql), \(options.rawValue)) \(sqlOperator) 0)"
            }
            return "(\(folded(a, options)) \(sqlOperator) \(folded(b, options)))"
        case (.date, .date), (.data, .data), (.uuid, .uuid), (.uri, .uri), (.uri, .string), (.string, .uri):
            return "(\(a.sql) \(sqlOperator) \(b.sql))"
        case (.uuid, .string), (.string, .uuid):
            let text = a.kind == .string ? a : b
            guard case .string(let value)? = text.constant else {
                throw SQLResidual(reason: "a UUID compared with a string that is not a constant")
            }
            guard let uuid = UUID(uuidString: value) else { throw mismatch(a.kind.name, b.kind.name, op: op) }
            let normalized = bindText(uuid.uuidString)
            return a.kind == .string ? "(\(normalized) \(sqlOperator) \(b.sql))" : "(\(a.sql) \(sqlOperator) \(normalized))"
        default:
            throw mismatch(a.kind.name, b.kind.name, op: op)
        }
    }

    /// Byte ranges every string with the prefix lies in, so that an index on the column
    /// serves `BEGINSWITH` (the exact test still follows). Only for a prefix whose first
    /// character is ASCII, and only on that character: a match starts with it, with its
    /// other case under `[c]`, or with a non-ASCII character (which may be canonically
    /// equivalent to it, as the Kelvin sign is to K, or fold to it under `[c]` or `[d]`).
    /// Those are three ranges of UTF-8 order, and the lowest start bounds them all, which
    /// SQLite seeks to.
    ///
    /// `x BEGINSWITH[c] 'q'` → `x >= 'Q' AND ((x >= 'Q' AND x < 'R') OR (x >= 'q' AND x < 'r') OR x >= char(128))`
    private mutating func prefixRange(_ prefix: String, options: FetchComparison.Options, column: String) -> String? {
        guard let first = prefix.utf8.first, first < 0x80 else { return nil }
        let isLetter = (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first)
        // An ASCII letter's cases differ by one bit: upper (0x20 clear) sorts first.
        let ordered: [UInt8] = options.contains(.caseInsensitive) && isLetter ? [first & ~0x20, first | 0x20] : [first]
        func text(_ byte: UInt8) -> String { String(UnicodeScalar(byte)) }
        var ranges = ordered.map { byte in
            "(\(column) >= \(bindText(text(byte))) AND \(column) < \(bindText(text(byte + 1))))"
        }
        ranges.append("\(column) >= \(bindText("\u{80}"))")
        return "\(column) >= \(bindText(text(ordered[0]))) AND (\(ranges.joined(separator: " OR ")))"
    }

    /// A string folded for `[c]`/`[d]`: a constant is folded now and bound, a column
    /// through `strata_fold`.
    private mutating func folded(_ scalar: SQLScalar, _ options: FetchComparison.Options) -> String {
        if case .string(let text)? = scalar.constant {
            return bindText(PredicateText.fold(text, options: options))
        }
        return "\(SQLFunctions.fold)(\(scalar.sql), \(options.rawValue))"
    }

    /// Identity of two objects (`ManagedObjectID` equality): same key, same entity; NULL
    /// when either is NULL.
    private func objectEquality(_ a: SQLObjectRef, _ b: SQLObjectRef) -> String {
        if a.neverMatches || b.neverMatches || a.entity.rootEntity !== b.entity.rootEntity {
            return "(CASE WHEN \(a.pk) IS NULL OR \(b.pk) IS NULL THEN NULL ELSE 0 END)"
        }
        if a.entity.rootEntity.subentities.isEmpty {
            return "(\(a.pk) = \(b.pk))"
        }
        return "(\(a.pk) = \(b.pk) AND \(a.entitySQL) = \(b.entitySQL))"
    }
}
