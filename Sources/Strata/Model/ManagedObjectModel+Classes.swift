import Foundation
import Synchronization

/// Which ``ManagedObject`` subclass represents each entity, per model.
private let classRegistry = Mutex<[ObjectIdentifier: [String: ManagedObject.Type]]>([:])

extension ManagedObjectModel {
    /// Makes contexts create instances of `type` for the named entity (and, unless they
    /// have their own, its sub-entities).
    ///
    /// ```swift
    /// model.register(Employee.self, forEntityName: "Employee")
    /// ```
    public func register(_ type: ManagedObject.Type, forEntityName name: String) {
        classRegistry.withLock { $0[ObjectIdentifier(self), default: [:]][name] = type }
    }

    /// The class instantiated for an entity: the registered one of the entity or its
    /// nearest ancestor, else ``ManagedObject``.
    public func objectClass(forEntity entity: EntityDescription) -> ManagedObject.Type {
        classRegistry.withLock { registry in
            let classes = registry[ObjectIdentifier(self)] ?? [:]
            var current: EntityDescription? = entity
            while let candidate = current {
                if let type = classes[candidate.name] { return type }
                current = candidate.superentity
            }
            return ManagedObject.self
        }
    }

    /// The entity name a subclass was registered for.
    public func entityName(for type: ManagedObject.Type) -> String? {
        classRegistry.withLock { registry in
            registry[ObjectIdentifier(self)]?.first { $0.value == type }?.key
        }
    }
}
