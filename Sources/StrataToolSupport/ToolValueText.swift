import Foundation
import Strata

/// Attribute values as the command-line tools read and write them: text typed on a
/// command line or found in a CSV cell, and JSON values.
///
/// | type | text | JSON |
/// |---|---|---|
/// | Integer 16/32/64 | `42`, `-7` | number |
/// | Decimal | `1234.50` (exact) | number (exact text) |
/// | Double, Float | `3.25`, `1e-3` | number |
/// | Boolean | `true false yes no 1 0` | `true`/`false` |
/// | Date | ISO-8601: `2024-03-01`, `2024-03-01T09:30:00Z`, `…+02:00` | string |
/// | UUID | `E621E1F8-C36C-495A-93FC-0C247A3E6E5F` | string |
/// | URI | `https://example.com` | string |
/// | String | anything (quote it as a shell does) | string |
/// | Binary Data, Transformable | base64 | base64 string |
///
/// `null` (unquoted on a command line, JSON `null`) is no value.
///
/// ```swift
/// let salary = try ToolValueText.parse("52000", as: .integer64, key: "salary")   // .integer(52000)
/// ToolValueText.json(.date(someDate)).rendered(pretty: false)                    // "2024-03-01T00:00:00Z"
/// ```
package enum ToolValueText {
    /// Parses text as a value of `type`.
    /// - Throws: `StrataError(.typeMismatch)` naming the key, the type and the text.
    package static func parse(_ text: String, as type: AttributeType, key: String) throws -> PropertyValue {
        if text == "null" { return .null }
        func wrong(_ expected: String) -> StrataError {
            StrataError(.typeMismatch, "\(input: text) is not \(expected) (\(key) is \(type.rawValue)).",
                        context: .init { $0.key = key; $0.expectedType = type.rawValue; $0.value = text })
        }
        switch type.valueKind {
        case .integer:
            guard let value = Int64(trimmedOfWhitespace(text)) else { throw wrong("an integer") }
            let range = type.integerRange ?? Int64.min...Int64.max
            guard range.contains(value) else { throw wrong("an integer between \(range.lowerBound) and \(range.upperBound)") }
            return .integer(value)
        case .decimal:
            guard isDecimalText(text), let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw wrong("a decimal number")
            }
            return .decimal(value)
        case .double:
            guard let value = Double(trimmedOfWhitespace(text)) else { throw wrong("a number") }
            return .double(type.isSinglePrecision ? Double(Float(value)) : value)
        case .boolean:
            // The common spellings first, without lowercasing (a copy per cell).
            switch text {
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            default: break
            }
            switch text.lowercased() {
            case "true", "yes", "1": return .boolean(true)
            case "false", "no", "0": return .boolean(false)
            default: throw wrong("true or false")
            }
        case .date:
            guard let date = date(from: text) else { throw wrong("an ISO-8601 date (2024-03-01 or 2024-03-01T09:30:00Z)") }
            return .date(date)
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw wrong("a UUID") }
            return .uuid(uuid)
        case .uri:
            guard let url = URL(string: text), url.scheme != nil else { throw wrong("a URL with a scheme") }
            return .uri(url)
        case .string:
            return .string(text)
        case .data:
            guard let data = Data(base64Encoded: text) else { throw wrong("base64 data") }
            return .data(data)
        }
    }

    /// `text` without leading and trailing spaces and tabs (`CharacterSet.whitespaces`).
    /// A cell that starts and ends with a printable ASCII character (nearly every one) is
    /// returned as it is: Foundation's trimming bridged every number of an import through
    /// NSString, 15% of a CSV import's instructions (docs/ARCHITECTURE.md, "Batch requests
    /// and merges").
    static func trimmedOfWhitespace(_ text: String) -> String {
        if let first = text.utf8.first, let last = text.utf8.last,
           (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return text
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// A timestamp as ISO-8601 text in UTC with milliseconds (`2024-03-01T09:30:00.250Z`),
    /// for logs and histories.
    package static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// Reads an ISO-8601 date: `YYYY-MM-DD`, or a date and time with an optional `Z` or
    /// `±HH:MM` (UTC when none).
    package static func date(from text: String) -> Date? {
        if let date = ModelDateText.date(from: text) { return date }
        if text.count == 10, let date = ModelDateText.date(from: text + "T00:00:00Z") { return date }
        if text.count >= 19, !text.hasSuffix("Z"), let date = ModelDateText.date(from: text + "Z") { return date }
        return nil
    }

    /// ISO-8601 text of a date (UTC), the form ``date(from:)`` reads back exactly.
    package static func text(of date: Date) -> String {
        ModelDateText.string(from: date) ?? date.formatted(.iso8601)
    }

    private static func isDecimalText(_ text: String) -> Bool {
        var bytes = Substring(text).utf8.makeIterator()
        var state = 0  // 0 sign/int, 1 int digits, 2 after '.', 3 fraction digits, 4 after e, 5 exp sign, 6 exp digits
        var first = true
        while let byte = bytes.next() {
            let digit = (48...57).contains(byte)
            switch state {
            case 0:
                if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+"), first { first = false; continue }
                guard digit else { return false }
                state = 1
            case 1:
                if digit { continue }
                if byte == UInt8(ascii: ".") { state = 2 } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { state = 4 } else { return false }
            case 2, 3:
                if digit { state = 3; continue }
                guard state == 3, byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") else { return false }
                state = 4
            case 4:
                if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") { state = 5; continue }
                guard digit else { return false }
                state = 6
            default:
                guard digit else { return false }
                state = 6
            }
            first = false
        }
        return state == 1 || state == 3 || state == 6
    }

    // MARK: Writing

    /// A value as JSON: numbers as numbers (decimals exact), dates ISO-8601 strings, data
    /// base64, a to-one its URI, a to-many an array of URIs.
    package static func json(_ value: PropertyValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .integer(let v): return .number(String(v))
        case .double(let v): return v.isFinite ? .number(doubleText(v)) : .null
        case .decimal(let v): return v.isNaN ? .null : .number(v.description)
        case .string(let v): return .string(v)
        case .boolean(let v): return .bool(v)
        case .date(let v): return .string(text(of: v))
        case .data(let v): return .string(v.base64EncodedString())
        case .uuid(let v): return .string(v.uuidString)
        case .uri(let v): return .string(v.absoluteString)
        case .object(let id): return .string(id.description)
        case .objects(let ids): return .array(ids.map { .string($0.description) })
        }
    }

    /// A value as plain text for tables and CSV cells: `null` is empty in CSV and `null` in
    /// tables (`nullText`), to-manys are URIs separated by spaces.
    package static func plain(_ value: PropertyValue, nullText: String = "null") -> String {
        switch value {
        case .null: return nullText
        case .string(let v): return v
        case .double(let v): return doubleText(v)
        case .objects(let ids): return ids.map(\.description).joined(separator: " ")
        default:
            if case .string(let text) = json(value) { return text }
            return json(value).rendered(pretty: false)
        }
    }

    /// `52000`, `3.25`, `1e-07`: integral doubles without a fraction.
    package static func doubleText(_ value: Double) -> String {
        if value.isFinite, value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Reads a JSON value as a value of `type` (strings go through ``parse(_:as:key:)``).
    /// - Throws: `StrataError(.typeMismatch)` naming the key.
    package static func value(fromJSON json: JSONValue, as type: AttributeType, key: String) throws -> PropertyValue {
        switch json {
        case .null: return .null
        case .string(let text):
            if type == .string { return .string(text) }
            return try parse(text, as: type, key: key)
        case .number(let text):
            if type.isNumeric { return try parse(text, as: type, key: key) }
        case .bool(let flag):
            if type == .boolean { return .boolean(flag) }
        default: break
        }
        throw StrataError(.typeMismatch, "\(json.rendered(pretty: false)) is not a \(type.rawValue) value for \(key).",
                          context: .init { $0.key = key; $0.expectedType = type.rawValue })
    }
}
