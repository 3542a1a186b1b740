import Foundation

extension ManagedObjectModel {
    /// Makes contexts create instances of `type` for the named entity (and, unless they
    /// have their own, its sub-entities). The registration belongs to this model and goes
    /// away with it.
    ///
    /// The class is checked against the model first: every key in its
    /// ``ManagedObject/typedKeys`` must name a property of the entity of the same kind
    /// (attribute, to-one or to-many), an attribute key's Swift type must suit the
    /// attribute's type, and a relationship key's destination class must fit the class
    /// registered for the destination entity, so a mistyped key fails here and not in the
    /// middle of an edit. A class declared with `@Entity` is checked the same way: each
    /// declared property must name a property of the entity of the kind and type its Swift
    /// type reads (a composite's elements included). Classes registered earlier are checked again, so the order of
    /// registration does not matter.
    ///
    /// ```swift
    /// try model.register(Employee.self, forEntityName: "Employee")
    /// ```
    /// - Throws: `.unknownKey` when the model has no such entity; `.invalidModel` listing
    ///   every typed key or declared property that does not fit.
    public func register(_ type: ManagedObject.Type, forEntityName name: String) throws {
        _ = try self.entity(named: name)
        // Registered first, then every registered class is checked (this one's keys, and the
        // keys of classes registered earlier whose destination this entity is); undone when
        // anything does not fit.
        let previous = classRegistrations.withLock { classes in
            defer { classes[name] = type }
            return classes[name]
        }
        if type is any ObservableManagedObject.Type { hasObservableClasses.withLock { $0 = true } }
        let registered = classRegistrations.withLock { $0 }
        var problems: [StrataError.Problem] = []
        for (entityName, registeredType) in registered.sorted(by: { $0.key < $1.key }) {
            guard let entity = entitiesByName[entityName] else { continue }
            for key in registeredType.typedKeys {
                guard let reason = key.problem(in: entity, model: self) else { continue }
                problems.append(StrataError.Problem(entityName: entityName, object: nil, key: key.name, reason: reason))
            }
            problems += DeclaredClassCheck.problems(of: registeredType, in: entity, model: self)
        }
        guard problems.isEmpty else {
            classRegistrations.withLock { $0[name] = previous }
            throw StrataError(.invalidModel,
                              "\(type) does not fit entity '\(name)' (\(problems.count) key\(problems.count == 1 ? "" : "s")).",
                              problems: problems)
        }
    }

    /// The class instantiated for an entity: the registered one of the entity or its
    /// nearest ancestor, else ``ManagedObject``.
    public func objectClass(forEntity entity: EntityDescription) -> ManagedObject.Type {
        classRegistrations.withLock { classes in
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
        classRegistrations.withLock { classes in classes.first { $0.value == type }?.key }
    }
}
