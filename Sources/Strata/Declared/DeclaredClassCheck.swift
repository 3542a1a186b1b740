import Foundation

/// Checks an `@Entity` class against an entity it is registered for by hand
/// (``ManagedObjectModel/register(_:forEntityName:)`` with a JSON, Xcode or hand-built
/// model): every declared property must name a property of the entity that its Swift type
/// reads and writes, so that the class and the model disagree at registration, as an
/// error, and not in the middle of an edit (docs/SEMANTICS.md, "Typed access").
/// ``ManagedObjectModel/init(types:versionIdentifier:)`` builds the entity from the class,
/// so its classes always pass.
enum DeclaredClassCheck {
    /// The problems of `type`'s declared properties (its own and its declared parents')
    /// against `entity`.
    static func problems(of type: ManagedObject.Type, in entity: EntityDescription, model: ManagedObjectModel) -> [StrataError.Problem] {
        var problems: [StrataError.Problem] = []
        var current: ManagedObject.Type? = type
        while let declaring = current, let declaration = declaring.entityDeclaration {
            for property in declaration.properties {
                guard let reason = problem(property, in: entity, model: model) else { continue }
                problems.append(.init(entityName: entity.name, object: nil, key: property.name,
                                      reason: "\(type) declares \(property.name) as \(property.valueType): \(reason)"))
            }
            current = declaration.parentClass
        }
        return problems
    }

    private static func problem(_ property: PropertyDeclaration, in entity: EntityDescription, model: ManagedObjectModel) -> String? {
        guard let (storage, _) = DeclaredValueType.of(property.valueType) else { return "that type cannot be stored" }
        let name = property.name
        switch storage {
        case .attribute(_, let conversion):
            guard let attribute = entity.attributesByName[name] else {
                return entity.relationshipsByName[name] != nil ? "the entity's \(name) is a relationship"
                    : entity.composite(named: name) != nil ? "the entity's \(name) is a composite attribute"
                    : "the entity has no attribute \(name)"
            }
            return typeProblem(conversion, attribute)
        case .composite(let type):
            guard let composite = entity.composite(named: name) else {
                return entity.attributesByName[name] != nil || entity.relationshipsByName[name] != nil ? "the entity's \(name) is not a composite attribute"
                    : "the entity has no composite attribute \(name)"
            }
            return compositeProblem(type.compositeDeclaration, composite)
        case .toOne(let destination), .toMany(let destination, _):
            let wantsToMany: Bool = if case .toMany = storage { true } else { false }
            guard let relationship = entity.relationshipsByName[name] else {
                return entity.attributesByName[name] != nil || entity.composite(named: name) != nil
                    ? "the entity's \(name) is an attribute" : "the entity has no relationship \(name)"
            }
            if relationship.isToMany != wantsToMany {
                return relationship.isToMany ? "the entity's \(name) is a to-many relationship" : "the entity's \(name) is a to-one relationship"
            }
            guard let target = model.entitiesByName[relationship.destinationEntityName] else { return nil }
            let registered = model.objectClass(forEntity: target)
            // Not registered yet: checked again when the destination's class is.
            if registered == ManagedObject.self || isKind(registered, of: destination) { return nil }
            return "objects of '\(target.name)' are \(registered), not \(destination)"
        }
    }

    /// Whether the attribute's stored values read as the conversion's Swift type.
    private static func typeProblem(_ conversion: DeclaredValueType.Conversion, _ attribute: AttributeDescription) -> String? {
        // A transformable attribute holds whatever bytes the application stores.
        if attribute.attributeType == .transformable { return nil }
        let swiftType: Any.Type
        switch conversion {
        case .convertible(let type): swiftType = type
        case .rawValue(let type): swiftType = rawValueType(type)
        case .codable: return attribute.attributeType == .binaryData ? nil : "a Codable value needs a transformable or binaryData attribute, not \(attribute.attributeType.rawValue)"
        }
        guard let accepted = TypedKeyDescription.attributeTypes(accepting: swiftType) else { return nil }
        return accepted.contains(attribute.attributeType) ? nil
            : "\(swiftType) does not hold the entity's \(attribute.attributeType.rawValue) attribute"
    }

    private static func compositeProblem(_ declaration: CompositeDeclaration, _ composite: CompositeAttributeDescription) -> String? {
        // Every stored element must be one of the struct's: a write replaces the whole
        // composite, so an element the struct lacks would be cleared by each write.
        let declared = Set(declaration.elements.map(\.name))
        if let missing = (composite.elements.map(\.name) + composite.composites.map(\.name)).first(where: { !declared.contains($0) }) {
            return "the struct declares no element \(missing) of the composite \(composite.name) (a write would clear it)"
        }
        for element in declaration.elements {
            guard let (storage, _) = DeclaredValueType.of(element.valueType) else {
                return "element \(element.name) of type \(element.valueType) cannot be stored"
            }
            switch storage {
            case .attribute(_, let conversion):
                guard let stored = composite.elements.first(where: { $0.name == element.name }) else {
                    return "the composite \(composite.name) has no element \(element.name)"
                }
                if let reason = typeProblem(conversion, stored) { return "element \(element.name): \(reason)" }
            case .composite(let type):
                guard let nested = composite.nested(named: element.name) else {
                    return "the composite \(composite.name) has no nested composite \(element.name)"
                }
                if let reason = compositeProblem(type.compositeDeclaration, nested) { return reason }
            case .toOne, .toMany:
                return "element \(element.name) is a relationship"
            }
        }
        return nil
    }

    private static func rawValueType<Raw: RawRepresentable>(_ type: Raw.Type) -> Any.Type { Raw.RawValue.self }

    /// Whether `type` is `ancestor` or an `@Entity` subclass of it (through the declared parents).
    private static func isKind(_ type: ManagedObject.Type, of ancestor: ManagedObject.Type) -> Bool {
        var current: ManagedObject.Type? = type
        while let candidate = current {
            if candidate == ancestor { return true }
            current = candidate.entityDeclaration?.parentClass
        }
        return false
    }
}
