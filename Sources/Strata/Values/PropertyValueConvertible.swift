import Foundation

/// A Swift type that converts to and from ``PropertyValue``, for typed attribute access.
public protocol PropertyValueConvertible {
    /// The value in storage form.
    var propertyValue: PropertyValue { get }
    /// The Swift value for a stored value; `null` gives the type's zero value or nil.
    init(propertyValue: PropertyValue)
    /// The Swift value for a stored value, or an error when the stored value cannot be
    /// one (a ``Transformed`` value whose JSON does not decode). By default
    /// ``init(propertyValue:)``, which cannot fail.
    /// - Throws: why the value cannot be read; the typed accessors add the object and key.
    init(checking propertyValue: PropertyValue) throws
    /// The value in storage form, or an error when it has none (a ``Transformed`` value
    /// that does not encode). By default ``propertyValue``.
    /// - Throws: why the value cannot be stored.
    func checkedPropertyValue() throws -> PropertyValue
}

extension PropertyValueConvertible {
    /// ``init(propertyValue:)``: a conversion that cannot fail.
    public init(checking propertyValue: PropertyValue) throws { self.init(propertyValue: propertyValue) }
    /// ``propertyValue``: a conversion that cannot fail.
    public func checkedPropertyValue() throws -> PropertyValue { propertyValue }
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
    /// nil for `.null`, otherwise the wrapped type's checked conversion.
    public init(checking propertyValue: PropertyValue) throws {
        self = propertyValue.isNull ? nil : try Wrapped(checking: propertyValue)
    }
    /// `.null`, or the wrapped value's checked conversion.
    public func checkedPropertyValue() throws -> PropertyValue {
        try self?.checkedPropertyValue() ?? .null
    }
}

/// A Codable value stored in a Transformable attribute as JSON (UTF-8, keys sorted), so
/// that the snapshot's column reads as JSON in `sqlite3`
/// (`SELECT json_extract(CAST(tags AS TEXT), '$[0]') …`).
///
/// ```swift
/// static let tags = AttributeKey<Transformed<[String]>>("tags")
/// ```
///
/// A stored value that does not decode as `Value` (the type changed, the bytes are not
/// JSON) is an error naming the object and key, never a silent nil: the throwing accessor
/// ``ManagedObject/value(for:)`` throws it, and the typed subscript records it for the next
/// save (``ManagedObjectContext/typedAccessErrors``; docs/SEMANTICS.md, "Typed access").
public struct Transformed<Value: Codable & Sendable>: PropertyValueConvertible, Sendable {
    /// The decoded value, nil when null.
    public var value: Value?
    /// Wraps a value.
    public init(_ value: Value?) { self.value = value }
    /// `.data` of the JSON encoding, or `.null` (also for a value that does not encode:
    /// ``checkedPropertyValue()`` says why).
    public var propertyValue: PropertyValue {
        (try? checkedPropertyValue()) ?? .null
    }
    /// Decodes `.data` as JSON; nil for null or for bytes that do not decode (the
    /// unchecked conversion: ``init(checking:)`` says why).
    public init(propertyValue: PropertyValue) {
        value = (try? Self(checking: propertyValue))?.value
    }
    /// Decodes `.data` (or a string) as JSON; nil for null.
    /// - Throws: the decoder's error for bytes that are not `Value`'s JSON; `.typeMismatch`
    ///   for a stored value of another kind.
    public init(checking propertyValue: PropertyValue) throws {
        switch propertyValue {
        case .null: value = nil
        case .data(let data): value = try JSONDecoder().decode(Value.self, from: data)
        case .string(let text): value = try JSONDecoder().decode(Value.self, from: Data(text.utf8))
        default:
            throw StrataError(.typeMismatch, "A Transformed<\(Value.self)> reads JSON data, not \(withArticle(ModelValueRules.kindName(propertyValue))).")
        }
    }
    /// `.data` of the JSON encoding, or `.null` for nil.
    /// - Throws: the encoder's error for a value JSON cannot hold (a non-finite double).
    public func checkedPropertyValue() throws -> PropertyValue {
        guard let value else { return .null }
        return .data(try Self.encoder.encode(value))
    }
    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
