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
    ///   column, with context `["position": column, "predicate": format]`; too few,
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

/// A recursive-descent parser over ``PredicateLexer``'s tokens.
///
/// ```
/// predicate  := or EOF
/// or         := and (("OR" | "||") and)*
/// and        := not (("AND" | "&&") not)*
/// not        := ("NOT" | "!") not | "(" or ")" | TRUEPREDICATE | FALSEPREDICATE | comparison
/// comparison := [ANY | ALL | NONE | SOME] expression operator ["[" c|d|cd "]"] expression
/// ```
struct PredicateParser {
    private let tokens: [PredicateToken]
    private let format: String
    private let arguments: [PredicateArgument]
    private var position = 0
    private var nextArgument = 0
    private var depth = 0
    /// Bounds the recursion (``StrataLimits/maxPredicateDepth``), so no input, however
    /// deeply nested, can overflow the stack.
    private let limits: StrataLimits

    init(tokens: [PredicateToken], format: String, arguments: [PredicateArgument], limits: StrataLimits = .current) {
        self.tokens = tokens
        self.format = format
        self.arguments = arguments
        self.limits = limits
    }

    static func syntaxError(_ message: String, column: Int, format: String) -> StrataError {
        StrataError(.predicateSyntax, "predicate syntax error at column \(column): \(message)",
                    context: ["position": String(column), "predicate": format])
    }

    private var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    private func error(_ message: String, at token: PredicateToken? = nil) -> StrataError {
        let token = token ?? current
        return Self.syntaxError(message, column: token.column, format: format)
    }

    private func expected(_ what: String) -> StrataError {
        error("expected \(what), found \(current.display)")
    }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    /// The current token's keyword (uppercased) when it is an unescaped word.
    private var keyword: String? {
        if case .word(let word, escaped: false) = current.kind { return word.uppercased() }
        return nil
    }

    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    private mutating func expectSymbol(_ symbol: String, _ what: String) throws {
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

    private mutating func nested<T>(_ body: (inout PredicateParser) throws -> T) throws -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= limits.maxPredicateDepth else {
            var error = error("predicate nested more than \(limits.maxPredicateDepth) levels deep (limit \(limits.maxPredicateDepth)) — simplify the predicate")
            error.context["limit"] = "maxPredicateDepth"
            error.context["maximum"] = String(limits.maxPredicateDepth)
            throw error
        }
        return try body(&self)
    }

