import Foundation

/// Attribute values (defaults, min/max) as JSON typed by the attribute type
/// (docs/MODEL-FORMAT.md, "Values").
///
/// | type | JSON |
/// |---|---|
/// | integer16/32/64 | integer number |
/// | double, float | number, or "Infinity", "-Infinity", "NaN" |
/// | decimal | string holding a JSON-grammar number (exact); a number is accepted |
/// | string | string |
/// | boolean | true / false |
/// | date | ISO-8601 string; a number (seconds since 2001-01-01) is accepted |
/// | binaryData, transformable | base64 string |
/// | uuid, uri | string |
enum ModelValueCoding {
    /// The JSON for a value of an attribute of `type`, canonicalized to that type first so
    /// writing, reading and writing again gives the same text.
    static func json(for value: PropertyValue, type: AttributeType) -> JSONValue {
        let canonical = ModelValueRules.coerce(value, to: type) ?? value
        switch canonical {
        case .null, .object, .objects: return .null
        case .integer(let number): return .number(String(number))
        case .double(let number):
            if number.isNaN { return .string("NaN") }
            if number.isInfinite { return .string(number < 0 ? "-Infinity" : "Infinity") }
            if type.isSinglePrecision { return .number(Float(number).description) }
            return .number(number.description)
        case .decimal(let number): return .string(number.description)
        case .string(let text): return .string(text)
        case .boolean(let flag): return .bool(flag)
        case .date(let date):
            if let text = ModelDateText.string(from: date) { return .string(text) }
            let seconds = date.timeIntervalSinceReferenceDate
            return seconds.isFinite ? .number(seconds.description) : .null
        case .data(let bytes): return .string(bytes.base64EncodedString())
        case .uuid(let uuid): return .string(uuid.uuidString)
        case .uri(let url): return .string(url.absoluteString)
        }
    }

    /// The value a JSON item denotes for an attribute of `type`.
    /// - Throws: ``ModelFileReason`` saying what was expected.
    static func value(from json: JSONValue, type: AttributeType) throws -> PropertyValue {
        if case .null = json { return .null }
        switch (type.valueKind, json) {
        case (.integer, .number(let text)):
            guard let number = Int64(text) else {
                throw ModelFileReason("expected an integer for \(withArticle(type.rawValue)) attribute, found \(text)")
            }
            guard let value = ModelValueRules.coerce(.integer(number), to: type) else {
                throw ModelFileReason("\(text) is out of the range of \(type.rawValue)")
            }
            return value
        case (.double, .number(let text)):
            return .double(type.isSinglePrecision ? Double(Float(text) ?? .nan) : Double(text) ?? .nan)
        case (.double, .string(let text)):
            switch text {
            case "Infinity": return .double(.infinity)
            case "-Infinity": return .double(-.infinity)
            case "NaN": return .double(.nan)
            default: throw ModelFileReason("expected a number, \"Infinity\", \"-Infinity\" or \"NaN\", found \"\(text)\"")
            }
        case (.decimal, .string(let text)), (.decimal, .number(let text)):
            guard let decimal = exactDecimal(text) else {
                throw ModelFileReason("expected a decimal number as a string, found \"\(text)\"")
            }
            return .decimal(decimal)
        case (.string, .string(let text)): return .string(text)
        case (.boolean, .bool(let flag)): return .boolean(flag)
        case (.date, .string(let text)):
            guard let date = ModelDateText.date(from: text) else {
                throw ModelFileReason("expected an ISO-8601 date such as \"2001-01-01T00:00:00Z\", found \"\(text)\"")
            }
            return .date(date)
        case (.date, .number(let text)):
            guard let seconds = Double(text), seconds.isFinite else { throw ModelFileReason("the date \(text) is out of range") }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.data, .string(let text)):
            guard let data = Data(base64Encoded: text) else { throw ModelFileReason("expected base64 data") }
            return .data(data)
        case (.uuid, .string(let text)):
            guard let uuid = UUID(uuidString: text) else { throw ModelFileReason("\"\(text)\" is not a UUID") }
            return .uuid(uuid)
        case (.uri, .string(let text)):
            guard let url = URL(string: text) else { throw ModelFileReason("\"\(text)\" is not a URI") }
            return .uri(url)
        default:
            throw ModelFileReason("expected \(expectedKind(type)) for \(withArticle(type.rawValue)) attribute, found \(json.kindName)")
        }
    }

    /// A decimal from text that is exactly a JSON number (no partial parses, no locale).
    static func exactDecimal(_ text: String) -> Decimal? {
        guard case .number(let checked)? = try? JSONValue.parse(Array(text.utf8)), checked == text else { return nil }
        guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN else {
            return nil
        }
        return decimal
    }

    private static func expectedKind(_ type: AttributeType) -> String {
        switch type.valueKind {
        case .integer: return "an integer"
        case .double: return "a number"
        case .decimal: return "a decimal string"
        case .string: return "a string"
        case .boolean: return "a boolean"
        case .date: return "an ISO-8601 date string"
        case .data: return "a base64 string"
        case .uuid: return "a UUID string"
        case .uri: return "a URI string"
        }
    }
}

/// Why a part of a model file is wrong; the readers turn it into a located ``StrataStorage/StrataError``.
struct ModelFileReason: Error {
    let text: String
    init(_ text: String) { self.text = text }
}
