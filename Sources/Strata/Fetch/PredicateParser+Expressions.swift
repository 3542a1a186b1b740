import Foundation

/// The expression half of ``PredicateParser``:
///
/// ```
/// expression     := additive
/// additive       := multiplicative (("+" | "-") multiplicative)*
/// multiplicative := power (("*" | "/") power)*
/// power          := unary ["**" power]
/// unary          := "-" unary | postfix
/// postfix        := primary ("." key | "[" (FIRST | LAST | SIZE | expression) "]")*
/// primary        := literal | $variable | %@ | %K | SELF | "(" expression ")" | "{" list "}"
///                 | name "(" list ")" | name: … "(" list ")" | TERNARY(predicate, e, e)
///                 | CAST(e, "Type") | SUBQUERY(e, $v, predicate) | key
/// ```
extension PredicateParser {
    /// Words that cannot start a key path unless escaped with `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE",
        "MATCHES", "ANY", "ALL", "NONE", "SOME", "TRUE", "FALSE", "YES", "NO", "NULL", "NIL",
        "SELF", "SUBQUERY", "TRUEPREDICATE", "FALSEPREDICATE", "CAST",
    ]

    /// One expression: `additive` in the grammar above. Every level of nesting (parentheses,
    /// unary minus, the right side of `**`, arguments) passes through ``nested(_:)``, so no
    /// input recurses deeper than ``StrataLimits/maxPredicateDepth``; chains of `+` or `*`
    /// are read in a loop that counts the levels they add.
    mutating func parseExpression() throws -> FetchExpression {
        try nested { parser in try parser.parseAdditive() }
    }

    private mutating func parseAdditive() throws -> FetchExpression {
        var lhs = try parseMultiplicative()
        var chain = 0
        while case .symbol(let symbol) = current.kind, symbol == "+" || symbol == "-" {
            chain += 1
            try checkDepth(extra: chain)
            advance()
            lhs = .function(symbol == "+" ? .add : .subtract, [lhs, try parseMultiplicative()])
        }
        return lhs
    }

    private mutating func parseMultiplicative() throws -> FetchExpression {
        var lhs = try parsePower()
        var chain = 0
        while case .symbol(let symbol) = current.kind, symbol == "*" || symbol == "/" {
            chain += 1
            try checkDepth(extra: chain)
            advance()
            lhs = .function(symbol == "*" ? .multiply : .divide, [lhs, try parsePower()])
        }
        return lhs
    }

    /// `a ** b ** c` is `a ** (b ** c)`, as Foundation's.
    private mutating func parsePower() throws -> FetchExpression {
        let base = try parseUnary()
        guard isSymbol("**") else { return base }
        advance()
        let exponent = try nested { parser in try parser.parsePower() }
        return .function(.raise, [base, exponent])
    }

    /// Unary minus binds tighter than `**` (Foundation: `-2 ** 2` is 4). `-` before a number
    /// is a negative constant; before anything else it is `0 - x`.
    private mutating func parseUnary() throws -> FetchExpression {
        guard isSymbol("-") else { return try parsePostfix() }
        advance()
        switch current.kind {
        case .integer(let value) where value != .min:
            advance()
            return .constant(.integer(-value))
        case .int64MinMagnitude:
            advance()
            return .constant(.integer(.min))
        case .double(let value):
            advance()
            return .constant(.double(-value))
        default:
            let operand = try nested { parser in try parser.parseUnary() }
            return .function(.subtract, [.constant(.integer(0)), operand])
        }
    }

    /// A primary followed by `.key` components and `[index]` subscripts, in any order
    /// (`items[0].name`, `(SELF.g)[0]`, `SELF[FIRST]`).
    private mutating func parsePostfix() throws -> FetchExpression {
        var start = try parsePrimary()
        var chain = 0
        while true {
            let expression = try parsePath(start)
            guard start.allowsPath, isSymbol("[") else { return expression }
            chain += 1
            try checkDepth(extra: chain)
            start = PathStart(base: .index(expression, try parseIndex()), allowsPath: true)
        }
    }

    /// The start of an expression: a base, the key path components read so far, and
    /// whether more `.component`s may follow.
    struct PathStart {
        var base: FetchExpression
        var components: [(name: String, token: PredicateToken)] = []
        var allowsPath: Bool
    }

    private mutating func parsePrimary() throws -> PathStart {
        let token = current
        switch token.kind {
        case .symbol("("):
            advance()
            let inner = try parseExpression()
            try expectSymbol(")", "')' to close '('")
            return PathStart(base: inner, allowsPath: true)
        case .string(let text): advance(); return PathStart(base: .constant(.string(text)), allowsPath: false)
        case .integer(let value): advance(); return PathStart(base: .constant(.integer(value)), allowsPath: false)
        case .int64MinMagnitude: advance(); return PathStart(base: .constant(.double(9223372036854775808.0)), allowsPath: false)
        case .double(let value): advance(); return PathStart(base: .constant(.double(value)), allowsPath: false)
        case .variable(let name): advance(); return PathStart(base: .variable(name), allowsPath: true)
        case .placeholder(let letter): advance(); return try argument(letter, token: token)
        case .symbol("{"):
            advance()
            var elements: [FetchExpression] = []
            if !isSymbol("}") {
                elements.append(try parseExpression())
                while isSymbol(",") {
                    advance()
                    elements.append(try parseExpression())
                }
            }
            try expectSymbol("}", "',' or '}' in collection")
            return PathStart(base: .collection(elements), allowsPath: true)
        case .word(let word, let escaped):
            let keyStart = PathStart(base: .evaluatedObject, components: [(word, token)], allowsPath: true)
            if escaped || word.hasPrefix("@") {
                advance()
                return keyStart
            }
            let upper = word.uppercased()
            switch upper {
            case "TRUE", "YES": advance(); return PathStart(base: .constant(.boolean(true)), allowsPath: false)
            case "FALSE", "NO": advance(); return PathStart(base: .constant(.boolean(false)), allowsPath: false)
            case "NULL", "NIL": advance(); return PathStart(base: .constant(.null), allowsPath: false)
            case "SELF": advance(); return PathStart(base: .evaluatedObject, allowsPath: true)
            case "SUBQUERY": advance(); return PathStart(base: try parseSubquery(), allowsPath: true)
            case "CAST":
                advance()
                let cast = try parseCast()
                if case .constant = cast { return PathStart(base: cast, allowsPath: false) }
                return PathStart(base: cast, allowsPath: true)
            case "TERNARY" where next.kind == .symbol("("):
                advance()
                return PathStart(base: try parseTernary(), allowsPath: true)
            case _ where !Self.reservedWords.contains(upper) && (next.kind == .symbol("(") || next.kind == .symbol(":")):
                return PathStart(base: try parseFunctionCall(), allowsPath: true)
            default:
                if Self.reservedWords.contains(upper) {
                    throw expected("an expression (write #\(word) for a key named '\(word)')")
                }
                advance()
                return keyStart
            }
        default:
            throw expected("an expression")
        }
    }

    /// Reads `.component` suffixes and builds the key path or collection operator.
    mutating func parsePath(_ start: PathStart) throws -> FetchExpression {
        var components = start.components
        while start.allowsPath && isSymbol(".") {
            advance()
            guard case .word(let word, _) = current.kind else { throw expected("a key name after '.'") }
            components.append((word, current))
            advance()
        }
        guard !components.isEmpty else { return start.base }
        if components.count > limits.maxKeyPathComponents {
            var error = error("key path has \(components.count) components (limit \(limits.maxKeyPathComponents))",
                              at: components[limits.maxKeyPathComponents].token)
            error.context.limit = "maxKeyPathComponents"
            error.context.maximum = limits.maxKeyPathComponents
            throw error
        }
        do {
            return try PredicateKeyPaths.expression(components: components.map(\.name), on: start.base)
        } catch {
            let token = components[min(error.index, components.count - 1)].token
            throw self.error(error.message, at: token)
        }
    }

    /// The token after the current one.
    var next: PredicateToken { tokens[min(position + 1, tokens.count - 1)] }
}
