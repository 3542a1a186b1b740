import Foundation

/// One token of a predicate format string.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        /// A word: key name, keyword or `@operator`; `escaped` when written `#word`.
        case word(String, escaped: Bool)
        case string(String)
        case integer(Int64)
        case double(Double)
        /// 9223372036854775808 without a sign: after a unary `-` it is Int64.min, anywhere
        /// else the double it overflows to.
        case int64MinMagnitude
        case variable(String)
        /// `%@`, `%K`, `%d` (and `%i %ld %li %lld %lli`), `%f` (and `%lf`): the letter.
        case placeholder(Character)
        /// Operators and punctuation, normalized (`=` is `==`, `<>` is `!=`, `=>` is `>=`).
        case symbol(String)
        case end
    }

    var kind: Kind
    /// 1-based column (in Unicode scalars) of the token's first character.
    var column: Int

    /// The token as it would be shown in an error message.
    var display: String {
        switch kind {
        case .word(let word, _): return "'\(word)'"
        case .string(let text): return "string \(text.debugDescription)"
        case .integer(let value): return "number \(value)"
        case .double(let value): return "number \(value)"
        case .int64MinMagnitude: return "number 9223372036854775808"
        case .variable(let name): return "variable $\(name)"
        case .placeholder(let letter): return "'%\(letter)'"
        case .symbol(let symbol): return "'\(symbol)'"
        case .end: return "the end of the predicate"
        }
    }
}

/// Splits a predicate format string into tokens.
struct PredicateLexer {
    private let scalars: [Unicode.Scalar]
    private let format: String
    private var index = 0

    init(_ format: String) {
        self.format = format
        self.scalars = Array(format.unicodeScalars)
    }

