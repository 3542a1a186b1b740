import Foundation

extension FetchPredicate {
    /// Parses a predicate in NSPredicate format, substituting `%@ %K %d %f` arguments in
    /// order.
    ///
    /// ```swift
    /// let p = try FetchPredicate(format: "ANY employees.salary > %d", 10_000)
    /// let q = try FetchPredicate(format: "%K BEGINSWITH[cd] %@", .key("lastName"), "qu")
    /// ```
    /// - Parameters:
    ///   - format: the predicate text (grammar in docs/PREDICATES.md).
    ///   - arguments: one argument per placeholder; `%@` inside quotes is literal text.
    /// - Throws: `StrataError(.predicateSyntax)` naming what was expected and the 1-based
    ///   column, with `context.column` and `context.predicate`; too few,
    ///   too many or wrongly typed arguments are errors too.
    /// - Complexity: O(n) in the length of `format`.
    public init(format: String, _ arguments: PredicateArgument...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses a predicate in NSPredicate format with an array of arguments.
    ///
    /// ```swift
    /// let p = try FetchPredicate(format: "age BETWEEN %@", argumentArray: [[18, 65]])
    /// ```
    /// - Throws: `StrataError(.predicateSyntax)` as ``init(format:_:)``.
    public init(format: String, argumentArray: [PredicateArgument]) throws {
        try self.init(format: format, argumentArray: argumentArray, limits: .current)
    }

    /// Parses a predicate, holding it to `limits` instead of ``StrataLimits/current``.
    ///
    /// ```swift
    /// var limits = StrataLimits()
    /// limits.maxPredicateDepth = 200
    /// let p = try FetchPredicate(format: deeplyNestedText, argumentArray: [], limits: limits)
    /// ```
    /// - Throws: `StrataError(.predicateSyntax)` as ``init(format:_:)``; nesting deeper than
    ///   `limits.maxPredicateDepth` and key paths longer than `limits.maxKeyPathComponents`
    ///   name their column; more than `limits.maxPredicateTerms` terms is refused after
    ///   parsing (docs/LIMITS.md).
    public init(format: String, argumentArray: [PredicateArgument], limits: StrataLimits) throws {
        var lexer = PredicateLexer(format)
        var parser = PredicateParser(tokens: try lexer.tokenize(), format: format, arguments: argumentArray, limits: limits)
        self = try parser.parse()
        try PredicateMeasure(self).check(against: limits, code: .predicateSyntax)
    }
}

extension FetchExpression {
    /// Parses an expression in NSExpression format, substituting `%@ %K %d %f` arguments in
    /// order: Core Data's `NSExpression(format:)`.
    ///
    /// ```swift
    /// let raise = try FetchExpression(format: "salary * %@", 1.1)
    /// let total = try FetchExpression(format: "sum:(employees.salary)")
    /// ```
    /// - Parameters:
    ///   - format: the expression text (grammar in docs/PREDICATES.md, "Expressions").
    ///   - arguments: one argument per placeholder.
    /// - Throws: `StrataError(.predicateSyntax)` naming what was expected and the 1-based
    ///   column, as ``FetchPredicate/init(format:_:)``; the limits of docs/LIMITS.md apply.
    /// - Complexity: O(n) in the length of `format`.
    public init(format: String, _ arguments: PredicateArgument...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses an expression in NSExpression format with an array of arguments.
    ///
    /// ```swift
    /// let e = try FetchExpression(format: "%K + %d", argumentArray: [.key("bonus"), 100])
    /// ```
    /// - Throws: `StrataError(.predicateSyntax)` as ``init(format:_:)``.
    public init(format: String, argumentArray: [PredicateArgument]) throws {
        let limits = StrataLimits.current
        var lexer = PredicateLexer(format)
        var parser = PredicateParser(tokens: try lexer.tokenize(), format: format, arguments: argumentArray, limits: limits)
        self = try parser.parseWholeExpression()
        try PredicateMeasure(self).check(against: limits, code: .predicateSyntax)
    }
}

/// A recursive-descent parser over ``PredicateLexer``'s tokens.
///
/// ```
/// predicate  := or EOF
/// or         := and (("OR" | "||") and)*
/// and        := not (("AND" | "&&") not)*
/// not        := ("NOT" | "!") not | "(" or ")" | TRUEPREDICATE | FALSEPREDICATE | comparison
/// comparison := [ANY | ALL | NONE | SOME] expression operator ["[" c d l n "]"] expression
/// ```
/// Expressions (arithmetic, functions, TERNARY, CAST, subscripts) are in
/// PredicateParser+Expressions.swift. A `(` where a predicate may start opens a group of
/// predicates unless the token after its matching `)` continues an expression
/// (`(a + 1) * 2 > 3`): one scan ahead decides, so nothing is parsed twice.
struct PredicateParser {
    let tokens: [PredicateToken]
    let format: String
    let arguments: [PredicateArgument]
    var position = 0
    var nextArgument = 0
    private var depth = 0
    /// Bounds the recursion (``StrataLimits/effectivePredicateDepth``), so no input, however
    /// deeply nested, can overflow the stack.
    let limits: StrataLimits

