import Foundation
import OrderedCollections

/// The value at the end of a key path: one value, or one per destination when the path
/// runs through a to-many relationship.
public enum KeyPathValue: Hashable, Sendable {
    /// A path through attributes and to-ones, or ending in a collection operator.
    case single(PropertyValue)
    /// A path through a to-many: the values of every destination, in order.
    case multiple([PropertyValue])

    /// The single value, or nil for a multiple one.
    public var value: PropertyValue? {
        if case .single(let value) = self { return value }
        return nil
    }
}

extension ManagedObject {
    /// The value of an attribute or relationship (relationships as object IDs).
    /// Fires the fault.
    /// - Throws: `.unknownKey` for a key the entity does not have.
    public func value(forKey key: String) throws -> PropertyValue {
        let slot = try slotIndex(forKey: key)
        try ensureLoaded()
        return storage[slot]
    }

    /// Sets an attribute or relationship by key; relationships keep their inverse
    /// consistent at once.
    ///
    /// ```swift
    /// try employee.setValue(.integer(60_000), forKey: "salary")
    /// try employee.setValue(.object(department.objectID), forKey: "department")
    /// ```
    /// - Throws: `.unknownKey`, or `.typeMismatch` naming the key and the expected type;
    ///   `.invalidArgument` for a derived attribute (computed when the context saves).
    public func setValue(_ value: PropertyValue, forKey key: String) throws {
        let slot = try slotIndex(forKey: key)
        try setValue(value, slot: slot)
    }

    func setValue(_ value: PropertyValue, slot: Int) throws {
        let context = try requireContext()
        try context.checkChangeCanRegisterUndo()
        try ensureLoaded()
        switch entity.slotKinds[slot] {
        case .attribute(let index):
            if entity.hasDerivedAttributes, entity.attributes[index].isDerived { throw derivedIsReadOnly(index) }
            // Not `let attribute = entity.attributes[index]`: copying the description
            // retains and releases its strings on every write.
            guard let coerced = ModelValueRules.coerce(value, to: entity.attributes[index].attributeType) else {
                let attribute = entity.attributes[index]
                throw StrataError(
                    .typeMismatch,
                    "\(entity.name).\(attribute.name) is \(attribute.attributeType.rawValue); got \(ModelValueRules.kindName(value)) \(value).",
                    context: .init { $0.entity = entity.name; $0.key = attribute.name })
            }
            context.setPrimitive(self, slot: slot, coerced)
        case .relationship(let index):
            let relationship = entity.relationships[index]
            let destination = entity.destination(of: relationship)
            for id in value.objectIDs where !id.entity.isKind(of: destination) {
                throw StrataError(
                    .typeMismatch, "\(entity.name).\(relationship.name) holds \(destination.name) objects; got \(id.entity.name).",
                    context: .init { $0.entity = entity.name; $0.key = relationship.name })
            }
            switch (relationship.isToMany, value) {
            case (false, .null): try context.setToOne(self, relationship, to: nil)
            case (false, .object(let id)): try context.setToOne(self, relationship, to: id)
            case (true, .null): try context.setToMany(self, relationship, [])
            case (true, .objects(let ids)): try context.setToMany(self, relationship, ids)
            default:
                throw StrataError(
                    .typeMismatch,
                    "\(entity.name).\(relationship.name) is a \(relationship.isToMany ? "to-many" : "to-one") relationship; got \(ModelValueRules.kindName(value)).",
                    context: .init { $0.entity = entity.name; $0.key = relationship.name })
            }
        }
    }

    /// The value of a key as a Swift type; an optional type gives nil for NULL.
    ///
    /// ```swift
    /// let name = try employee.value(forKey: "lastName", as: String?.self)   // "Lovelace" or nil
    /// let salary = try employee.value(forKey: "salary", as: Int64.self)     // 0 for NULL
    /// ```
    /// - Throws: as ``value(forKey:)``.
    public func value<Value: PropertyValueConvertible>(forKey key: String, as type: Value.Type) throws -> Value {
        Value(propertyValue: try value(forKey: key))
    }

    /// The destination of a to-one relationship, as an object (a fault until touched).
    public func object(forKey key: String) throws -> ManagedObject? {
        guard case .object(let id) = try value(forKey: key) else { return nil }
        return try requireContext().object(with: id)
    }

    /// The destinations of a to-many relationship, as objects (faults until touched).
    public func objects(forKey key: String) throws -> [ManagedObject] {
        let context = try requireContext()
        return try value(forKey: key).objectIDs.map { context.object(with: $0) }
    }

    /// Sets a to-one relationship to an object (or nil), keeping the inverse consistent.
    public func setObject(_ destination: ManagedObject?, forKey key: String) throws {
        try setValue(destination.map { .object($0.objectID) } ?? .null, forKey: key)
    }