    /// Every token, ending with `.end`.
    /// - Throws: `StrataError(.predicateSyntax)` for an unterminated string, a bad number,
    ///   an unknown `%` specifier or a character that starts no token.
    mutating func tokenize() throws -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        while true {
            skipWhitespace()
            let column = index + 1
            guard index < scalars.count else {
                tokens.append(PredicateToken(kind: .end, column: column))
                return tokens
            }
            tokens.append(PredicateToken(kind: try next(after: tokens.last?.kind), column: column))
        }
    }

    /// Words after which a `-` starts an operand (a negative number), not a subtraction.
    private static let operatorKeywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE",
        "MATCHES", "ANY", "ALL", "NONE", "SOME",
    ]

    /// Whether a token of this kind can end an operand, so that a `-` after it subtracts
    /// (`a -5` is `a - 5`) while elsewhere `-5` is one negative literal (which alone can be
    /// -9223372036854775808).
    private static func endsOperand(_ kind: PredicateToken.Kind?) -> Bool {
        switch kind {
        case .string, .integer, .double, .int64MinMagnitude, .variable, .placeholder: return true
        case .symbol(let symbol): return symbol == ")" || symbol == "}" || symbol == "]"
        case .word(let word, let escaped): return escaped || !operatorKeywords.contains(word.uppercased())
        case .end, nil: return false
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func skipWhitespace() {
        while let scalar = peek(), scalar.properties.isWhitespace { index += 1 }
    }

    private func error(_ message: String, at column: Int) -> StrataError {
        PredicateParser.syntaxError(message, column: column, format: format)
    }

    private mutating func next(after previous: PredicateToken.Kind?) throws -> PredicateToken.Kind {
        let start = index
        guard let scalar = peek() else { return .end }
        switch scalar {
        case "\"", "'":
            return .string(try stringLiteral(quote: scalar))
        case "$":
            index += 1
            guard let first = peek(), PredicateKeyPaths.isIdentifierStart(first) else {
                throw error("expected a variable name after '$'", at: index + 1)
            }
            return .variable(word())
        case "#":
            index += 1
            guard let first = peek(), PredicateKeyPaths.isIdentifierStart(first) else {
                throw error("expected a key name after '#'", at: index + 1)
            }
            return .word(word(), escaped: true)
        case "@":
            index += 1
            guard let first = peek(), PredicateKeyPaths.isIdentifierStart(first) else {
                throw error("expected a collection operator name after '@'", at: index + 1)
            }
            return .word("@" + word(), escaped: false)
        case "%":
            return try placeholder()
        case "0"..."9":
            return try number(negative: false)
        case "-":
            if let following = peek(1), ("0"..."9").contains(following), !Self.endsOperand(previous) {
                index += 1
                return try number(negative: true)
            }
            index += 1
            return .symbol("-")
        default:
            if PredicateKeyPaths.isIdentifierStart(scalar) {
                return .word(word(), escaped: false)
            }
            if let symbol = symbol() { return .symbol(symbol) }
            throw error("unexpected character '\(Character(scalar))'", at: start + 1)
        }
    }

    private mutating func word() -> String {
        var text = String.UnicodeScalarView()
        while let scalar = peek(), PredicateKeyPaths.isIdentifierPart(scalar) {
            text.append(scalar)
            index += 1
        }
        return String(text)
    }

    /// Two-character operators and their normalized spelling.
    private static let twoCharacterSymbols: [String: String] = [
        "==": "==", "!=": "!=", "<>": "!=", "<=": "<=", "=<": "<=", ">=": ">=", "=>": ">=",
        "&&": "&&", "||": "||", "**": "**",
    ]

    private mutating func symbol() -> String? {
        if let first = peek(), let second = peek(1),
           let symbol = Self.twoCharacterSymbols[String(Character(first)) + String(Character(second))] {
            index += 2
            return symbol
        }
        guard let one = peek() else { return nil }
        switch one {
        case "=": index += 1; return "=="
        case "<", ">", "!", "(", ")", "{", "}", "[", "]", ",", ".", "+", "*", "/", ":":
            index += 1
            return String(one)
        default: return nil
        }
    }

    private mutating func placeholder() throws -> PredicateToken.Kind {
        let start = index
        index += 1
        var letters = ""
        while let scalar = peek(), scalar.properties.isAlphabetic || scalar == "@", letters.count < 3 {
            letters.unicodeScalars.append(scalar)
            index += 1
            if scalar == "@" || scalar == "K" || scalar == "d" || scalar == "i" || scalar == "f" { break }
        }
        switch letters {
        case "@": return .placeholder("@")
        case "K": return .placeholder("K")
        case "d", "i", "ld", "li", "lld", "lli": return .placeholder("d")
        case "f", "lf": return .placeholder("f")
        default:
            throw error("unknown format specifier '%\(letters)' (expected %@, %K, %d, %i, %ld or %f)", at: start + 1)
        }
    }

    private mutating func number(negative: Bool) throws -> PredicateToken.Kind {
        let start = index
        if peek() == "0", let x = peek(1), x == "x" || x == "X" {
            index += 2
            var digits = ""
            while let scalar = peek(), scalar.properties.isASCIIHexDigit {
                digits.unicodeScalars.append(scalar)
                index += 1
            }
            guard !digits.isEmpty, let magnitude = UInt64(digits, radix: 16) else {
                throw error("malformed hexadecimal number", at: start + 1)
            }
            if negative {
                guard magnitude <= UInt64(Int64.max) + 1 else { throw error("hexadecimal number out of range", at: start) }
                return .integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
            }
            guard let value = Int64(exactly: magnitude) else { throw error("hexadecimal number out of range", at: start + 1) }
            return .integer(value)
        }
        var text = negative ? "-" : ""
        var isInteger = true
        func digits() {
            while let scalar = peek(), ("0"..."9").contains(scalar) {
                text.unicodeScalars.append(scalar)
                index += 1
            }
        }
        digits()
        if peek() == ".", let following = peek(1), ("0"..."9").contains(following) {
            isInteger = false
            text += "."
            index += 1
            digits()
        }
        if let e = peek(), e == "e" || e == "E" {
            var offset = 1
            if let sign = peek(1), sign == "+" || sign == "-" { offset = 2 }
            guard let digit = peek(offset), ("0"..."9").contains(digit) else {
                throw error("malformed exponent in number", at: index + 1)
            }
            isInteger = false
            text += "e"
            if offset == 2, let sign = peek(1) { text.unicodeScalars.append(sign) }
            index += offset
            digits()
        }
        if let after = peek(), PredicateKeyPaths.isIdentifierStart(after) {
            throw error("malformed number: unexpected '\(Character(after))'", at: index + 1)
        }
        if isInteger, let value = Int64(text) { return .integer(value) }
        if isInteger, text == "9223372036854775808" { return .int64MinMagnitude }
        guard let value = Double(text) else { throw error("malformed number", at: start + 1) }
        return .double(value)
    }

    private mutating func stringLiteral(quote: Unicode.Scalar) throws -> String {
        let start = index
        index += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else {
                throw error("unterminated string literal", at: start + 1)
            }
            index += 1
            if scalar == quote { return String(text) }
            guard scalar == "\\" else {
                text.append(scalar)
                continue
            }
            guard let escaped = peek() else { throw error("unterminated string literal", at: start + 1) }
            index += 1
            switch escaped {
            case "\\", "\"", "'": text.append(escaped)
            case "n": text.append("\n")
            case "r": text.append("\r")
            case "t": text.append("\t")
            case "0": text.append("\0")
            case "u": text.append(try unicodeEscape(column: index - 1))
            default:
                throw error("unknown escape '\\\(Character(escaped))' in string literal", at: index - 1)
            }
        }
    }

    /// `\uXXXX` or `\u{X…}` (1 to 8 hex digits), after the `u`.
    private mutating func unicodeEscape(column: Int) throws -> Unicode.Scalar {
        var hex = ""
        if peek() == "{" {
            index += 1
            while let scalar = peek(), scalar != "}", hex.count <= 8 {
                hex.unicodeScalars.append(scalar)
                index += 1
            }
            guard peek() == "}" else { throw error("unterminated \\u{…} escape", at: column) }
            index += 1
        } else {
            for _ in 0..<4 {
                guard let scalar = peek() else { break }
                hex.unicodeScalars.append(scalar)
                index += 1
            }
        }
        guard (1...8).contains(hex.count), let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
            throw error("malformed \\u escape", at: column)
        }
        return scalar
    }
}
