import Foundation

/// A Swift struct that is stored as a composite attribute (Core Data's
/// `NSCompositeAttributeDescription`): each stored `var` of the struct is one element.
/// StrataModels' `@Composite` macro writes the conformance; a property of an `@Entity`
/// class whose type is such a struct (optional: `var address: Address?`) is a composite
/// attribute of the entity, the same as a JSON model's `composites` entry
/// (docs/MODEL-FORMAT.md §3a).
///
/// ```swift
/// @Composite struct Address {
///     var city: String
///     var zip: String?
/// }
/// // expands to an extension declaring the elements and the conversions:
/// extension Address: CompositeValue {
///     static var compositeDeclaration: CompositeDeclaration {
///         CompositeDeclaration(typeName: "Address", elements: [
///             .element("city", \Address.city), .element("zip", \Address.zip)])
///     }
///     init(compositeElements elements: CompositeElements) throws { … }
///     var compositeElements: CompositeElements { … }
/// }
/// ```
public protocol CompositeValue {
    /// The elements in declaration order, with their Swift types and defaults.
    static var compositeDeclaration: CompositeDeclaration { get }
    /// Makes the value from the composite's stored elements.
    /// - Throws: `StrataError(.typeMismatch)` naming the element when a stored value is not
    ///   one of the element's type.
    init(compositeElements elements: CompositeElements) throws
    /// The value's elements as they are stored.
    var compositeElements: CompositeElements { get }
}

/// The elements of a ``CompositeValue`` type, as `@Composite` declares them.
public struct CompositeDeclaration: Sendable {
    /// The Swift type's name, kept as the composite's ``CompositeAttributeDescription/typeName``.
    public var typeName: String
    /// The elements, in declaration order.
    public var elements: [CompositeElementDeclaration]

    /// Creates a declaration; the `@Composite` macro calls this.
    public init(typeName: String, elements: [CompositeElementDeclaration]) {
        self.typeName = typeName
        self.elements = elements
    }
}

/// One stored `var` of a `@Composite` struct: its name, Swift type, initial value and
/// what its `@Attribute(…)` annotation says.
public struct CompositeElementDeclaration: Sendable {
    /// The element's name in the composite.
    public let name: String
    /// The Swift type declared.
    let valueType: Any.Type
    /// The initial value, which is the element's default in the model.
    let initialValue: InitialValue?
    /// The element's settings, as `@Attribute` gave them (`derivation` is never set).
    let settings: PropertyDeclaration.AttributeSettings

    /// An element of type `Value`; `defaultValue` is the declaration's initial value, the
    /// rest what the element's `@Attribute(…)` says (as for an entity's attribute).
    public static func element<Root, Value>(
        _ name: String, _ keyPath: KeyPath<Root, Value>, defaultValue: Value? = nil, _ options: AttributeOption...,
        originalName: String? = nil, minValue: PropertyValue? = nil, maxValue: PropertyValue? = nil,
        minLength: Int? = nil, maxLength: Int? = nil, regularExpression: String? = nil
    ) -> CompositeElementDeclaration {
        CompositeElementDeclaration(
            name: name, valueType: Value.self, initialValue: defaultValue.map { InitialValue($0) },
            settings: .init(options: options, originalName: originalName, minValue: minValue, maxValue: maxValue,
                            minLength: minLength, maxLength: maxLength, regularExpression: regularExpression))
    }
}

/// A composite's stored elements by name, nested composites' elements by their path
/// inside it (`geo.lat`): the dictionary of ``ManagedObject/compositeValue(forKey:)``, with
/// the conversions `@Composite`'s generated members use.
public struct CompositeElements: Sendable, Hashable {
    /// The stored values; a missing element is null.
    public var values: [String: PropertyValue]

    /// Wraps stored element values.
    public init(_ values: [String: PropertyValue] = [:]) {
        self.values = values
    }

    /// The element `key` as a `Value`. A null in a non-optional element of a number,
    /// string, Boolean or other plain type reads as that type's null value (0, "", false),
    /// as a declared property does; a nested composite is made from its elements.
    /// - Throws: `StrataError(.typeMismatch)` naming the element when the stored value is
    ///   not a `Value` (or a non-optional element of another type is null).
    public func value<Value>(forKey key: String) throws -> Value {
        guard let (storage, isOptional) = DeclaredValueType.of(Value.self) else {
            throw StrataError(.typeMismatch, "element '\(key)': \(Value.self) cannot be stored in a composite")
        }
        let made: Any?
        switch storage {
        case .attribute(_, let conversion):
            do {
                made = try conversion.checkedValue(of: values[key] ?? .null)
            } catch {
                throw StrataError(.typeMismatch, "element '\(key)' does not hold a \(Value.self): \(Self.reason(error))")
            }
        case .composite(let type):
            let nested = nestedValues(key)
            made = isOptional && nested.values.values.allSatisfy(\.isNull) ? nil : try type.init(compositeElements: nested)
        case .toOne, .toMany:
            throw StrataError(.typeMismatch, "element '\(key)': a composite holds no relationship (\(Value.self))")
        }
        if let made, let value = made as? Value { return value }
        if made == nil {
            if let optional = Value.self as? any OptionalValue.Type, let none = optional.nilValue as? Value { return none }
            if let convertible = Value.self as? PropertyValueConvertible.Type,
               let zero = convertible.init(propertyValue: .null) as? Value { return zero }
        }
        throw StrataError(.typeMismatch, "element '\(key)' holds no \(Value.self) (it is null)")
    }

    /// Sets the element `key` to `value`'s stored form (a nested composite's elements by
    /// their path; nil makes them null).
    public mutating func setValue<Value>(_ value: Value, forKey key: String) {
        guard let storage = DeclaredValueType.of(Value.self)?.storage else { return }
        let present: Any? = (value as? any OptionalValue).map { $0.wrapped.map(Self.unwrapped) } ?? value
        switch storage {
        case .attribute(_, let conversion):
            values[key] = present.map(conversion.propertyValue(of:)) ?? .null
        case .composite:
            guard let nested = present as? any CompositeValue else { return }
            for (element, stored) in nested.compositeElements.values { values[key + "." + element] = stored }
        case .toOne, .toMany:
            return
        }
    }

    /// The elements of the nested composite `key`, by their path inside it.
    private func nestedValues(_ key: String) -> CompositeElements {
        let prefix = key + "."
        var nested: [String: PropertyValue] = [:]
        for (path, value) in values where path.hasPrefix(prefix) { nested[String(path.dropFirst(prefix.count))] = value }
        return CompositeElements(nested)
    }

    private static func unwrapped(_ value: Any) -> Any {
        if let optional = value as? any OptionalValue, let wrapped = optional.wrapped { return unwrapped(wrapped) }
        return value
    }

    private static func reason(_ error: any Error) -> String {
        (error as? StrataError)?.message ?? "\(error)"
    }
}
