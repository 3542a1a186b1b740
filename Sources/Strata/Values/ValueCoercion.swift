import Foundation

/// Checks and converts values to an attribute's type.
enum ModelValueRules {
    /// The value converted to the attribute's storage form, or nil when it cannot be.
    ///
    /// Integers widen to doubles and decimals; whole doubles narrow to integers; strings are
    /// never numbers (comparing a string with a number is an error, not a silent false).
    static func coerce(_ value: PropertyValue, to type: AttributeType) -> PropertyValue? {
        if case .null = value { return .null }
        switch (type, value) {
        // Not `fits ? value : nil`: PropertyValue is ExpressibleByNilLiteral, so that `nil`
        // would be `.null` and an out-of-range number would silently become NULL.
        case (.integer16, .integer(let v)): return Int16(exactly: v).map { _ in value }
        case (.integer32, .integer(let v)): return Int32(exactly: v).map { _ in value }
        case (.integer64, .integer): return value
        case (.integer16, .boolean(let b)), (.integer32, .boolean(let b)), (.integer64, .boolean(let b)):
            return .integer(b ? 1 : 0)
        case (_, .double(let d)) where type.isInteger:
            guard d.rounded() == d, let exact = Int64(exactly: d) else { return nil }
            return coerce(.integer(exact), to: type)
        case (.double, .integer(let v)): return .double(Double(v))
        case (.double, .double): return value
        case (.double, .decimal(let d)): return .double(NSDecimalNumber(decimal: d).doubleValue)
        case (.float, .integer(let v)): return .double(Double(Float(v)))
        case (.float, .double(let d)): return .double(Double(Float(d)))
        case (.float, .decimal(let d)): return .double(Double(Float(NSDecimalNumber(decimal: d).doubleValue)))
        case (.decimal, .decimal): return value
        case (.decimal, .integer(let v)): return .decimal(Decimal(v))
        case (.decimal, .double(let d)): return .decimal(Decimal(d))
        case (.string, .string): return value
        case (.boolean, .boolean): return value
        case (.boolean, .integer(let v)) where v == 0 || v == 1: return .boolean(v == 1)
        case (.date, .date): return value
        case (.binaryData, .data), (.transformable, .data): return value
        case (.uuid, .uuid): return value
        case (.uuid, .string(let s)): return UUID(uuidString: s).map(PropertyValue.uuid)
        case (.uri, .uri): return value
        case (.uri, .string(let s)): return URL(string: s).map(PropertyValue.uri)
        default: return nil
        }
    }

    /// Why an attribute's default value does not fit its type, or nil when it does.
    static func defaultValueProblem(_ attribute: AttributeDescription) -> String? {
        if attribute.defaultValue.isNull { return nil }
        if coerce(attribute.defaultValue, to: attribute.attributeType) == nil {
            return "default value \(attribute.defaultValue) is not \(withArticle(attribute.attributeType.rawValue))"
        }
        return nil
    }

    /// A name for the kind of value, for error messages.
    static func kindName(_ value: PropertyValue) -> String {
        switch value {
        case .null: return "null"
        case .integer: return "integer"
        case .double: return "double"
        case .decimal: return "decimal"
        case .string: return "string"
        case .boolean: return "boolean"
        case .date: return "date"
        case .data: return "data"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .object: return "object"
        case .objects: return "objects"
        }
    }
}
