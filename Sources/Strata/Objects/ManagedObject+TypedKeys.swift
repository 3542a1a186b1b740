import Foundation
import OrderedCollections

/// A typed name for an attribute, used by subclasses for fast, typed properties.
///
/// ```swift
/// final class Employee: ManagedObject {
///     static let salary = AttributeKey<Int64?>("salary")
///     var salary: Int64? {
///         get { self[Self.salary] }
///         set { self[Self.salary] = newValue }
///     }
/// }
/// ```
public struct AttributeKey<Value: PropertyValueConvertible>: Sendable {
    /// The attribute's name.
    public let name: String
    /// Creates a key.
    public init(_ name: String) { self.name = name }
}

/// A typed name for a to-one relationship.
public struct ToOneKey<Destination: ManagedObject>: Sendable {
    /// The relationship's name.
    public let name: String
    /// Creates a key.
    public init(_ name: String) { self.name = name }
}

/// A typed name for a to-many relationship.
public struct ToManyKey<Destination: ManagedObject>: Sendable {
    /// The relationship's name.
    public let name: String
    /// Creates a key.
    public init(_ name: String) { self.name = name }
}

extension ManagedObject {
    /// Reads and writes an attribute with its Swift type. Reading fires the fault.
    ///
    /// Misuse (an unknown key, a deleted and saved object) is a programming error and
    /// stops the program with a message naming the key, as Core Data does. Code that can
    /// meet a dead object (one another context deleted) uses the throwing forms,
    /// ``value(for:)`` and ``setValue(_:for:)``; registering the class with its
    /// ``typedKeys`` checks the keys against the model once.
    public subscript<Value>(key: AttributeKey<Value>) -> Value {
        get { Value(propertyValue: typedRead(key.name)) }
        set { typedWrite(key.name, newValue.propertyValue) }
    }

    /// Reads and writes a to-one relationship as an object.
    public subscript<Destination>(key: ToOneKey<Destination>) -> Destination? {
        get {
            guard case .object(let id) = typedRead(key.name), let context else { return nil }
            return context.object(with: id) as? Destination
        }
        set { typedWrite(key.name, newValue.map { .object($0.objectID) } ?? .null) }
    }

    /// Reads and writes a to-many relationship as an array of objects (in order).
    public subscript<Destination>(key: ToManyKey<Destination>) -> [Destination] {
        get {
            guard let context else { return [] }
            return typedRead(key.name).objectIDs.compactMap { context.object(with: $0) as? Destination }
        }
        set { typedWrite(key.name, .objects(OrderedSet(newValue.map(\.objectID)))) }
    }

    private func typedRead(_ key: String) -> PropertyValue {
        do { return try value(forKey: key) } catch { preconditionFailure("\(entity.name).\(key): \(error)") }
    }

    private func typedWrite(_ key: String, _ value: PropertyValue) {
        do { try setValue(value, forKey: key) } catch { preconditionFailure("\(entity.name).\(key): \(error)") }
    }
}
