import Foundation

/// A JSON value as the model file format reads and writes it (docs/MODEL-FORMAT.md).
///
/// Numbers keep their source text so integers beyond 2^53 and exact decimals survive; the
/// typed reading happens in ``ModelValueCoding``. Objects are dictionaries: the parser
/// rejects duplicate keys and the writer sorts keys, so output is deterministic.
enum ModelJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number, as its JSON text (already checked against the JSON number grammar).
    case number(String)
    case string(String)
    case array([ModelJSON])
    case object([String: ModelJSON])

    /// A short name of the value's kind for error messages ("a string", "an array"...).
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

// MARK: - Writing

extension ModelJSON {
    /// The value as pretty-printed JSON text: two-space indentation, keys sorted by their
    /// UTF-8 bytes, `"key": value`, a trailing newline. The same value always gives the
    /// same bytes.
    func prettyPrinted() -> String {
        var output = ""
        _write(into: &output, indent: 0)
        output += "\n"
        return output
    }

    private func _write(into output: inout String, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): Self._writeString(text, into: &output)
        case .array(let items):
            if items.isEmpty { output += "[]"; return }
            output += "[\n"
            for (position, item) in items.enumerated() {
                output += String(repeating: " ", count: indent + 2)
                item._write(into: &output, indent: indent + 2)
                output += position == items.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "]"
        case .object(let members):
            if members.isEmpty { output += "{}"; return }
            output += "{\n"
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (position, key) in keys.enumerated() {
                output += String(repeating: " ", count: indent + 2)
                Self._writeString(key, into: &output)
                output += ": "
                members[key]?._write(into: &output, indent: indent + 2)
                output += position == keys.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indent) + "}"
        }
    }

    /// Writes `text` as a JSON string literal (shared by every JSON writer of the package).
    package static func _writeString(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

// MARK: - Building

extension ModelJSON {
    /// An integer as a JSON number.
    static func integer<T: BinaryInteger>(_ value: T) -> ModelJSON { .number(String(value)) }

    /// A string array.
    static func strings(_ values: [String]) -> ModelJSON { .array(values.map(ModelJSON.string)) }

    /// A string dictionary (userInfo).
    static func stringDictionary(_ values: [String: String]) -> ModelJSON {
        .object(values.mapValues(ModelJSON.string))
    }
}
