import Foundation

/// Checks and converts values to an attribute's type.
enum ModelValueRules {
    /// The value converted to the attribute's storage form, or nil when it cannot be.
    ///
    /// Integers widen to doubles and decimals; whole doubles narrow to integers; strings are
    /// never numbers (comparing a string with a number is an error, not a silent false).
    static func coerce(_ value: PropertyValue, to type: AttributeType) -> PropertyValue? {
        if case .null = value { return .null }
        switch (type.valueKind, value) {
        // Not `fits ? value : nil`: PropertyValue is ExpressibleByNilLiteral, so that `nil`
        // would be `.null` and an out-of-range number would silently become NULL.
        case (.integer, .integer(let v)):
            guard let range = type.integerRange, range.contains(v) else { return nil }
            return value
        case (.integer, .boolean(let b)): return .integer(b ? 1 : 0)
        case (.integer, .double(let d)):
            guard d.rounded() == d, let exact = Int64(exactly: d) else { return nil }
            return coerce(.integer(exact), to: type)
        case (.double, .integer(let v)): return .double(type.isSinglePrecision ? Double(Float(v)) : Double(v))
        case (.double, .double(let d)): return type.isSinglePrecision ? .double(Double(Float(d))) : value
        case (.double, .decimal(let d)):
            let number = NSDecimalNumber(decimal: d).doubleValue
            return .double(type.isSinglePrecision ? Double(Float(number)) : number)
        case (.decimal, .decimal): return value
        case (.decimal, .integer(let v)): return .decimal(Decimal(v))
        case (.decimal, .double(let d)): return .decimal(Decimal(d))
        case (.string, .string): return value
        case (.boolean, .boolean): return value
        case (.boolean, .integer(let v)) where v == 0 || v == 1: return .boolean(v == 1)
        case (.date, .date): return value
        case (.data, .data): return value
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
        if let kind = value.valueKind { return kind.name }
        switch value {
        case .object: return "object"
        case .objects: return "objects"
        default: return "null"
        }
    }
}