    private mutating func parseOr() throws -> FetchPredicate {
        var terms = [try parseAnd()]
        while keyword == "OR" || isSymbol("||") {
            advance()
            terms.append(try parseAnd())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func parseAnd() throws -> FetchPredicate {
        var terms = [try parseNot()]
        while keyword == "AND" || isSymbol("&&") {
            advance()
            terms.append(try parseNot())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func parseNot() throws -> FetchPredicate {
        try nested { parser in
            if parser.keyword == "NOT" || parser.isSymbol("!") {
                parser.advance()
                return .not(try parser.parseNot())
            }
            if parser.isSymbol("(") {
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

    private mutating func parseComparison() throws -> FetchComparison {
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

    private func comparisonOperator() -> FetchComparison.Operator? {
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

    private mutating func parseOptions() throws -> FetchComparison.Options {
        guard isSymbol("[") else { return [] }
        advance()
        guard case .word(let letters, escaped: false) = current.kind else {
            throw expected("comparison options c, d or cd")
        }
        var options: FetchComparison.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            default: throw error("unknown comparison option '\(letter)' (expected c, d or cd)")
            }
        }
        advance()
        try expectSymbol("]", "']' after comparison options")
        return options
    }

    // MARK: Expressions

    /// Words that cannot start a key path unless escaped with `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE",
        "MATCHES", "ANY", "ALL", "NONE", "SOME", "TRUE", "FALSE", "YES", "NO", "NULL", "NIL",
        "SELF", "SUBQUERY", "TRUEPREDICATE", "FALSEPREDICATE", "CAST",
    ]

    private mutating func parseExpression() throws -> FetchExpression {
        try nested { parser in try parser.parsePath(try parser.parsePrimary()) }
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
        case .string(let text): advance(); return PathStart(base: .constant(.string(text)), allowsPath: false)
        case .integer(let value): advance(); return PathStart(base: .constant(.integer(value)), allowsPath: false)
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
            case "CAST": advance(); return PathStart(base: try parseCast(), allowsPath: false)
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
    private mutating func parsePath(_ start: PathStart) throws -> FetchExpression {
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
            error.context["limit"] = "maxKeyPathComponents"
            error.context["maximum"] = String(limits.maxKeyPathComponents)
            throw error
        }
        do {
            return try PredicateKeyPaths.expression(components: components.map(\.name), on: start.base)
        } catch {
            let token = components[min(error.index, components.count - 1)].token
            throw self.error(error.message, at: token)
        }
    }

    /// `SUBQUERY(collection, $variable, predicate)`, after the word.
    private mutating func parseSubquery() throws -> FetchExpression {
        try expectSymbol("(", "'(' after SUBQUERY")
        let collection = try parseExpression()
        try expectSymbol(",", "',' after the SUBQUERY collection")
        guard case .variable(let name) = current.kind else { throw expected("a $variable as SUBQUERY's second argument") }
        advance()
        try expectSymbol(",", "',' after the SUBQUERY variable")
        let predicate = try nested { parser in try parser.parseOr() }
        try expectSymbol(")", "')' to close SUBQUERY")
        return .subquery(collection: collection, variable: name, predicate: predicate)
    }

    /// The next argument for a placeholder, converted to an expression.
    private mutating func argument(_ letter: Character, token: PredicateToken) throws -> PathStart {
        guard nextArgument < arguments.count else {
            throw error("'%\(letter)' has no argument (only \(arguments.count) given)", at: token)
        }
        let argument = arguments[nextArgument]
        nextArgument += 1
        func wrongKind(_ wanted: String) -> StrataError {
            error("argument \(nextArgument) for '%\(letter)' must be \(wanted), not a \(argument.kindName)", at: token)
        }
        switch (letter, argument) {
        case ("@", .value(let value)):
            return PathStart(base: .constant(value), allowsPath: false)
        case ("@", .list(let values)):
            return PathStart(base: .collection(values.map(FetchExpression.constant)), allowsPath: true)
        case ("@", .key):
            throw wrongKind("a value or a list (use %K for key paths)")
        case ("K", .key(let path)), ("K", .value(.string(let path))):
            let names = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if let bad = names.first(where: { !$0.hasPrefix("@") && !PredicateKeyPaths.isIdentifier($0) }) {
                throw error("argument \(nextArgument) for '%K' is not a key path: component \(bad.debugDescription) is not a key name", at: token)
            }
            return PathStart(base: .evaluatedObject, components: names.map { ($0, token) }, allowsPath: true)
        case ("K", _):
            throw wrongKind("a key path")
        case ("d", .value(.integer(let value))):
            return PathStart(base: .constant(.integer(value)), allowsPath: false)
        case ("d", .value(.boolean(let value))):
            return PathStart(base: .constant(.integer(value ? 1 : 0)), allowsPath: false)
        case ("d", _):
            throw wrongKind("an integer")
        case ("f", .value(.double(let value))):
            return PathStart(base: .constant(.double(value)), allowsPath: false)
        case ("f", .value(.integer(let value))):
            return PathStart(base: .constant(.double(Double(value))), allowsPath: false)
        case ("f", _):
            throw wrongKind("a number")
        default:
            throw wrongKind("a value")
        }
    }

    /// `CAST(literal, "Type")`, after the word: how dates, decimals, UUIDs, URLs and data
    /// are printed (`CAST(700000000.0, "NSDate")`).
    private mutating func parseCast() throws -> FetchExpression {
        try expectSymbol("(", "'(' after CAST")
        let valueToken = current
        advance()
        try expectSymbol(",", "',' after the CAST value")
        guard case .string(let type) = current.kind else { throw expected("a type name string such as \"NSDate\"") }
        let typeToken = current
        advance()
        try expectSymbol(")", "')' to close CAST")
        let text: String
        switch valueToken.kind {
        case .string(let value): text = value
        case .integer(let value): text = String(value)
        case .double(let value): text = String(value)
        default: throw error("expected a string or number to CAST, found \(valueToken.display)", at: valueToken)
        }
        let value: PropertyValue?
        switch type {
        case "NSDate": value = Double(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case "NSNumber": value = Int64(text).map(PropertyValue.integer) ?? Double(text).map(PropertyValue.double)
        case "NSDecimalNumber": value = Decimal(string: text, locale: nil).map(PropertyValue.decimal)
        case "NSUUID": value = UUID(uuidString: text).map(PropertyValue.uuid)
        case "NSURL": value = URL(string: text).map(PropertyValue.uri)
        case "NSData": value = Data(base64Encoded: text).map(PropertyValue.data)
        case "NSManagedObjectID":
            throw error("object IDs cannot be written as literals; pass them as %@ arguments", at: valueToken)
        default:
            throw error("unknown CAST type \(type.debugDescription) (expected NSDate, NSNumber, NSDecimalNumber, NSUUID, NSURL or NSData)", at: typeToken)
        }
        guard let value else { throw error("cannot convert \(text.debugDescription) to \(type)", at: valueToken) }
        return .constant(value)
    }
}
