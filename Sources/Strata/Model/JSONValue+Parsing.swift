import Foundation

extension JSONValue {
    /// What a parse reports a problem as: the error code and what the text is called in
    /// the message ("Malformed model JSON at line 3, column 7: ...").
    package struct ParseErrors: Sendable {
        /// The code of the error.
        package var code: StrataError.Code
        /// The name of the text in messages.
        package var subject: String

        /// Model files: `.modelFile`, "model JSON".
        static let modelFile = ParseErrors(code: .modelFile, subject: "model JSON")
        /// Input to the tools (rows to import, arguments): `.invalidArgument`, "JSON".
        package static let input = ParseErrors(code: .invalidArgument, subject: "JSON")
    }

    /// Parses JSON text (RFC 8259) into a value.
    ///
    /// Strict: no comments, no trailing commas, no repeated key in an object, no lone
    /// surrogates, no leading zeros, valid UTF-8 only. A leading byte order mark is skipped.
    /// - Parameters:
    ///   - maximumDepth: the deepest nesting accepted (a model file needs five levels).
    ///   - errors: the code and wording of the error.
    /// - Throws: ``StrataStorage/StrataError`` with `line`, `column` and `offset` in its context.
    /// - Complexity: O(n).
    package static func parse(_ bytes: [UInt8], maximumDepth: Int = 512, errors: ParseErrors = .input) throws -> JSONValue {
        var parser = _JSONParser(bytes: bytes, maximumDepth: maximumDepth, errors: errors)
        return try parser.parseDocument()
    }

    /// Parses a model file's JSON (nesting up to 64 levels, `.modelFile` errors).
    static func parseModel(_ data: Data) throws -> JSONValue {
        try parse(Array(data), maximumDepth: 64, errors: .modelFile)
    }
}

/// A recursive-descent JSON parser over bytes, bounded in depth.
private struct _JSONParser {
    private let bytes: [UInt8]
    private let maximumDepth: Int
    private let errors: JSONValue.ParseErrors
    private var position = 0
    private var depth = 0

    init(bytes: [UInt8], maximumDepth: Int, errors: JSONValue.ParseErrors) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.errors = errors
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    mutating func parseDocument() throws -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if position < bytes.count { throw error("unexpected text after the JSON value") }
        return value
    }

    private mutating func parseValue() throws -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of the JSON text") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character \(describeByte(bytes[position]))")
        }
    }

    private mutating func enter() throws {
        depth += 1
        if depth > maximumDepth {
            throw error("the JSON nests deeper than \(maximumDepth) levels")
        }
    }

    private mutating func parseObject() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [JSONValue.Member] = []
        var keys: Set<String> = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { position += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
            let keyStart = position
            let key = try parseString()
            if !keys.insert(key).inserted {
                position = keyStart
                throw error("the key \"\(key)\" appears twice in one object")
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after the key \"\(key)\"") }
            position += 1
            skipWhitespace()
            members.append(JSONValue.Member(key, try parseValue()))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return .object(members)
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { position += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(items)
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func parseString() throws -> String {
        let start = position
        position += 1
        var buffer: [UInt8] = []
        while true {
            guard position < bytes.count else {
                position = start
                throw error("a string is not terminated")
            }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(bytes: buffer, encoding: .utf8) else {
                    position = start
                    throw error("a string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                try parseEscape(into: &buffer)
            case 0..<0x20:
                throw error("a control character must be escaped in a string")
            default:
                buffer.append(byte)
                position += 1
            }
        }
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws {
        guard position < bytes.count else { throw error("an escape is not terminated") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var value = try parseHex4()
            if (0xD800..<0xDC00).contains(value) {
                guard bytes[position...].starts(with: Array("\\u".utf8)) else {
                    throw error("a high surrogate escape must be followed by a low surrogate")
                }
                position += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate escape") }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(value) {
                throw error("a lone low surrogate escape")
            }
            guard let scalar = Unicode.Scalar(value) else { throw error("invalid \\u escape") }
            buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            position -= 1
            throw error("unknown escape '\\\(describeByte(byte))'")
        }
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard position + 4 <= bytes.count,
              let text = String(bytes: bytes[position..<position + 4], encoding: .ascii),
              text.allSatisfy(\.isHexDigit), let value = UInt32(text, radix: 16)
        else { throw error("expected four hexadecimal digits after \\u") }
        position += 4
        return value
    }

    private mutating func parseNumber() throws -> String {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit") }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = peek(), isDigit(next) { throw error("a number must not have a leading zero") }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let next = peek(), isDigit(next) else { throw error("expected a digit after '.'") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let next = peek(), isDigit(next) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func expectWord(_ word: String) throws {
        let expected = Array(word.utf8)
        guard bytes[position...].starts(with: expected) else { throw error("unexpected word; expected \(word)") }
        position += expected.count
    }

    private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }
    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private mutating func skipDigits() { while let byte = peek(), isDigit(byte) { position += 1 } }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private func describeByte(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    /// The error at the current position, with line and column (1-based).
    private func error(_ reason: String) -> StrataError {
        let end = min(position, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<end where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        let column = end - lineStart + 1
        return StrataError(
            errors.code, "Malformed \(errors.subject) at line \(line), column \(column): \(reason).",
            context: .init { $0.offset = end; $0.line = line; $0.column = column })
    }
}
