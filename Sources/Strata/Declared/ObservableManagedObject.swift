import Foundation
import Observation
import OrderedCollections

/// A ``ManagedObject`` subclass declared with `@Entity`: its properties read and write the
/// object's storage and take part in Swift's Observation, so that code tracking reads
/// (`withObservationTracking`, a SwiftUI view) is told of every change to them — edits,
/// undo and redo, merges of other contexts' and other processes' saves, refreshes.
///
/// The `@Entity` macro adds the conformance and the registrar to the root class of a
/// hierarchy; sub-entities' classes inherit them.
public protocol ObservableManagedObject: ManagedObject, Observable {
    /// Records tracked reads of the object's properties and tells their observers of changes.
    var observationRegistrar: ObservationRegistrar { get }
}

extension ObservableManagedObject {
    /// Reads a declared property: the getter `@Entity` generates. Reading fires the fault
    /// and is tracked by Observation.
    ///
    /// A caller's problem does not stop the program: as the typed subscripts do
    /// (docs/SEMANTICS.md, "Typed access"), a read of a deleted object's property or of a
    /// stored value that does not decode as the property's type (JSON the Codable type no
    /// longer reads, a raw value no case of the enum has) records an error naming the object
    /// and key in the context's ``ManagedObjectContext/typedAccessErrors``, which the next
    /// ``ManagedObjectContext/save()`` throws, and gives the property's model default (nil,
    /// zero or empty without one). A null in a non-optional property reads as the default.
    public func declaredValue<Value>(forKey key: String, keyPath: KeyPath<Self, Value>) -> Value {
        observationRegistrar.access(self, keyPath: keyPath)
        return readDeclaredValue(forKey: key)
    }

    /// Writes a declared property: the setter `@Entity` generates. Relationships keep
    /// their inverse at once, as every write does; observers are told. A write the object
    /// cannot take (it was deleted, or the value is refused) is dropped and its error
    /// recorded for the next ``ManagedObjectContext/save()``, as a read's is.
    public func setDeclaredValue<Value>(_ newValue: Value, forKey key: String, keyPath: KeyPath<Self, Value>) {
        observationRegistrar.withMutation(of: self, keyPath: keyPath) {
            writeDeclaredValue(newValue, forKey: key)
        }
    }
}

extension ManagedObject {
    func readDeclaredValue<Value>(forKey key: String) -> Value {
        let stored = declaredStorageRead(key)
        guard let storage = DeclaredValueType.of(Value.self)?.storage else {
            preconditionFailure("\(entity.name).\(key): \(Value.self) cannot be stored (the model refuses such a class)")
        }
        let value: Any?
        switch storage {
        case .attribute(_, let conversion):
            var read: Any?
            do { read = try conversion.checkedValue(of: stored) } catch {
                recordTypedAccessError(decodingFailure(error, key: key, as: Value.self))
            }
            value = read ?? entity.attributesByName[key].flatMap { conversion.value(of: $0.defaultValue) }
        case .toOne:
            if case .object(let id) = stored, let context { value = context.object(with: id) } else { value = nil }
        case .toMany(let elementType, _):
            let objects = context.map { context in stored.objectIDs.map { context.object(with: $0) } } ?? []
            guard let collection = Value.self as? any ObjectCollection.Type else {
                preconditionFailure("\(entity.name).\(key): \(Value.self) is not a collection of \(elementType) (the model refuses such a class)")
            }
            return (collection.init(objects: objects) ?? collection.init(objects: [])) as! Value
        }
        if let value = value as? Value { return value }
        if let convertible = Value.self as? PropertyValueConvertible.Type, let zero = convertible.init(propertyValue: .null) as? Value {
            return zero
        }
        if let optional = Value.self as? any OptionalValue.Type, let none = optional.nilValue as? Value { return none }
        preconditionFailure("\(entity.name).\(key) holds no value of type \(Value.self); give the property a default value or make it optional")
    }

    func writeDeclaredValue<Value>(_ newValue: Value, forKey key: String) {
        guard let storage = DeclaredValueType.of(Value.self)?.storage else {
            preconditionFailure("\(entity.name).\(key): \(Value.self) cannot be stored (the model refuses such a class)")
        }
        let stored: PropertyValue
        switch storage {
        case .attribute(_, let conversion):
            if let optional = newValue as? any OptionalValue, optional.isNone {
                stored = .null
            } else {
                stored = conversion.propertyValue(of: unwrapped(newValue))
            }
        case .toOne:
            stored = (newValue as Any as? ManagedObject).map { .object($0.objectID) } ?? .null
        case .toMany:
            stored = .objects(OrderedSet((newValue as? any ObjectCollection)?.objectIDs ?? []))
        }
        do { try setValue(stored, forKey: key) } catch { recordTypedAccessError(error) }
    }

    /// The stored value, or null with the error (a deleted object, an unknown key) recorded.
    private func declaredStorageRead(_ key: String) -> PropertyValue {
        do { return try value(forKey: key) } catch {
            recordTypedAccessError(error)
            return .null
        }
    }

    private func unwrapped(_ value: Any) -> Any {
        if let optional = value as? any OptionalValue, let wrapped = optional.wrapped { return unwrapped(wrapped) }
        return value
    }
}
