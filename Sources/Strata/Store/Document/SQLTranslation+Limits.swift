import Foundation

/// Keeping the SQL inside what SQLite accepts (docs/LIMITS.md, "SQL"): SQLite refuses an
/// expression tree deeper than 1,000 (`Expression tree is too large`), parentheses nested
/// much past 30 (`parser stack overflow`), more than 32,766 bound parameters and more
/// than 64 tables in one join. Strata never lets those errors reach the user: wide AND/OR
/// are rendered as balanced trees, double negation is dropped, and a conjunct whose SQL
/// would still be too deep or too big is evaluated in memory instead (a residual), which
/// gives the same answer.
extension SQLTranslation {
    /// How many operands one level of a balanced AND/OR holds.
    static let balancedFanOut = 16
    /// The deepest parenthesis nesting emitted; SQLite's parser overflows its stack at
    /// about 40 levels of nested `(… OR (… AND …))`, and a subquery adds its own levels.
    static let maximumParenthesisDepth = 24
    /// SQLite's default SQLITE_MAX_VARIABLE_NUMBER (since 3.32), minus room for the
    /// window's LIMIT and OFFSET.
    static let maximumBindings = 32_766 - 2
    /// SQLite joins at most 64 tables in one FROM clause.
    static let maximumTablesPerScope = 64

    /// `terms` joined by `op` ("AND"/"OR") as a balanced tree of parenthesized groups of at
    /// most ``balancedFanOut``, so SQLite's expression depth grows with log(n), not n.
    /// Each term must already be parenthesized or atomic.
    static func balanced(_ terms: [String], _ op: String) -> String {
        var level = terms
        repeat {
            level = stride(from: 0, to: level.count, by: balancedFanOut).map { start in
                let group = level[start..<min(start + balancedFanOut, level.count)]
                return "(" + group.joined(separator: " \(op) ") + ")"
            }
        } while level.count > 1
        return level[0]
    }

    /// Throws ``SQLResidual`` when the translation so far has SQL SQLite would refuse.
    func checkSQLiteLimits(_ sql: String) throws {
        if bindings.count > Self.maximumBindings {
            throw SQLResidual(reason: "\(bindings.count) parameters exceed SQLite's limit")
        }
        if scopes.contains(where: { $0.from.count > Self.maximumTablesPerScope }) {
            throw SQLResidual(reason: "more than \(Self.maximumTablesPerScope) tables in one join")
        }
        if Self.parenthesisDepth(sql) > Self.maximumParenthesisDepth {
            throw SQLResidual(reason: "nested too deeply for SQLite's parser")
        }
    }

    /// The deepest parenthesis nesting of `sql`, ignoring quoted identifiers and strings.
    static func parenthesisDepth(_ sql: String) -> Int {
        var depth = 0, deepest = 0
        var quote: UInt8?
        for byte in sql.utf8 {
            if let open = quote {
                if byte == open { quote = nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
            case UInt8(ascii: "("): depth += 1; deepest = max(deepest, depth)
            case UInt8(ascii: ")"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    private struct EqualityKey: Hashable {
        var lhs: FetchExpression
        var options: FetchComparison.Options
    }

    /// The terms of an OR with the equalities of one key path to constants merged into
    /// one `IN`: `a == 1 OR a == 2 OR b == 3` → `a IN {1, 2} OR b == 3` (nil when nothing
    /// merges). The same in three-valued logic — TRUE when an element equals, else UNKNOWN
    /// when `a` is NULL, else FALSE — so long as no constant is NULL (`== nil` is IS NULL).
    /// SQLite turns a plain `IN` list into index lookups; an OR of thousands of equalities
    /// it only scans.
    static func mergingEqualities(_ terms: [FetchPredicate]) -> [FetchPredicate]? {
        var result: [FetchPredicate] = []
        var members: [[FetchExpression]] = []
        var positions: [EqualityKey: Int] = [:]
        for term in terms {
            if case .comparison(let comparison) = term, comparison.op == .equalTo, comparison.modifier == .direct,
               case .keyPath = comparison.lhs, case .constant(let value) = comparison.rhs, isMergeable(value) {
                let key = EqualityKey(lhs: comparison.lhs, options: comparison.options)
                if let position = positions[key] {
                    members[position].append(comparison.rhs)
                    continue
                }
                positions[key] = result.count
                members.append([comparison.rhs])
            } else {
                members.append([])
            }
            result.append(term)
        }
        guard result.count < terms.count else { return nil }
        return zip(result, members).map { term, values in
            guard values.count > 1, case .comparison(let comparison) = term else { return term }
            return .comparison(FetchComparison(comparison.lhs, .in, .collection(values), options: comparison.options))
        }
    }

    private static func isMergeable(_ value: PropertyValue) -> Bool {
        switch value {
        case .double(let number): return !number.isNaN  // NaN counts as NULL
        case .integer, .string, .boolean, .date, .decimal, .uuid, .uri, .data: return true
        default: return false
        }
    }
}
