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
    ///   `.objectNotFound` for an object that is gone; `.typeMismatch` naming the object
    ///   and key for a stored value that is not a `Value` (a ``Transformed`` value whose
    ///   JSON does not decode).
    public func value<Value>(for key: AttributeKey<Value>) throws -> Value {
        let stored = try value(forKey: key.name)
        do { return try Value(checking: stored) } catch {
            throw decodingFailure(error, key: key.name, as: Value.self)
        }
    }

    /// Writes an attribute with its Swift type.
    /// - Throws: as ``setValue(_:forKey:)``; `.typeMismatch` naming the object and key for
    ///   a value with no storage form (a ``Transformed`` value that does not encode).
    public func setValue<Value>(_ value: Value, for key: AttributeKey<Value>) throws {
        let stored: PropertyValue
        do { stored = try value.checkedPropertyValue() } catch {
            throw encodingFailure(error, key: key.name, as: Value.self)
        }
        try setValue(stored, forKey: key.name)
    }

    /// A stored value that does not convert to `Value`, as an error naming the object and key.
    func decodingFailure(_ error: any Error, key: String, as type: Any.Type) -> StrataError {
        StrataError(.typeMismatch, "\(entity.name) \(objectID).\(key) holds a value that does not read as \(type): \(Self.reason(error))",
                    context: .init { $0.entity = entity.name; $0.object = objectID.description; $0.key = key })
    }

    /// A value with no storage form, as an error naming the object and key.
    func encodingFailure(_ error: any Error, key: String, as type: Any.Type) -> StrataError {
        StrataError(.typeMismatch, "\(entity.name) \(objectID).\(key) cannot store this \(type): \(Self.reason(error))",
                    context: .init { $0.entity = entity.name; $0.object = objectID.description; $0.key = key })
    }

    /// A coder's error in a sentence (its debug description says which field and why).
    private static func reason(_ error: any Error) -> String {
        switch error {
        case let error as StrataError: error.message
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
             DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            context.debugDescription + (context.codingPath.isEmpty ? "" : " (at \(context.codingPath.map(\.stringValue).joined(separator: ".")))")
        case EncodingError.invalidValue(_, let context):
            context.debugDescription
        default: "\(error)"
        }
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
