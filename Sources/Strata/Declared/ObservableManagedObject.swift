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
    /// Reads a declared property that has an initial value: the getter `@Entity`
    /// generates for `var status: Status = .active`. Reading fires the fault and is
    /// tracked by Observation.
    ///
    /// A caller's problem does not stop the program: as the typed subscripts do
    /// (docs/SEMANTICS.md, "Typed access"), a read of a deleted object's property, of a
    /// stored value that does not decode as the property's type (JSON the Codable type no
    /// longer reads, a raw value no case of the enum has), or of a property the object's
    /// entity does not declare as the class does, records an error naming the object and
    /// key in the context's ``ManagedObjectContext/typedAccessErrors``, which the next
    /// ``ManagedObjectContext/save()`` throws, and gives the property's model default, else
    /// `initialValue`. A null reads as the default too.
    public func declaredValue<Value>(forKey key: String, keyPath: KeyPath<Self, Value>,
                                     initialValue: @autoclosure () -> Value) -> Value {
        observationRegistrar.access(self, keyPath: keyPath)
        return readDeclaredValue(forKey: key, fallback: initialValue)
    }

    /// Reads a declared optional property (`var salary: Int64?`): as
    /// ``declaredValue(forKey:keyPath:initialValue:)``, with nil where the model has no default.
    public func declaredValue<Wrapped>(forKey key: String, keyPath: KeyPath<Self, Wrapped?>) -> Wrapped? {
        observationRegistrar.access(self, keyPath: keyPath)
        return readDeclaredValue(forKey: key, fallback: { nil })
    }

    /// Reads a declared non-optional property of a type with a null value of its own
    /// (`var name: String`, `var employees: Set<Employee>`): as
    /// ``declaredValue(forKey:keyPath:initialValue:)``, with 0, "", false or empty where the
    /// model has no default.
    public func declaredValue<Value: DeclaredPlainValue>(forKey key: String, keyPath: KeyPath<Self, Value>) -> Value {
        observationRegistrar.access(self, keyPath: keyPath)
        return readDeclaredValue(forKey: key, fallback: { Value.declaredNullValue })
    }

    /// A non-optional property of a type with no null value (an enum, a Codable struct, an
    /// object) and no initial value has nothing to read when its value is null or does not
    /// decode; the compiler refuses it with this message.
    @available(*, unavailable, message: "a non-optional property of this type needs an initial value (or make it optional)")
    public func declaredValue<Value>(forKey key: String, keyPath: KeyPath<Self, Value>) -> Value {
        fatalError("unavailable")
    }

    /// Writes a declared property: the setter `@Entity` generates. Relationships keep
    /// their inverse at once, as every write does; observers are told. A write the object
    /// cannot take (it was deleted, the value is refused, the entity does not declare the
    /// property as the class does) is dropped and its error recorded for the next
    /// ``ManagedObjectContext/save()``, as a read's is.
    public func setDeclaredValue<Value>(_ newValue: Value, forKey key: String, keyPath: KeyPath<Self, Value>) {
        observationRegistrar.withMutation(of: self, keyPath: keyPath) {
            writeDeclaredValue(newValue, forKey: key)
        }
    }
}

extension ManagedObject {
    /// The declared property's value; `fallback` when the stored value is null, cannot be
    /// read as a `Value` (the error recorded), or the entity does not declare the key.
    func readDeclaredValue<Value>(forKey key: String, fallback: () -> Value) -> Value {
        guard let storage = DeclaredValueType.of(Value.self)?.storage else {
            _ = declaredStorageRead(key)
            recordTypedAccessError(unstorable(Value.self, key: key))
            return fallback()
        }
        // A composite has no value of its own under its key: its elements are read whole.
        if case .composite(let type) = storage {
            return readComposite(type, forKey: key) as? Value ?? fallback()
        }
        let stored = declaredStorageRead(key)
        let value: Any?
        switch storage {
        case .attribute(_, let conversion):
            var read: Any?
            do { read = try conversion.checkedValue(of: stored) } catch {
                recordTypedAccessError(decodingFailure(error, key: key, as: Value.self))
            }
            value = read ?? entity.attributesByName[key].flatMap { conversion.value(of: $0.defaultValue) }
        case .composite:
            value = nil
        case .toOne:
            if case .object(let id) = stored, let context { value = context.object(with: id) } else { value = nil }
        case .toMany:
            let objects = context.map { context in stored.objectIDs.map { context.object(with: $0) } } ?? []
            if let collection = Value.self as? any ObjectCollection.Type {
                value = collection.init(objects: objects) ?? collection.init(objects: [])
            } else {
                value = nil
            }
        }
        if let value = value as? Value { return value }
        return fallback()
    }

    /// A composite property's value: nil when every element is null; the error recorded
    /// when the entity has no such composite or an element does not fit the struct.
    private func readComposite(_ type: any CompositeValue.Type, forKey key: String) -> Any? {
        do {
            guard let elements = try compositeValue(forKey: key) else { return nil }
            return try type.init(compositeElements: CompositeElements(elements))
        } catch {
            recordTypedAccessError(decodingFailure(error, key: key, as: type))
            return nil
        }
    }

    func writeDeclaredValue<Value>(_ newValue: Value, forKey key: String) {
        guard let storage = DeclaredValueType.of(Value.self)?.storage else {
            recordTypedAccessError(unstorable(Value.self, key: key))
            return
        }
        let stored: PropertyValue
        switch storage {
        case .attribute(_, let conversion):
            if let optional = newValue as? any OptionalValue, optional.isNone {
                stored = .null
            } else {
                stored = conversion.propertyValue(of: unwrapped(newValue))
            }
        case .composite:
            let present = (newValue as? any OptionalValue).map { $0.wrapped.map(unwrapped) } ?? newValue
            let elements = (present as? any CompositeValue)?.compositeElements.values
            do { try setCompositeValue(elements, forKey: key) } catch { recordTypedAccessError(error) }
            return
        case .toOne:
            stored = (newValue as Any as? ManagedObject).map { .object($0.objectID) } ?? .null
        case .toMany:
            stored = .objects(OrderedSet((newValue as? any ObjectCollection)?.objectIDs ?? []))
        }
        do { try setValue(stored, forKey: key) } catch { recordTypedAccessError(error) }
    }

    /// A declared property whose Swift type Strata cannot store (the class was never
    /// checked by ``ManagedObjectModel/init(types:versionIdentifier:)``), as an error naming
    /// the object and key.
    private func unstorable(_ type: Any.Type, key: String) -> StrataError {
        StrataError(.typeMismatch, "\(entity.name) \(objectID).\(key) is declared as \(type), which cannot be stored",
                    context: .init { $0.entity = entity.name; $0.object = objectID.description; $0.key = key })
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
