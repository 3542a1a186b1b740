import Foundation

/// How a Swift property type declared on an `@Entity` class is stored: an attribute of some
/// type, a composite attribute, a to-one or a to-many relationship. Worked out at run time from the type itself
/// (the macro sees only the type's spelling, which cannot tell an enum from a struct or a
/// class from either), once when the model is built and again on each access.
enum DeclaredValueType {
    /// How an attribute's Swift value becomes a ``PropertyValue`` and back.
    enum Conversion {
        /// One of the types ``PropertyValueConvertible`` knows (`Int64`, `String`, `Date`, …).
        case convertible(PropertyValueConvertible.Type)
        /// An enum (or any `RawRepresentable`) stored as its raw value.
        case rawValue(any RawRepresentable.Type)
        /// A `Codable` value stored as JSON in a transformable attribute (as ``Transformed``).
        case codable(any Codable.Type)
    }

    case attribute(AttributeType, Conversion)
    /// A `@Composite` struct: a composite attribute (docs/MODEL-FORMAT.md §3a).
    case composite(any CompositeValue.Type)
    case toOne(ManagedObject.Type)
    case toMany(ManagedObject.Type, isOrdered: Bool)

    /// The storage of `type` and whether it is optional; nil when Strata cannot store it.
    static func of(_ type: Any.Type) -> (storage: DeclaredValueType, isOptional: Bool)? {
        if let optional = type as? any OptionalValue.Type {
            return of(optional.declaredWrappedType).flatMap { $0.isOptional ? nil : ($0.storage, true) }
        }
        return storage(of: type).map { ($0, false) }
    }

    private static func storage(of type: Any.Type) -> DeclaredValueType? {
        if let object = type as? ManagedObject.Type { return .toOne(object) }
        if let collection = type as? any ObjectCollection.Type {
            return .toMany(collection.elementType, isOrdered: collection.isOrdered)
        }
        if let composite = type as? any CompositeValue.Type { return .composite(composite) }
        if let known = attributeType(of: type), let convertible = type as? PropertyValueConvertible.Type {
            return .attribute(known, .convertible(convertible))
        }
        if let raw = type as? any RawRepresentable.Type, let rawType = rawAttributeType(raw) {
            return .attribute(rawType, .rawValue(raw))
        }
        if let codable = type as? any Codable.Type { return .attribute(.transformable, .codable(codable)) }
        return nil
    }

    /// The attribute type of a type ``PropertyValueConvertible`` converts without loss.
    static func attributeType(of type: Any.Type) -> AttributeType? {
        switch type {
        case is Int64.Type, is Int.Type: .integer64
        case is Int32.Type: .integer32
        case is Int16.Type: .integer16
        case is Double.Type: .double
        case is Float.Type: .float
        case is Decimal.Type: .decimal
        case is String.Type: .string
        case is Bool.Type: .boolean
        case is Date.Type: .date
        case is Data.Type: .binaryData
        case is UUID.Type: .uuid
        case is URL.Type: .uri
        default: nil
        }
    }

    private static func rawAttributeType<Raw: RawRepresentable>(_ type: Raw.Type) -> AttributeType? {
        attributeType(of: Raw.RawValue.self)
    }
}

extension DeclaredValueType.Conversion {
    /// The stored form of a (non-nil) Swift value.
    func propertyValue(of value: Any) -> PropertyValue {
        switch self {
        case .convertible:
            return (value as? PropertyValueConvertible)?.propertyValue ?? .null
        case .rawValue:
            guard let raw = value as? any RawRepresentable else { return .null }
            return (raw.rawValue as? PropertyValueConvertible)?.propertyValue ?? .null
        case .codable:
            // The same JSON as ``Transformed`` writes, so either reads the other's values.
            guard let encodable = value as? any Encodable else { return .null }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return (try? encoder.encode(encodable)).map { .data($0) } ?? .null
        }
    }

    /// The Swift value of a stored value; nil for null or a value the type cannot hold.
    func value(of stored: PropertyValue) -> Any? {
        try? checkedValue(of: stored)
    }

    /// The Swift value of a stored value; nil for null.
    /// - Throws: the decoder's error for JSON that does not decode as the Codable type, or
    ///   `.typeMismatch` for another stored value the type cannot hold (a raw value no
    ///   case of the enum has).
    func checkedValue(of stored: PropertyValue) throws -> Any? {
        if stored.isNull { return nil }
        let made: Any?
        switch self {
        case .convertible(let type): made = type.init(propertyValue: stored)
        case .rawValue(let type): made = Self.make(type, from: stored)
        case .codable(let type):
            guard case .data(let data) = stored else { made = nil; break }
            return try Self.decode(type, from: data)
        }
        guard let made else {
            throw StrataError(.typeMismatch, "the stored value \(stored) is not one")
        }
        return made
    }

    private static func make<Raw: RawRepresentable>(_ type: Raw.Type, from stored: PropertyValue) -> Raw? {
        guard let rawType = Raw.RawValue.self as? PropertyValueConvertible.Type,
              let raw = rawType.init(propertyValue: stored) as? Raw.RawValue else { return nil }
        return Raw(rawValue: raw)
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try JSONDecoder().decode(Value.self, from: data)
    }
}

/// Lets the run-time check see through `Optional` to the wrapped type, and make a nil of
/// a type known only at run time.
protocol OptionalValue {
    static var declaredWrappedType: Any.Type { get }
    static var nilValue: Self { get }
    var wrapped: Any? { get }
    var isNone: Bool { get }
}

extension Optional: OptionalValue {
    static var declaredWrappedType: Any.Type { Wrapped.self }
    static var nilValue: Self { nil }
    var wrapped: Any? { self.map { $0 } }
    var isNone: Bool { self == nil }
}

/// The Swift types a to-many relationship can be declared as: `Set` (unordered) and
/// `Array` (ordered) of objects.
protocol ObjectCollection {
    static var elementType: ManagedObject.Type { get }
    static var isOrdered: Bool { get }
    var objectIDs: [ManagedObjectID] { get }
    init?(objects: [ManagedObject])
}

extension Array: ObjectCollection where Element: ManagedObject {
    static var elementType: ManagedObject.Type { Element.self }
    static var isOrdered: Bool { true }
    var objectIDs: [ManagedObjectID] { map(\.objectID) }
    init?(objects: [ManagedObject]) { self = objects.compactMap { $0 as? Element } }
}

extension Set: ObjectCollection where Element: ManagedObject {
    static var elementType: ManagedObject.Type { Element.self }
    static var isOrdered: Bool { false }
    var objectIDs: [ManagedObjectID] { map(\.objectID) }
    init?(objects: [ManagedObject]) { self = Set(objects.compactMap { $0 as? Element }) }
}
