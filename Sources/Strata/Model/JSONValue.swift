import Foundation

/// The package's one JSON value: model files (docs/MODEL-FORMAT.md) and everything the
/// command-line tools read and print.
///
/// Numbers keep their source text, so integers beyond 2^53 and exact decimals survive a
/// round trip (the typed reading happens in ``ModelValueCoding`` and the tools). Objects
/// keep their members in order (the tools list a record's keys in model order); the
/// parser refuses a key that appears twice in one object, and the writer can sort keys
/// (model files do, so the same model always gives the same bytes).
///
/// ```swift
/// let value: JSONValue = .fields(["_entity": .string("Employee"), "salary": .number("52000")])
/// print(value.rendered(pretty: false))   // {"_entity":"Employee","salary":52000}
/// let parsed = try JSONValue.parse(Array("[1, 2.50]".utf8))
/// ```
package indirect enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its JSON text (already checked against the JSON number grammar when
    /// parsed).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, members in order.
    case object([Member])

    /// One key of an object and its value.
    package struct Member: Hashable, Sendable {
        /// The key.
        package var key: String
        /// The value.
        package var value: JSONValue
        /// Creates a member.
        package init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// A short name of the value's kind for error messages ("a string", "an array"...).
    package var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value of a key of an object (nil for other values or a missing key).
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string of a `.string`.
    package var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The members of an object by key (nil for other values). Parsed objects have no
    /// repeated key; for built ones the first of a repeated key wins.
    package var dictionaryValue: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}

// MARK: - Building

extension JSONValue {
    /// An object from (key, value) pairs, in order.
    package static func fields(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { Member($0.key, $0.value) })
    }

    /// An object from a dictionary, keys sorted by their UTF-8 bytes.
    package static func dictionary(_ values: [String: JSONValue]) -> JSONValue {
        .object(values.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { Member($0.key, $0.value) })
    }

    /// An integer as a JSON number.
    package static func int<T: BinaryInteger>(_ value: T) -> JSONValue { .number(String(value)) }

    /// A string array.
    static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    /// A string dictionary (userInfo), keys sorted.
    static func stringDictionary(_ values: [String: String]) -> JSONValue {
        .dictionary(values.mapValues(JSONValue.string))
    }
}

// MARK: - Writing

extension JSONValue {
    /// The JSON text: compact, or indented by two spaces per level (`"key": value`); with
    /// `sortedKeys`, each object's keys in the order of their UTF-8 bytes, so the same value
    /// always gives the same bytes.
    package func rendered(pretty: Bool, sortedKeys: Bool = false) -> String {
        var output = ""
        write(to: &output, pretty: pretty, sortedKeys: sortedKeys, indent: 0)
        return output
    }

    /// The value as it is written `level` levels deep inside a pretty array or object:
    /// lines after the first indented by `level` × 2 spaces. `strata fetch --format json`
    /// and `strata export` write their arrays element by element with it.
    package func rendered(pretty: Bool, indent level: Int) -> String {
        var output = ""
        write(to: &output, pretty: pretty, sortedKeys: false, indent: level)
        return output
    }

    /// The value as a model file is written: pretty, keys sorted, a trailing newline.
    func prettyPrinted() -> String {
        rendered(pretty: true, sortedKeys: true) + "\n"
    }

    private func write(to output: inout String, pretty: Bool, sortedKeys: Bool, indent: Int) {
        func newline(_ level: Int) {
            if pretty { output += "\n" + String(repeating: "  ", count: level) }
        }
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): Self.writeString(text, into: &output)
        case .array(let values):
            guard !values.isEmpty else { output += "[]"; return }
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                newline(indent + 1)
                value.write(to: &output, pretty: pretty, sortedKeys: sortedKeys, indent: indent + 1)
            }
            newline(indent)
            output += "]"
        case .object(var members):
            guard !members.isEmpty else { output += "{}"; return }
            if sortedKeys { members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } }
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                newline(indent + 1)
                Self.writeString(member.key, into: &output)
                output += pretty ? ": " : ":"
                member.value.write(to: &output, pretty: pretty, sortedKeys: sortedKeys, indent: indent + 1)
            }
            newline(indent)
            output += "}"
        }
    }

    /// Writes `text` as a JSON string literal.
    package static func writeString(_ text: String, into output: inout String) {
        output += "\""
        // Every byte that needs escaping is ASCII, and no byte of a multi-byte UTF-8
        // sequence is: the text is copied in runs between escapes (a whole string when it
        // has none), not scalar by scalar — exports write every value through here.
        let bytes = text.utf8
        var runStart = bytes.startIndex
        var index = runStart
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 {
                output += text[runStart..<index]
                output += escape(byte)
                runStart = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        output += text[runStart..<bytes.endIndex]
        output += "\""
    }

    /// The JSON escape of a quote, a backslash or a control character.
    private static func escape(_ byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "\""): return "\\\""
        case UInt8(ascii: "\\"): return "\\\\"
        case UInt8(ascii: "\n"): return "\\n"
        case UInt8(ascii: "\r"): return "\\r"
        case UInt8(ascii: "\t"): return "\\t"
        case 0x08: return "\\b"
        case 0x0C: return "\\f"
        default:
            let hex = String(byte, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }
}
