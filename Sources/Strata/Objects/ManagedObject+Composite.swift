import Foundation

/// A typed name for a composite attribute, with typed keys for its elements.
///
/// ```swift
/// static let address = CompositeKey("address")
/// static let city = address.element("city", as: String?.self)   // AttributeKey<String?>("address.city")
/// try person.setCompositeValue(["city": "Oslo", "zip": "0150"], for: Self.address)
/// person[Self.city]                                              // "Oslo"
/// ```
public struct CompositeKey: Sendable {
    /// The composite attribute's name.
    public let name: String
    /// Creates a key.
    public init(_ name: String) { self.name = name }

    /// The typed key of one element (its stored key is `composite.element`).
    public func element<Value>(_ element: String, as type: Value.Type = Value.self) -> AttributeKey<Value> {
        AttributeKey(name + "." + element)
    }

    /// The key of a composite nested in this one (`address.composite("geo")` names
    /// `address.geo`, whose elements are `address.geo.lat`, …).
    public func composite(_ name: String) -> CompositeKey { CompositeKey(self.name + "." + name) }
}

extension ManagedObject {
    /// A composite attribute's value as one dictionary of its elements (every element is a
    /// key; an unset element is `.null`), or nil when every element is NULL, as Core Data
    /// reads such a composite. A nested composite's elements are keys by their path inside
    /// this one (`geo.lat`); `key` may name a nested composite by its path (`address.geo`).
    /// Fires the fault.
    ///
    /// ```swift
    /// try person.compositeValue(forKey: "address")?["city"]      // .string("Oslo")
    /// try person.compositeValue(forKey: "address")?["geo.lat"]   // .double(59.9)
    /// try person.compositeValue(forKey: "address.geo")?["lat"]   // .double(59.9)
    /// ```
    /// - Throws: `.unknownKey` when the entity has no composite attribute of that name.
    public func compositeValue(forKey key: String) throws -> [String: PropertyValue]? {
        let composite = try compositeDescription(key)
        var result: [String: PropertyValue] = [:]
        var allNull = true
        for element in composite.storedElements {
            let value = try value(forKey: element.name)
            if !value.isNull { allNull = false }
            result[String(element.name.dropFirst(composite.name.count + 1))] = value
        }
        return allNull ? nil : result
    }

    /// Replaces a composite attribute's whole value: every element takes the dictionary's
    /// value for it, and an element the dictionary leaves out becomes NULL (nil sets every
    /// element to NULL). The elements are checked first, so a bad value changes nothing;
    /// the change is one undo step. Optionality and the elements' other constraints are
    /// checked at save, like any attribute's.
    ///
    /// ```swift
    /// try person.setCompositeValue(["city": "Oslo", "zip": "0150"], forKey: "address")
    /// try person.setCompositeValue(["lat": 59.9, "lon": 10.7], forKey: "address.geo")   // a nested composite alone
    /// ```
    /// A nested composite's elements are keys by their path inside this one (`geo.lat`).
    /// - Throws: `.unknownKey` for an unknown composite or element (naming both),
    ///   `.typeMismatch` naming the element and the type it expects.
    public func setCompositeValue(_ value: [String: PropertyValue]?, forKey key: String) throws {
        let composite = try compositeDescription(key)
        let values = value ?? [:]
        let stored = composite.storedElements
        let relative = stored.map { String($0.name.dropFirst(composite.name.count + 1)) }
        let known = Set(relative)
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw StrataError(
                .unknownKey,
                "Composite attribute '\(entity.name).\(key)' has no element '\(unknown)' (elements: \(relative.joined(separator: ", "))).",
                context: .init { $0.entity = entity.name; $0.key = composite.elementKey(unknown) })
        }
        var checked: [(key: String, value: PropertyValue)] = []
        for (element, name) in zip(stored, relative) {
            let elementValue = values[name] ?? .null
            guard ModelValueRules.coerce(elementValue, to: element.attributeType) != nil else {
                throw StrataError(
                    .typeMismatch,
                    "\(entity.name).\(element.name) (element \(input: name) of composite attribute \(input: key)) is \(element.attributeType.rawValue); got \(ModelValueRules.kindName(elementValue)) \(elementValue).",
                    context: .init { $0.entity = entity.name; $0.key = element.name })
            }
            checked.append((element.name, elementValue))
        }
        for (elementKey, elementValue) in checked {
            try setValue(elementValue, forKey: elementKey)
        }
    }

    /// A composite attribute's value by typed key; see ``compositeValue(forKey:)``.
    public func compositeValue(for key: CompositeKey) throws -> [String: PropertyValue]? {
        try compositeValue(forKey: key.name)
    }

    /// Sets a composite attribute's value by typed key; see ``setCompositeValue(_:forKey:)``.
    public func setCompositeValue(_ value: [String: PropertyValue]?, for key: CompositeKey) throws {
        try setCompositeValue(value, forKey: key.name)
    }

    private func compositeDescription(_ key: String) throws -> CompositeAttributeDescription {
        guard let composite = entity.composite(named: key) else {
            let names = entity.composites.map(\.name)
            throw StrataError(
                .unknownKey,
                "Entity '\(entity.name)' has no composite attribute \(input: key)"
                    + (names.isEmpty ? "." : " (composites: \(names.joined(separator: ", ")))."),
                context: .init { $0.entity = entity.name; $0.key = key })
        }
        return composite
    }
}

/// A composite attribute seen by a predicate or sort: `address.city` reads the element
/// `city` of the subject's composite `address`.
struct CompositePredicateSubject: PredicateSubject {
    let base: any PredicateSubject
    let entityName: String
    let composite: CompositeAttributeDescription

    func predicateValue(forKey key: String) throws -> PredicateResolved {
        if let nested = composite.nested(named: key) {
            return try CompositePredicateSubject(base: base, entityName: entityName, composite: nested).resolved()
        }
        guard composite.elements.contains(where: { $0.name == key }) else {
            let names = composite.elements.map(\.name) + composite.composites.map(\.name)
            throw StrataError(
                .unknownKey,
                "Composite attribute '\(entityName).\(composite.name)' has no element \(input: key) (elements: \(names.joined(separator: ", "))).",
                context: .init { $0.entity = entityName; $0.key = composite.elementKey(key) })
        }
        return try base.predicateValue(forKey: composite.elementKey(key))
    }

    /// The composite as a predicate reads it: nil when every element (nested ones
    /// included) is NULL (Core Data's nil composite, so `address == nil` holds), else the
    /// composite.
    func resolved() throws -> PredicateResolved {
        for element in composite.storedElements {
            if case .value(let value) = try base.predicateValue(forKey: element.name), value == .null { continue }
            return .object(self)
        }
        return .object(nil)
    }

    /// A composite is a value, not an object: comparing it by identity is an error.
    var predicateObjectID: ManagedObjectID? { nil }

    /// The subject for `key` when it names a composite of `entity`, else nil.
    static func subject(_ base: any PredicateSubject, entity: EntityDescription, key: String) -> CompositePredicateSubject? {
        guard !entity.composites.isEmpty, let composite = entity.composite(named: key) else { return nil }
        return CompositePredicateSubject(base: base, entityName: entity.name, composite: composite)
    }
}
