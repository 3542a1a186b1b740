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
/// A composite may hold other composites among its elements (Core Data allows it too):
/// their elements are stored the same way, one level deeper (`address.geo.lat`).
///
/// ```swift
/// let address = CompositeAttributeDescription("address", elements: [
///     AttributeDescription("city", .string, isOptional: false),
///     AttributeDescription("zip", .string),
/// ], composites: [
///     CompositeAttributeDescription("geo", elements: [AttributeDescription("lat", .double), AttributeDescription("lon", .double)]),
/// ])
/// let person = EntityDescription("Person", composites: [address])
/// ```
public struct CompositeAttributeDescription: Sendable, Hashable {
    /// The composite's name, unique among the entity's properties.
    public var name: String
    /// The elements, in declaration order; each has its own type, optionality and default.
    public var elements: [AttributeDescription]
    /// The composites nested among the elements (`geo` of `address`), stored after
    /// ``elements``.
    public var composites: [CompositeAttributeDescription]
    /// The name of the type the Xcode model declares it with (`<composite name="Address">`),
    /// when it was read from one (informational).
    public var typeName: String?
    /// Free-form information for the application.
    public var userInfo: [String: String]

    /// Creates a composite attribute description.
    public init(_ name: String, elements: [AttributeDescription], composites: [CompositeAttributeDescription] = [],
                typeName: String? = nil, userInfo: [String: String] = [:]) {
        self.name = name
        self.elements = elements
        self.composites = composites
        self.typeName = typeName
        self.userInfo = userInfo
    }

    /// The key of one element as the entity stores it: `address.city`.
    public func elementKey(_ element: String) -> String { name + "." + element }

    /// The elements as the entity's stored attributes, named `composite.element`, then the
    /// nested composites' (`composite.nested.element`), depth first. Each names the
    /// outermost composite as its ``AttributeDescription/compositeName``.
    public var storedElements: [AttributeDescription] {
        var stored = elements.map { element in
            var stored = element
            stored.name = elementKey(element.name)
            stored.compositeName = name
            return stored
        }
        for nested in composites {
            for var element in nested.storedElements {
                element.name = elementKey(element.name)
                element.compositeName = name
                stored.append(element)
            }
        }
        return stored
    }

    /// The nested composite `name`, named by its whole path (`address.geo`) so that its
    /// ``elementKey(_:)`` and ``storedElements`` give the entity's stored keys.
    func nested(named name: String) -> CompositeAttributeDescription? {
        guard var found = composites.first(where: { $0.name == name }) else { return nil }
        found.name = elementKey(found.name)
        return found
    }

    /// Problems with the declaration itself (the model reports them with the entity).
    func declarationProblems(path: String? = nil) -> [String] {
        let path = path ?? name
        var problems: [String] = []
        if name.contains(".") { problems.append("a composite attribute's name cannot contain '.' (a nested composite is declared among the composite's composites)") }
        if elements.isEmpty && composites.isEmpty { problems.append("composite attribute '\(path)' has no elements") }
        var seen: Set<String> = []
        for nested in composites {
            if nested.name.isEmpty {
                problems.append("a composite nested in composite attribute '\(path)' needs a name")
            } else if !seen.insert(nested.name).inserted {
                problems.append("element '\(nested.name)' of composite attribute '\(path)' is declared twice")
            }
            problems += nested.declarationProblems(path: path + "." + nested.name)
        }
        for element in elements {
            let name = path
            if element.name.isEmpty {
                problems.append("an element of composite attribute '\(name)' needs a name")
            } else if element.name.contains(".") {
                problems.append("element '\(element.name)' of composite attribute '\(name)' cannot contain '.' (declare a nested composite instead)")
            } else if !seen.insert(element.name).inserted {
                problems.append("element '\(element.name)' of composite attribute '\(name)' is declared twice")
            }
            if element.isTransient {
                problems.append("element '\(element.name)' of composite attribute '\(path)' cannot be transient: a composite is stored as a whole")
            }
        }
        return problems
    }
}

extension EntityDescription {
    /// The composite attribute with the given name (own or inherited), or nil; a dotted
    /// path (`address.geo`) names a nested composite, which comes back named by that path.
    public func composite(named name: String) -> CompositeAttributeDescription? {
        guard !composites.isEmpty else { return nil }
        guard name.contains(".") else { return composites.first { $0.name == name } }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard var current = composites.first(where: { $0.name == parts[0] }) else { return nil }
        for part in parts.dropFirst() {
            guard let next = current.nested(named: part) else { return nil }
            current = next
        }
        return current
    }

    /// The stored key `keys[start...]` begins with when `keys[start]` names a composite of
    /// this entity and the next keys lead through nested composites to an element, or to a
    /// nested composite (`address.geo`); and how many keys it took.
    func compositeKey(in keys: [String], from start: Int) -> (key: String, count: Int)? {
        guard !composites.isEmpty, start + 1 < keys.count, var composite = composite(named: keys[start]) else { return nil }
        var position = start + 1
        while position < keys.count {
            let key = keys[position]
            if composite.elements.contains(where: { $0.name == key }) { return (composite.elementKey(key), position - start + 1) }
            guard let nested = composite.nested(named: key) else { break }
            composite = nested
            position += 1
        }
        return position > start + 1 ? (composite.name, position - start) : nil
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
            if let entity = current, let (joined, count) = entity.compositeKey(in: keys, from: position) {
                result.append(joined)
                position += count
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