    init(tokens: [PredicateToken], format: String, arguments: [PredicateArgument], limits: StrataLimits = .current) {
        self.tokens = tokens
        self.format = format
        self.arguments = arguments
        self.limits = limits
    }

    static func syntaxError(_ message: String, column: Int, format: String) -> StrataError {
        StrataError(.predicateSyntax, "predicate syntax error at column \(column): \(message)",
                    context: .init { $0.predicate = format; $0.column = column })
    }

    var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    func error(_ message: String, at token: PredicateToken? = nil) -> StrataError {
        let token = token ?? current
        return Self.syntaxError(message, column: token.column, format: format)
    }

    func expected(_ what: String) -> StrataError {
        error("expected \(what), found \(current.display)")
    }

    mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    /// The current token's keyword (uppercased) when it is an unescaped word.
    var keyword: String? {
        if case .word(let word, escaped: false) = current.kind { return word.uppercased() }
        return nil
    }

    func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    mutating func expectSymbol(_ symbol: String, _ what: String) throws {
        guard isSymbol(symbol) else { throw expected(what) }
        advance()
    }

    mutating func parse() throws -> FetchPredicate {
        let predicate = try parseOr()
        guard current.kind == .end else { throw expected("AND, OR or the end of the predicate") }
        if nextArgument < arguments.count {
            throw error("\(arguments.count) arguments were given but only \(nextArgument) placeholders use them")
        }
        return predicate
    }

    /// An expression that is the whole text (``FetchExpression/init(format:_:)``).
    mutating func parseWholeExpression() throws -> FetchExpression {
        let expression = try parseExpression()
        guard current.kind == .end else { throw expected("an operator or the end of the expression") }
        if nextArgument < arguments.count {
            throw error("\(arguments.count) arguments were given but only \(nextArgument) placeholders use them")
        }
        return expression
    }

    mutating func nested<T>(_ body: (inout PredicateParser) throws -> T) throws -> T {
        depth += 1
        defer { depth -= 1 }
        try checkDepth(extra: 0)
        return try body(&self)
    }

    /// Throws, at the current token, when the nesting plus `extra` levels built in a loop
    /// (`a + b + c …` nests to the left) passes ``StrataLimits/maxPredicateDepth``: a tree
    /// that deep would be refused once built, and is never built.
    func checkDepth(extra: Int) throws {
        // At most StrataLimits.predicateDepthCeiling, whatever was configured: deeper
        // recursion could overflow the stack (docs/LIMITS.md, "Limits the stack sets").
        let maximum = limits.effectivePredicateDepth
        guard depth + extra > maximum else { return }
        var error = error("predicate nested more than \(maximum) levels deep (limit \(maximum)) — simplify the predicate")
        error.context.limit = "maxPredicateDepth"
        error.context.maximum = maximum
        throw error
    }

