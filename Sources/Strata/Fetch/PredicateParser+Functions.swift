import Foundation

/// The function-like forms of ``PredicateParser``'s expressions: calls, `TERNARY`, `CAST`,
/// `SUBQUERY`, subscripts and `%` arguments.
extension PredicateParser {
    /// `SUBQUERY(collection, $variable, predicate)`, after the word.
    mutating func parseSubquery() throws -> FetchExpression {
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
    mutating func argument(_ letter: Character, token: PredicateToken) throws -> PathStart {
        guard nextArgument < arguments.count else {
            throw error("'%\(letter)' has no argument (only \(arguments.count) given)", at: token)
        }
        let argument = arguments[nextArgument]
        nextArgument += 1
        func wrongKind(_ wanted: String) -> StrataError {
            error("argument \(nextArgument) for '%\(letter)' must be \(wanted), not \(withArticle(argument.kindName))", at: token)
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

    /// `CAST(value, "Type")`, after the word. A literal value is converted now (how dates,
    /// decimals, UUIDs, URLs and data are printed: `CAST(700000000.0, "NSDate")`); any other
    /// value becomes ``FetchFunction/castObject``, converted at evaluation.
    mutating func parseCast() throws -> FetchExpression {
        try expectSymbol("(", "'(' after CAST")
        let valueToken = current
        let literal: String?
        switch valueToken.kind {
        case .string(let value): literal = value
        case .integer(let value): literal = String(value)
        case .int64MinMagnitude: literal = "9223372036854775808"
        case .double(let value): literal = String(value)
        default: literal = nil
        }
        guard let text = literal, next.kind == .symbol(",") else {
            let value = try parseExpression()
            try expectSymbol(",", "',' after the CAST value")
            let (type, typeToken) = try castType()
            guard Self.castTypes.contains(type) else {
                throw error("unknown CAST type \(type.debugDescription) (expected \(Self.castTypes.joined(separator: ", ")))", at: typeToken)
            }
            return .function(.castObject, [value, .constant(.string(type))])
        }
        advance()
        try expectSymbol(",", "',' after the CAST value")
        let (type, typeToken) = try castType()
        let value: PropertyValue?
        switch type {
        case "NSDate": value = Double(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case "NSNumber": value = Int64(text).map(PropertyValue.integer) ?? Double(text).map(PropertyValue.double)
        case "NSDecimalNumber": value = Decimal(string: text, locale: nil).map(PropertyValue.decimal)
        case "NSString": value = .string(text)
        case "NSUUID": value = UUID(uuidString: text).map(PropertyValue.uuid)
        case "NSURL": value = URL(string: text).map(PropertyValue.uri)
        case "NSData": value = Data(base64Encoded: text).map(PropertyValue.data)
        case "NSManagedObjectID":
            throw error("object IDs cannot be written as literals; pass them as %@ arguments", at: valueToken)
        default:
            throw error("unknown CAST type \(type.debugDescription) (expected \(Self.castTypes.joined(separator: ", ")))", at: typeToken)
        }
        guard let value else { throw error("cannot convert \(text.debugDescription) to \(type)", at: valueToken) }
        return .constant(value)
    }

    /// The types CAST converts to.
    static let castTypes = ["NSNumber", "NSString", "NSDate", "NSDecimalNumber", "NSUUID", "NSURL", "NSData"]

    /// CAST's type name and the closing `)`.
    private mutating func castType() throws -> (String, PredicateToken) {
        guard case .string(let type) = current.kind else { throw expected("a type name string such as \"NSDate\"") }
        let token = current
        advance()
        try expectSymbol(")", "')' to close CAST")
        return (type, token)
    }

    /// `TERNARY(predicate, then, else)`, after the word.
    mutating func parseTernary() throws -> FetchExpression {
        try expectSymbol("(", "'(' after TERNARY")
        let condition = try nested { parser in try parser.parseOr() }
        try expectSymbol(",", "',' after the TERNARY predicate")
        let then = try parseExpression()
        try expectSymbol(",", "',' after TERNARY's second argument")
        let otherwise = try parseExpression()
        try expectSymbol(")", "')' to close TERNARY")
        return .conditional(condition, then: then, else: otherwise)
    }

    /// `[FIRST]`, `[LAST]`, `[SIZE]` or `[expression]`, at the `[`.
    mutating func parseIndex() throws -> FetchIndex {
        try expectSymbol("[", "'['")
        var index: FetchIndex
        if case .word(let word, escaped: false) = current.kind, next.kind == .symbol("]"),
           let keyword = ["FIRST": FetchIndex.first, "LAST": .last, "SIZE": .size][word.uppercased()] {
            advance()
            index = keyword
        } else {
            index = .at(try parseExpression())
        }
        try expectSymbol("]", "']' to close the subscript")
        return index
    }

    /// A function call, at its name: Foundation's `name:(args)` (`add:to:(a, b)`,
    /// `sum:(items)`) or the bare `name(args)` (`sum(items)`, `now()`, `MAX(1, 5, 10)`),
    /// names in any case. The bare name of an aggregate given several arguments aggregates
    /// them, as Foundation's `MAX(1, 5, 10)`.
    mutating func parseFunctionCall() throws -> FetchExpression {
        let nameToken = current
        guard case .word(var name, escaped: false) = current.kind else { throw expected("a function name") }
        advance()
        var hasColons = false
        while isSymbol(":") {
            hasColons = true
            name += ":"
            advance()
            if case .word(let part, escaped: false) = current.kind, next.kind == .symbol(":") {
                name += part
                advance()
            }
        }
        try expectSymbol("(", "'(' after the function name \(name)")
        var arguments: [FetchExpression] = []
        if !isSymbol(")") {
            arguments.append(try parseExpression())
            while isSymbol(",") {
                advance()
                arguments.append(try parseExpression())
            }
        }
        try expectSymbol(")", "',' or ')' in the arguments of \(name)")
        if name.uppercased() == "FUNCTION" {
            throw error("FUNCTION(receiver, 'selector', …) method calls are not supported; call the functions by name, e.g. uppercase:(name)", at: nameToken)
        }
        let lower = name.lowercased()
        let candidates = hasColons
            ? FetchFunction.allCases.filter { $0.rawValue.lowercased() == lower }
            : FetchFunction.allCases.filter { $0.bareName.lowercased() == lower }
        guard !candidates.isEmpty else {
            let known = FetchFunction.allCases.map { $0 == .now || $0 == .random ? $0.rawValue + "()" : $0.rawValue }
            throw error("unknown function \(input: name) (known: \(known.joined(separator: " ")))", at: nameToken)
        }
        if let function = candidates.first(where: { $0.argumentCount == arguments.count }) {
            return .function(function, arguments)
        }
        if !hasColons, let aggregate = candidates.first(where: \.isAggregate), arguments.count > 1 {
            return .function(aggregate, [.collection(arguments)])
        }
        let function = candidates[0]
        let wanted = candidates.map { String($0.argumentCount) }.joined(separator: " or ")
        throw error("\(function.rawValue) takes \(wanted) argument\(wanted == "1" ? "" : "s"), found \(arguments.count)", at: nameToken)
    }
}

extension FetchFunction {
    /// The name without its colon parts (`add` for `add:to:`), which format strings may
    /// write as `add(a, b)` the way Foundation's old `MAX(1, 5, 10)` functions were written.
    var bareName: String { String(rawValue.prefix { $0 != ":" }) }
}
