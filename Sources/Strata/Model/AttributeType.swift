import Foundation

/// The storage type of an attribute, as in Core Data's model editor.
///
/// Everything Strata needs to know about a type is said here, once: the kind of value it
/// holds (`ValueKind`, which fixes how the log, the snapshot, SQL and the tools store and
/// compare it), an integer type's range, a float's single precision, its Xcode and Swift
/// names. docs/ARCHITECTURE.md, "Adding an attribute type", lists what else a new type
/// touches.
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    case integer16, integer32, integer64, decimal, double, float, string, boolean, date
    case binaryData, uuid, uri, transformable

    /// Whether values of this type are numbers (min/max value constraints apply).
    public var isNumeric: Bool {
        switch valueKind {
        case .integer, .double, .decimal: return true
        default: return false
        }
    }

    /// Whether the type is one of the integer types.
    public var isInteger: Bool { valueKind == .integer }
}

extension AttributeType {
    /// The kind of ``PropertyValue`` an attribute of this type holds.
    package var valueKind: ValueKind {
        switch self {
        case .integer16, .integer32, .integer64: return .integer
        case .double, .float: return .double
        case .decimal: return .decimal
        case .string: return .string
        case .boolean: return .boolean
        case .date: return .date
        case .binaryData, .transformable: return .data
        case .uuid: return .uuid
        case .uri: return .uri
        }
    }

    /// The values an integer type holds (nil for the other types): a value outside is
    /// refused, never wrapped.
    package var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        case .integer64: return Int64.min...Int64.max
        default: return nil
        }
    }

    /// Whether the type keeps single precision: its values are rounded to `Float` when
    /// they are set, read from a file or parsed, and held as a `Double` otherwise.
    package var isSinglePrecision: Bool { self == .float }

    /// Whether `minLength` and `maxLength` apply (strings in characters, data in bytes).
    package var hasLength: Bool { self == .string || self == .binaryData }

    /// The name Xcode's model editor writes for the type (`attributeType="Integer 16"`).
    package var xcodeName: String {
        switch self {
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer64: return "Integer 64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Boolean"
        case .date: return "Date"
        case .binaryData: return "Binary"
        case .transformable: return "Transformable"
        case .uuid: return "UUID"
        case .uri: return "URI"
        }
    }

    /// The Swift type generated code declares for the attribute (`strata codegen`).
    package var swiftTypeName: String {
        switch self {
        case .integer16: return "Int16"
        case .integer32: return "Int32"
        case .integer64: return "Int64"
        case .float: return "Float"
        case .double: return "Double"
        case .decimal: return "Decimal"
        case .string: return "String"
        case .boolean: return "Bool"
        case .date: return "Date"
        case .binaryData, .transformable: return "Data"
        case .uuid: return "UUID"
        case .uri: return "URL"
        }
    }
}