    mutating func parseOr() throws -> FetchPredicate {
        var terms = [try parseAnd()]
        while keyword == "OR" || isSymbol("||") {
            advance()
            terms.append(try parseAnd())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    mutating func parseAnd() throws -> FetchPredicate {
        var terms = [try parseNot()]
        while keyword == "AND" || isSymbol("&&") {
            advance()
            terms.append(try parseNot())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    mutating func parseNot() throws -> FetchPredicate {
        try nested { parser in
            if parser.keyword == "NOT" || parser.isSymbol("!") {
                parser.advance()
                return .not(try parser.parseNot())
            }
            if parser.isSymbol("("), !parser.parenthesisOpensExpression() {
                parser.advance()
                let inner = try parser.parseOr()
                try parser.expectSymbol(")", "')' to close '('")
                return inner
            }
            switch parser.keyword {
            case "TRUEPREDICATE": parser.advance(); return .constant(true)
            case "FALSEPREDICATE": parser.advance(); return .constant(false)
            default: return .comparison(try parser.parseComparison())
            }
        }
    }

    mutating func parseComparison() throws -> FetchComparison {
        var modifier = FetchComparison.Modifier.direct
        switch keyword {
        case "ANY", "SOME": modifier = .any; advance()
        case "ALL": modifier = .all; advance()
        case "NONE": modifier = .none; advance()
        default: break
        }
        let lhs = try parseExpression()
        let operatorToken = current
        guard let op = comparisonOperator() else {
            throw expected("a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES)")
        }
        advance()
        let options = try parseOptions()
        let rhs = try parseExpression()
        if op == .between, case .collection(let bounds) = rhs, bounds.count != 2 {
            throw error("BETWEEN needs exactly two bounds {low, high}, found \(bounds.count)", at: operatorToken)
        }
        return FetchComparison(lhs, op, rhs, modifier: modifier, options: options)
    }

    func comparisonOperator() -> FetchComparison.Operator? {
        switch current.kind {
        case .symbol(let symbol):
            return FetchComparison.Operator(rawValue: symbol)
        case .word(let word, escaped: false):
            let upper = word.uppercased()
            return [.between, .in, .beginsWith, .endsWith, .contains, .like, .matches]
                .first { $0.rawValue == upper }
        default:
            return nil
        }
    }

    mutating func parseOptions() throws -> FetchComparison.Options {
        guard isSymbol("[") else { return [] }
        advance()
        guard case .word(let letters, escaped: false) = current.kind else {
            throw expected("comparison options (letters c, d, l, n)")
        }
        var options: FetchComparison.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "l": options.insert(.localeSensitive)
            case "n": options.insert(.normalized)
            default: throw error("unknown comparison option '\(letter)' (expected c, d, l or n)")
            }
        }
        advance()
        try expectSymbol("]", "']' after comparison options")
        return options
    }

    /// Whether the `(` at the current token, matched to its `)`, is followed by something
    /// that continues an expression (an operator, `.`, `[`), so it groups an expression, not
    /// predicates. Unbalanced parentheses answer no, and the predicate parser reports them.
    func parenthesisOpensExpression() -> Bool {
        var level = 0
        var index = position
        while index < tokens.count {
            switch tokens[index].kind {
            case .symbol("("): level += 1
            case .symbol(")"):
                level -= 1
                if level == 0 {
                    let next = tokens[min(index + 1, tokens.count - 1)]
                    switch next.kind {
                    case .symbol(let symbol):
                        return ["+", "-", "*", "/", "**", ".", "[", "==", "!=", "<", "<=", ">", ">="].contains(symbol)
                    case .word(let word, escaped: false):
                        return ["BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"].contains(word.uppercased())
                    default: return false
                    }
                }
            case .end: return false
            default: break
            }
            index += 1
        }
        return false
    }
}
