import Foundation

/// A composite attribute (Core Data's `NSCompositeAttributeDescription`, iOS 17): a named
/// group of typed elements read and written as one structured value.
///
/// Strata stores a composite as its elements: each element is an ordinary stored
/// attribute of the entity named `composite.element` (`address.city`), with its own slot,
/// snapshot column, log changes and validation. So a composite needs no new segment
/// format, and predicates, sorts and key-value coding reach an element with the same key
/// path Core Data uses (docs/SEMANTICS.md, "Composite attributes").
///
/// ```swift
/// let address = CompositeAttributeDescription("address", elements: [
///     AttributeDescription("city", .string, isOptional: false),
///     AttributeDescription("zip", .string),
/// ])
/// let person = EntityDescription("Person", composites: [address])
/// ```
public struct CompositeAttributeDescription: Sendable, Hashable {
    /// The composite's name, unique among the entity's properties.
    public var name: String
    /// The elements, in declaration order; each has its own type, optionality and default.
    public var elements: [AttributeDescription]
    /// The name of the type the Xcode model declares it with (`<composite name="Address">`),
    /// when it was read from one (informational).
    public var typeName: String?
    /// Free-form information for the application.
    public var userInfo: [String: String]

    /// Creates a composite attribute description.
    public init(_ name: String, elements: [AttributeDescription], typeName: String? = nil,
                userInfo: [String: String] = [:]) {
        self.name = name
        self.elements = elements
        self.typeName = typeName
        self.userInfo = userInfo
    }

    /// The key of one element as the entity stores it: `address.city`.
    public func elementKey(_ element: String) -> String { name + "." + element }

    /// The elements as the entity's stored attributes, named `composite.element`.
    public var storedElements: [AttributeDescription] {
        elements.map { element in
            var stored = element
            stored.name = elementKey(element.name)
            stored.compositeName = name
            return stored
        }
    }

    /// Problems with the declaration itself (the model reports them with the entity).
    func declarationProblems() -> [String] {
        var problems: [String] = []
        if name.contains(".") { problems.append("a composite attribute's name cannot contain '.'") }
        if elements.isEmpty { problems.append("composite attribute '\(name)' has no elements") }
        var seen: Set<String> = []
        for element in elements {
            if element.name.isEmpty {
                problems.append("an element of composite attribute '\(name)' needs a name")
            } else if element.name.contains(".") {
                problems.append("element '\(element.name)' of composite attribute '\(name)' cannot contain '.' (nested composites are not supported)")
            } else if !seen.insert(element.name).inserted {
                problems.append("element '\(element.name)' of composite attribute '\(name)' is declared twice")
            }
            if element.isTransient {
                problems.append("element '\(element.name)' of composite attribute '\(name)' cannot be transient: a composite is stored as a whole")
            }
        }
        return problems
    }
}

extension EntityDescription {
    /// The composite attribute with the given name (own or inherited), or nil.
    public func composite(named name: String) -> CompositeAttributeDescription? {
        composites.first { $0.name == name }
    }

    /// The stored key of `key.next` when `key` names a composite of this entity and `next`
    /// one of its elements: key paths join the two into one element key.
    func compositeElementKey(_ key: String, _ next: String) -> String? {
        guard !composites.isEmpty, let composite = composite(named: key),
              composite.elements.contains(where: { $0.name == next }) else { return nil }
        return composite.elementKey(next)
    }

    /// `keys` with each `composite, element` pair joined into the element's stored key,
    /// following relationships from this entity (a path without composites comes back as is).
    package func joiningCompositeKeys(_ keys: [String]) -> [String] {
        guard let model = _model, model.entities.contains(where: { !$0.composites.isEmpty }) else { return keys }
        var result: [String] = []
        var current: EntityDescription? = self
        var position = 0
        while position < keys.count {
            let key = keys[position]
            if let entity = current, position + 1 < keys.count,
               let joined = entity.compositeElementKey(key, keys[position + 1]) {
                result.append(joined)
                position += 2
                current = nil
                continue
            }
            result.append(key)
            current = current.flatMap { entity in
                entity.relationshipsByName[key].map { entity.destination(of: $0) }
            }
            position += 1
        }
        return result
    }
}
