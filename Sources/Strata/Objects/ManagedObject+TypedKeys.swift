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
    /// A subscript cannot throw, so what it cannot do (an unknown key, a dead object, a
    /// stored Codable value that does not decode) is recorded in the context's
    /// ``ManagedObjectContext/typedAccessErrors``, which the next
    /// ``ManagedObjectContext/save()`` throws, as `NSCoder`'s `setErrorAndReturn` policy
    /// does: a read gives the type's value for null (nil, zero, empty) and a write is
    /// dropped (docs/SEMANTICS.md, "Typed access"). Code that must know at once uses the
    /// throwing forms, ``value(for:)`` and ``setValue(_:for:)``; registering the class with
    /// its ``typedKeys`` checks the keys against the model once.
    public subscript<Value>(key: AttributeKey<Value>) -> Value {
        get {
            let stored = typedRead(key.name)
            do { return try Value(checking: stored) } catch {
                recordTypedAccessError(decodingFailure(error, key: key.name, as: Value.self))
                return Value(propertyValue: .null)
            }
        }
        set {
            do { typedWrite(key.name, try newValue.checkedPropertyValue()) } catch {
                recordTypedAccessError(encodingFailure(error, key: key.name, as: Value.self))
            }
        }
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

    /// The stored value, or null with the error recorded.
    private func typedRead(_ key: String) -> PropertyValue {
        do { return try value(forKey: key) } catch {
            recordTypedAccessError(error)
            return .null
        }
    }

    /// Writes the value, or records why it could not.
    private func typedWrite(_ key: String, _ value: PropertyValue) {
        do { try setValue(value, forKey: key) } catch { recordTypedAccessError(error) }
    }
}
