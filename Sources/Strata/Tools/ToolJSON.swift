import Foundation

/// A JSON value whose objects keep their keys in order, for the command-line tools: the
/// `strata` output lists an object's keys in model order, and numbers keep their exact
/// text (decimals and 64-bit integers survive a round trip).
///
/// ```swift
/// let value: ToolJSON = .fields(["_entity": .string("Employee"), "salary": .number("52000")])
/// print(value.rendered(pretty: false))   // {"_entity":"Employee","salary":52000}
/// let parsed = try ToolJSON.parse(Array("[1, 2.50]".utf8))
/// ```
package indirect enum ToolJSON: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its JSON text.
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([ToolJSON])
    /// An object, keys in order.
    case object([Member])

    /// One key and its value.
    package struct Member: Hashable, Sendable {
        /// The key.
        package var key: String
        /// The value.
        package var value: ToolJSON
        /// Creates a member.
        package init(_ key: String, _ value: ToolJSON) {
            self.key = key
            self.value = value
        }
    }

    /// An object from (key, value) pairs, in order.
    package static func fields(_ pairs: KeyValuePairs<String, ToolJSON>) -> ToolJSON {
        .object(pairs.map { Member($0.key, $0.value) })
    }

    /// An integer.
    package static func int<T: BinaryInteger>(_ value: T) -> ToolJSON { .number(String(value)) }

    /// The value of a key of an object (nil for other values or a missing key).
    package subscript(key: String) -> ToolJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string of a `.string`.
    package var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    // MARK: Writing

    /// The JSON text: compact, or indented by two spaces per level.
    package func rendered(pretty: Bool) -> String {
        var output = ""
        write(to: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(to output: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let values):
            guard !values.isEmpty else { output += "[]"; return }
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                if pretty { output += "\n" + String(repeating: "  ", count: indent + 1) }
                value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { output += "\n" + String(repeating: "  ", count: indent) }
            output += "]"
        case .object(let members):
            guard !members.isEmpty else { output += "{}"; return }
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                if pretty { output += "\n" + String(repeating: "  ", count: indent + 1) }
                Self.writeString(member.key, to: &output)
                output += pretty ? ": " : ":"
                member.value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { output += "\n" + String(repeating: "  ", count: indent) }
            output += "}"
        }
    }

    private static func writeString(_ text: String, to output: inout String) {
        ModelJSON._writeString(text, into: &output)
    }

    // MARK: Reading

    /// Parses JSON text.
    /// - Throws: `StrataError(.invalidArgument)` naming the byte offset of the problem.
    /// - Complexity: O(n); nesting deeper than 512 levels is rejected.
    package static func parse(_ bytes: [UInt8]) throws -> ToolJSON {
        var parser = ToolJSONParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }
}

/// A recursive-descent JSON reader over UTF-8 bytes with bounded nesting.
private struct ToolJSONParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func failure(_ why: String) -> StrataError {
        StrataError(.invalidArgument, "Malformed JSON at byte \(index): \(why).", context: ["offset": String(index)])
    }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    mutating func value(depth: Int) throws -> ToolJSON {
        guard depth < 512 else { throw failure("nesting is too deep") }
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [ToolJSON.Member] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
                let key = try string()
                skipSpace()
                try expect(":")
                skipSpace()
                members.append(ToolJSON.Member(key, try value(depth: depth + 1)))
                skipSpace()
                if try endOrComma("}") { return .object(members) }
            }
        case UInt8(ascii: "["):
            index += 1
            var values: [ToolJSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
            while true {
                skipSpace()
                values.append(try value(depth: depth + 1))
                skipSpace()
                if try endOrComma("]") { return .array(values) }
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default:
            return .number(try number())
        }
    }

    private mutating func endOrComma(_ close: Character) throws -> Bool {
        guard index < bytes.count else { throw failure("unexpected end of input") }
        if bytes[index] == close.asciiValue { index += 1; return true }
        guard bytes[index] == UInt8(ascii: ",") else { throw failure("expected ',' or '\(close)'") }
        index += 1
        return false
    }

    private mutating func expect(_ character: Character) throws {
        guard index < bytes.count, bytes[index] == character.asciiValue else { throw failure("expected '\(character)'") }
        index += 1
    }

    private mutating func literal(_ word: String) throws {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw failure("expected \(word)")
        }
        index += expected.count
    }

    private mutating func number() throws -> String {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let first = index
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
            return index - first
        }
        guard digits() > 0 else { index = start; throw failure("expected a value") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("expected digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("expected exponent digits") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func string() throws -> String {
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush() { scalars.append(contentsOf: String(decoding: bytes[run..<index], as: UTF8.self).unicodeScalars) }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flush()
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw failure("control character in a string") }
            guard byte == UInt8(ascii: "\\") else { index += 1; continue }
            flush()
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw failure("unpaired surrogate")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw failure("invalid \\u escape") }
                scalars.append(scalar)
            default:
                throw failure("invalid escape")
            }
            run = index
        }
        throw failure("unterminated string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw failure("invalid \\u escape")
        }
        index += 4
        return value
    }
}
