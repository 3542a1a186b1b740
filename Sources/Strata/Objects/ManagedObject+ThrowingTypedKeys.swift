import Foundation
import OrderedCollections

/// The throwing forms of the typed subscripts: for code that can meet an object another
/// context deleted, or keys that are not checked by registration.
extension ManagedObject {
    /// Reads an attribute with its Swift type.
    ///
    /// ```swift
    /// let salary = try employee.value(for: Employee.salary)
    /// ```
    /// - Throws: `.unknownKey` for a key the entity lacks; `.invalidObject` or
    ///   `.objectNotFound` for an object that is gone.
    public func value<Value>(for key: AttributeKey<Value>) throws -> Value {
        Value(propertyValue: try value(forKey: key.name))
    }

    /// Writes an attribute with its Swift type.
    /// - Throws: as ``setValue(_:forKey:)``.
    public func setValue<Value>(_ value: Value, for key: AttributeKey<Value>) throws {
        try setValue(value.propertyValue, forKey: key.name)
    }

    /// Reads a to-one relationship as an object of the key's class.
    /// - Throws: as ``object(forKey:)``, and `.typeMismatch` when the destination is not a
    ///   `Destination`.
    public func object<Destination>(for key: ToOneKey<Destination>) throws -> Destination? {
        guard let object = try object(forKey: key.name) else { return nil }
        guard let typed = object as? Destination else { throw mismatch(key.name, object, Destination.self) }
        return typed
    }

    /// Writes a to-one relationship.
    /// - Throws: as ``setObject(_:forKey:)``.
    public func setObject<Destination>(_ destination: Destination?, for key: ToOneKey<Destination>) throws {
        try setObject(destination, forKey: key.name)
    }

    /// Reads a to-many relationship as objects of the key's class, in order.
    /// - Throws: as ``objects(forKey:)``, and `.typeMismatch` when a destination is not a
    ///   `Destination`.
    public func objects<Destination>(for key: ToManyKey<Destination>) throws -> [Destination] {
        try objects(forKey: key.name).map { object in
            guard let typed = object as? Destination else { throw mismatch(key.name, object, Destination.self) }
            return typed
        }
    }

    /// Replaces a to-many relationship's destinations.
    /// - Throws: as ``setValue(_:forKey:)``.
    public func setObjects<Destination>(_ destinations: [Destination], for key: ToManyKey<Destination>) throws {
        try setValue(.objects(OrderedSet(destinations.map(\.objectID))), forKey: key.name)
    }

    private func mismatch(_ key: String, _ object: ManagedObject, _ expected: Any.Type) -> StrataError {
        StrataError(.typeMismatch, "\(entity.name).\(key) holds \(type(of: object)), not \(expected).",
                    context: .init { $0.key = key; $0.object = object.objectID.description })
    }
}
