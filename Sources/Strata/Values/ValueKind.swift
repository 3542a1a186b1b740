import Foundation

/// The kinds of attribute value: one per ``PropertyValue`` case that an attribute holds.
///
/// Attribute types map onto kinds (``AttributeType/valueKind``): the three integer types
/// are one kind, `double` and `float` another, `binaryData` and `transformable` a third.
/// Everything that stores or compares a value by what it is rather than by its declared
/// type — the segment columns, the snapshot's SQL types, SQL translation, a value's fit to
/// a slot — switches over the kind, so a new attribute type of an existing kind changes
/// none of them (docs/ARCHITECTURE.md, "Adding an attribute type").
package enum ValueKind: Hashable, Sendable, CaseIterable {
    case integer, double, decimal, string, boolean, date, data, uuid, uri

    /// The name errors use for a value of the kind ("an integer value does not fit…").
    package var name: String {
        switch self {
        case .integer: return "integer"
        case .double: return "double"
        case .decimal: return "decimal"
        case .string: return "string"
        case .boolean: return "boolean"
        case .date: return "date"
        case .data: return "data"
        case .uuid: return "UUID"
        case .uri: return "URI"
        }
    }
}

extension PropertyValue {
    /// The kind of an attribute value; nil for `null` and relationship values.
    package var valueKind: ValueKind? {
        switch self {
        case .null, .object, .objects: return nil
        case .integer: return .integer
        case .double: return .double
        case .decimal: return .decimal
        case .string: return .string
        case .boolean: return .boolean
        case .date: return .date
        case .data: return .data
        case .uuid: return .uuid
        case .uri: return .uri
        }
    }
}