    /// A live, mutable view of a to-many relationship (`addToX`/`removeFromX`).
    ///
    /// ```swift
    /// try department.mutableSetValue(forKey: "employees").add(employee)
    /// ```
    public func mutableSetValue(forKey key: String) throws -> RelationshipSet {
        let slot = try slotIndex(forKey: key)
        guard case .relationship(let index) = entity.slotKinds[slot], entity.relationships[index].isToMany else {
            throw StrataError(.typeMismatch, "\(entity.name).\(key) is not a to-many relationship.",
                              context: .init { $0.entity = entity.name; $0.key = key })
        }
        return RelationshipSet(owner: self, relationship: entity.relationships[index])
    }

    /// Follows a dotted key path through to-one and to-many relationships, with the
    /// collection operators `@count @sum @avg @min @max`.
    ///
    /// ```swift
    /// try employee.value(forKeyPath: "manager.department.name")
    /// try department.value(forKeyPath: "employees.@sum.salary")
    /// ```
    /// - Throws: `.unknownKey` naming the first key that does not exist.
    public func value(forKeyPath keyPath: String) throws -> KeyPathValue {
        // `address.city` is one key: the element `city` of the composite `address`.
        try KeyPathEvaluator.evaluate(entity.joiningCompositeKeys(keyPath.split(separator: ".").map(String.init)),
                                      from: [self], isCollection: false)
    }

    // MARK: Helpers

    func slotIndex(forKey key: String) throws -> Int {
        guard let slot = entity.slot(forKey: key) else {
            throw StrataError(.unknownKey, "Entity '\(entity.name)' has no property \(input: key).",
                              context: .init { $0.entity = entity.name; $0.key = key })
        }
        return slot
    }

    func requireContext() throws -> ManagedObjectContext {
        guard let context, !state.isInvalid else {
            if context == nil && state.contextReleased {
                throw StrataError(.invalidObject,
                                  "\(objectID)'s context is gone: it was released while the object was still in use. A context holds its objects, not the other way round; keep the context (or its container) alive as long as you use its objects.",
                                  context: .init { $0.kind = .contextReleased; $0.object = objectID.description })
            }
            throw StrataError(.invalidObject, "\(objectID) is not registered in a context.",
                              context: .init { $0.object = objectID.description })
        }
        return context
    }

    func ensureLoaded() throws {
        if state.isFault || state.isInvalid { try requireContext().materialize(self) }
    }

    /// Whether a relationship's destinations are not loaded yet. Never fires a fault.
    public func hasFault(forRelationshipNamed name: String) -> Bool {
        guard !state.isFault, let slot = entity.slot(forKey: name), let context else { return true }
        return storage[slot].objectIDs.contains { context.registeredObject(for: $0)?.state.isFault ?? true }
    }

    /// The changed persistent and transient values since the last save, by key.
    public func changedValues() -> [String: PropertyValue] {
        guard let committed = committedSnapshot, !state.isInserted else {
            if state.isInserted {
                return Dictionary(uniqueKeysWithValues: zip(entity.slotNames, storage).filter { !$0.1.isNull })
            }
            return [:]
        }
        var result: [String: PropertyValue] = [:]
        for slot in storage.indices where storage[slot] != committed[slot] {
            result[entity.slotNames[slot]] = storage[slot]
        }
        return result
    }

    /// The values as of the last save (or load) for the keys, all keys when nil.
    public func committedValues(forKeys keys: [String]?) throws -> [String: PropertyValue] {
        try ensureLoaded()
        let values = committedSnapshot ?? storage.array
        let names = keys ?? entity.slotNames
        var result: [String: PropertyValue] = [:]
        for key in names { result[key] = values[try slotIndex(forKey: key)] }
        return result
    }
}

/// A live view of one to-many relationship; changes keep both ends consistent.
public struct RelationshipSet {
    let owner: ManagedObject
    let relationship: RelationshipDescription

    /// The destination IDs, in order.
    public var objectIDs: [ManagedObjectID] {
        get throws { try owner.value(forKey: relationship.name).objectIDs }
    }
    /// The number of destinations.
    public var count: Int {
        get throws { try objectIDs.count }
    }
    /// Whether `object` is a destination.
    public func contains(_ object: ManagedObject) throws -> Bool { try objectIDs.contains(object.objectID) }

    /// Adds a destination (`addToX`).
    public func add(_ object: ManagedObject) throws {
        try owner.ensureLoaded()
        let context = try owner.requireContext()
        try context.checkChangeCanRegisterUndo()
        try context.addToMany(owner, relationship, object.objectID)
    }

    /// Removes a destination (`removeFromX`).
    public func remove(_ object: ManagedObject) throws {
        try owner.ensureLoaded()
        let context = try owner.requireContext()
        try context.checkChangeCanRegisterUndo()
        try context.removeFromToMany(owner, relationship, object.objectID)
    }

    /// Replaces every destination.
    public func set(_ objects: [ManagedObject]) throws {
        try owner.ensureLoaded()
        let context = try owner.requireContext()
        try context.checkChangeCanRegisterUndo()
        try context.setToMany(owner, relationship, OrderedSet(objects.map(\.objectID)))
    }
}
