import Foundation

/// A Swift type that converts to and from ``PropertyValue``, for typed attribute access.
public protocol PropertyValueConvertible {
    /// The value in storage form.
    var propertyValue: PropertyValue { get }
    /// The Swift value for a stored value; `null` gives the type's zero value or nil.
    init(propertyValue: PropertyValue)
}

extension Int64: PropertyValueConvertible {
    /// `.integer`.
    public var propertyValue: PropertyValue { .integer(self) }
    /// From any numeric value; 0 for null.
    public init(propertyValue: PropertyValue) {
        switch propertyValue {
        case .integer(let value): self = value
        default: self = Int64(exactly: (propertyValue.numericValue ?? 0).rounded(.towardZero)) ?? 0
        }
    }
}

extension Int: PropertyValueConvertible {
    /// `.integer`.
    public var propertyValue: PropertyValue { .integer(Int64(self)) }
    /// From any numeric value; 0 for null.
    public init(propertyValue: PropertyValue) { self = Int(Int64(propertyValue: propertyValue)) }
}

extension Int32: PropertyValueConvertible {
    /// `.integer`.
    public var propertyValue: PropertyValue { .integer(Int64(self)) }
    /// From any numeric value; 0 for null.
    public init(propertyValue: PropertyValue) { self = Int32(truncatingIfNeeded: Int64(propertyValue: propertyValue)) }
}

extension Int16: PropertyValueConvertible {
    /// `.integer`.
    public var propertyValue: PropertyValue { .integer(Int64(self)) }
    /// From any numeric value; 0 for null.
    public init(propertyValue: PropertyValue) { self = Int16(truncatingIfNeeded: Int64(propertyValue: propertyValue)) }
}

extension Double: PropertyValueConvertible {
    /// `.double`.
    public var propertyValue: PropertyValue { .double(self) }
    /// From any numeric value; 0 for null.
    public init(propertyValue: PropertyValue) { self = propertyValue.numericValue ?? 0 }
}

extension Float: PropertyValueConvertible {
    /// `.double`.
    public var propertyValue: PropertyValue { .double(Double(self)) }
    /// From any numeric value; 0 for null.
    public init(propertyValue: PropertyValue) { self = Float(propertyValue.numericValue ?? 0) }
}

extension Decimal: PropertyValueConvertible {
    /// `.decimal`.
    public var propertyValue: PropertyValue { .decimal(self) }
    /// From any numeric value; 0 for null.
    public init(propertyValue: PropertyValue) {
        switch propertyValue {
        case .decimal(let value): self = value
        case .integer(let value): self = Decimal(value)
        default: self = Decimal(propertyValue.numericValue ?? 0)
        }
    }
}

extension String: PropertyValueConvertible {
    /// `.string`.
    public var propertyValue: PropertyValue { .string(self) }
    /// The string; "" for null or another type.
    public init(propertyValue: PropertyValue) {
        if case .string(let value) = propertyValue { self = value } else { self = "" }
    }
}

extension Bool: PropertyValueConvertible {
    /// `.boolean`.
    public var propertyValue: PropertyValue { .boolean(self) }
    /// True for `.boolean(true)` or a non-zero number.
    public init(propertyValue: PropertyValue) {
        if case .boolean(let value) = propertyValue { self = value } else { self = (propertyValue.numericValue ?? 0) != 0 }
    }
}

extension Date: PropertyValueConvertible {
    /// `.date`.
    public var propertyValue: PropertyValue { .date(self) }
    /// The date; the 1970 reference date for null.
    public init(propertyValue: PropertyValue) {
        if case .date(let value) = propertyValue { self = value } else { self = Date(timeIntervalSince1970: 0) }
    }
}

extension Data: PropertyValueConvertible {
    /// `.data`.
    public var propertyValue: PropertyValue { .data(self) }
    /// The bytes; empty for null.
    public init(propertyValue: PropertyValue) {
        if case .data(let value) = propertyValue { self = value } else { self = Data() }
    }
}

extension UUID: PropertyValueConvertible {
    /// `.uuid`.
    public var propertyValue: PropertyValue { .uuid(self) }
    /// The UUID; the all-zero UUID for null.
    public init(propertyValue: PropertyValue) {
        if case .uuid(let value) = propertyValue { self = value } else { self = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    }
}

extension URL: PropertyValueConvertible {
    /// `.uri`.
    public var propertyValue: PropertyValue { .uri(self) }
    /// The URL; `about:blank` for null.
    public init(propertyValue: PropertyValue) {
        if case .uri(let value) = propertyValue { self = value } else { self = URL(string: "about:blank")! }
    }
}

extension Optional: PropertyValueConvertible where Wrapped: PropertyValueConvertible {
    /// The wrapped value's, or `.null`.
    public var propertyValue: PropertyValue { self?.propertyValue ?? .null }
    /// nil for `.null`.
    public init(propertyValue: PropertyValue) {
        self = propertyValue.isNull ? nil : Wrapped(propertyValue: propertyValue)
    }
}

/// A Codable value stored in a Transformable attribute as JSON.
///
/// ```swift
/// static let tags = AttributeKey<Transformed<[String]>>("tags")
/// ```
public struct Transformed<Value: Codable & Sendable>: PropertyValueConvertible, Sendable {
    /// The decoded value, nil when null or undecodable.
    public var value: Value?
    /// Wraps a value.
    public init(_ value: Value?) { self.value = value }
    /// `.data` of the JSON encoding, or `.null`.
    public var propertyValue: PropertyValue {
        guard let value, let data = try? Self.encoder.encode(value) else { return .null }
        return .data(data)
    }
    /// Decodes `.data` as JSON.
    public init(propertyValue: PropertyValue) {
        if case .data(let data) = propertyValue { value = try? JSONDecoder().decode(Value.self, from: data) } else { value = nil }
    }
    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
