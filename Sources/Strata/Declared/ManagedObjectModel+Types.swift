import Foundation

extension ManagedObjectModel {
    /// Builds a model from classes declared with StrataModels' `@Entity` macro, and
    /// registers each class for its entity.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(types: [Department.self, Employee.self])
    /// ```
    ///
    /// The classes' parents and the destinations of their relationships join the model
    /// even when not listed, after the listed ones. Entities come in that order and their
    /// properties in source order, attributes before relationships: the order is part of
    /// the storage (``versionHash``), so a JSON or Xcode model of the same schema lists
    /// them the same way to open the same documents. A relationship whose inverse names it
    /// gets it as its own inverse, so one side's `@Relationship(inverse:)` is enough.
    ///
    /// The model is validated as every other model is; what a class declares that Strata
    /// cannot store is reported with the rest.
    /// - Throws: ``StrataStorage/StrataError`` `.invalidModel` listing every problem: a
    ///   class without `@Entity`, a property type that cannot be stored (each names the
    ///   entity, the property and the type), `@Attribute` on a relationship or
    ///   `@Relationship` on an attribute, a relationship whose inverse neither side names
    ///   (unless `@Relationship(inverse: nil)` asks for none), and whatever ``init(entities:configurations:fetchRequestTemplates:versionIdentifier:)`` finds.
    public convenience init(types: [ManagedObject.Type], versionIdentifier: String? = nil) throws {
        let (entities, classes) = try DeclaredModelBuilder(types: types).entities()
        try self.init(entities: entities, versionIdentifier: versionIdentifier)
        for (name, type) in classes { try register(type, forEntityName: name) }
    }
}

/// Turns `@Entity` declarations into entity descriptions.
private struct DeclaredModelBuilder {
    let types: [ManagedObject.Type]

    func entities() throws -> ([EntityDescription], [(String, ManagedObject.Type)]) {
        var problems: [StrataError.Problem] = []
        func problem(_ entity: String, _ key: String?, _ reason: String) {
            problems.append(.init(entityName: entity, object: nil, key: key, reason: reason))
        }
        // Every class reachable from the listed ones, listed ones first.
        var declarations: [EntityDeclaration] = []
        var seen: Set<ObjectIdentifier> = []
        var queue = types
        while !queue.isEmpty {
            let type = queue.removeFirst()
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            guard let declaration = type.entityDeclaration, declaration.objectClass == type else {
                problem("\(type)", nil, "\(type) is not declared with @Entity")
                continue
            }
            declarations.append(declaration)
            if let parent = declaration.parentClass { queue.append(parent) }
            queue += declaration.fetchedProperties.map(\.destinationClass)
            for property in declaration.properties {
                switch DeclaredValueType.of(property.valueType)?.storage {
                case .toOne(let destination)?, .toMany(let destination, _)?: queue.append(destination)
                default: break
                }
            }
        }
        let namesByClass = Dictionary(declarations.map { (ObjectIdentifier($0.objectClass), $0.name) }, uniquingKeysWith: { a, _ in a })
        // Inverses named on one side only are named on both.
        var inverses: [String: [String: String]] = [:]
        for declaration in declarations {
            for property in declaration.properties {
                guard let inverse = property.relationship.inverse,
                      let storage = DeclaredValueType.of(property.valueType)?.storage else { continue }
                switch storage {
                case .toOne(let destination), .toMany(let destination, _):
                    if let name = namesByClass[ObjectIdentifier(destination)] { inverses[name, default: [:]][inverse] = property.name }
                case .attribute, .composite: break
                }
            }
        }

        var entities: [EntityDescription] = []
        for declaration in declarations {
            let entity = declaration.name
            var attributes: [AttributeDescription] = []
            var relationships: [RelationshipDescription] = []
            var composites: [CompositeAttributeDescription] = []
            var uniqueness = declaration.uniquenessConstraints
            for property in declaration.properties {
                guard let resolved = DeclaredValueType.of(property.valueType) else {
                    problem(entity, property.name, "\(property.valueType) cannot be stored: use a number, String, Bool, Date, Data, UUID, URL, Decimal, an enum with such raw values, a Codable type, an @Entity class (to-one), or a Set or Array of one (to-many)")
                    continue
                }
                let (storage, isOptional) = resolved
                switch storage {
                case .attribute(var attributeType, let conversion):
                    if property.kind == .relationship {
                        problem(entity, property.name, "@Relationship on an attribute (\(property.valueType))")
                        continue
                    }
                    let settings = property.attribute
                    if settings.options.contains(.transformable) {
                        guard attributeType == .binaryData else {
                            problem(entity, property.name, ".transformable applies to a Data property, not \(property.valueType)")
                            continue
                        }
                        attributeType = .transformable
                    }
                    var defaultValue = PropertyValue.null
                    if let initial = property.initialValue?.value {
                        if let optional = initial as? any OptionalValue {
                            defaultValue = optional.wrapped.map { conversion.propertyValue(of: unwrap($0)) } ?? .null
                        } else {
                            defaultValue = conversion.propertyValue(of: initial)
                        }
                    } else if !isOptional, !Self.hasZeroValue(conversion) {
                        problem(entity, property.name, "a non-optional \(property.valueType) needs an initial value (or make it optional)")
                    }
                    var attribute = AttributeDescription(
                        property.name, attributeType, isOptional: isOptional, isTransient: property.isTransient,
                        defaultValue: defaultValue, minValue: settings.minValue, maxValue: settings.maxValue,
                        minLength: settings.minLength, maxLength: settings.maxLength,
                        regularExpression: settings.regularExpression, isIndexed: settings.options.contains(.indexed))
                    attribute.isText = settings.options.contains(.text)
                    attribute.renamingIdentifier = settings.originalName
                    if let derivation = settings.derivation {
                        do {
                            attribute.derivation = try FetchExpression(format: derivation)
                        } catch {
                            let reason = (error as? StrataError)?.message ?? "\(error)"
                            problem(entity, property.name, "derivation '\(derivation)' does not parse: \(reason)")
                            continue
                        }
                    }
                    if settings.options.contains(.unique) { uniqueness.append([property.name]) }
                    attributes.append(attribute)
                case .composite(let type):
                    if property.kind == .relationship {
                        problem(entity, property.name, "@Relationship on a composite attribute (\(property.valueType))")
                        continue
                    }
                    if !isOptional {
                        // A composite whose elements are all null is nil (docs/SEMANTICS.md,
                        // "Composite attributes"), so the property must be able to say so.
                        problem(entity, property.name, "a composite is declared optional (\(type)?): it is nil when every element is null")
                        continue
                    }
                    if property.isTransient {
                        problem(entity, property.name, "a composite is stored; it cannot be @Transient")
                        continue
                    }
                    if property.attribute.derivation != nil || !property.attribute.options.isEmpty {
                        problem(entity, property.name, "@Attribute settings do not apply to a composite; declare them on its elements' types")
                        continue
                    }
                    var composite = Self.composite(property.name, type.compositeDeclaration) { key, reason in
                        problem(entity, key, reason)
                    }
                    composite.typeName = type.compositeDeclaration.typeName
                    composites.append(composite)
                case .toOne(let destinationClass), .toMany(let destinationClass, _):
                    if property.kind == .attribute {
                        problem(entity, property.name, "@Attribute on a relationship (\(property.valueType))")
                        continue
                    }
                    guard let destination = namesByClass[ObjectIdentifier(destinationClass)] else {
                        // Reported when the destination class was visited.
                        continue
                    }
                    let settings = property.relationship
                    var toMany = false, ordered = false
                    if case .toMany(_, let isOrdered) = storage { toMany = true; ordered = isOrdered }
                    if !toMany, !isOptional {
                        problem(entity, property.name, "a to-one is declared optional (\(destinationClass)?); a required one says @Relationship(isOptional: false)")
                    }
                    let inverse = settings.inverse ?? inverses[entity]?[property.name]
                    if inverse == nil, !settings.isWithoutInverse {
                        // Core Data warns of a relationship without inverse (the other side
                        // keeps pointing at deleted objects); here it must be asked for.
                        problem(entity, property.name, "the relationship names no inverse: add @Relationship(inverse: \\\(destination).property) on one side, or @Relationship(inverse: nil) for none")
                    }
                    var relationship = RelationshipDescription(
                        property.name, to: destination, toMany: toMany,
                        inverse: inverse, deleteRule: settings.deleteRule,
                        isOptional: settings.isOptional, isOrdered: ordered, minCount: settings.minCount,
                        maxCount: settings.maxCount, isTransient: property.isTransient)
                    relationship.renamingIdentifier = settings.originalName
                    relationships.append(relationship)
                }
            }
            let fetched = declaration.fetchedProperties.map { fetched in
                FetchedPropertyDescription(fetched.name, entity: namesByClass[ObjectIdentifier(fetched.destinationClass)] ?? fetched.destinationClass.entityName,
                                           predicate: fetched.predicateFormat)
            }
            let parent = declaration.parentClass.flatMap { namesByClass[ObjectIdentifier($0)] }
            entities.append(EntityDescription(
                entity, parent: parent, isAbstract: declaration.isAbstract, attributes: attributes,
                relationships: relationships, fetchedProperties: fetched, uniquenessConstraints: uniqueness,
                representedClassName: "\(declaration.objectClass)" == entity ? nil : "\(declaration.objectClass)",
                fetchIndexes: declaration.fetchIndexes, composites: composites))
        }
        if !problems.isEmpty {
            throw StrataError(.invalidModel, "The model is invalid (\(problems.count) problem\(problems.count == 1 ? "" : "s")).",
                              problems: problems)
        }
        return (entities, declarations.map { ($0.name, $0.objectClass) })
    }

    /// The composite attribute a `@Composite` struct declares, its nested composites
    /// included; `problem` gets each element that cannot be stored (named by its path).
    private static func composite(_ name: String, _ declaration: CompositeDeclaration,
                                  problem: (String, String) -> Void) -> CompositeAttributeDescription {
        var elements: [AttributeDescription] = []
        var nested: [CompositeAttributeDescription] = []
        for element in declaration.elements {
            let path = name + "." + element.name
            guard let (storage, isOptional) = DeclaredValueType.of(element.valueType) else {
                problem(path, "\(element.valueType) cannot be stored in a composite: use a number, String, Bool, Date, Data, UUID, URL, Decimal, an enum with such raw values, a Codable type or another @Composite struct")
                continue
            }
            switch storage {
            case .attribute(let attributeType, let conversion):
                var defaultValue = PropertyValue.null
                if let initial = element.initialValue?.value {
                    if let optional = initial as? any OptionalValue {
                        defaultValue = optional.wrapped.map { conversion.propertyValue(of: $0) } ?? .null
                    } else {
                        defaultValue = conversion.propertyValue(of: initial)
                    }
                } else if !isOptional, !hasZeroValue(conversion) {
                    problem(path, "a non-optional \(element.valueType) needs an initial value (or make it optional)")
                }
                let settings = element.settings
                var attributeType = attributeType
                if settings.options.contains(.transformable) {
                    guard attributeType == .binaryData else {
                        problem(path, ".transformable applies to a Data element, not \(element.valueType)")
                        continue
                    }
                    attributeType = .transformable
                }
                if settings.options.contains(.unique) {
                    problem(path, "an element cannot be .unique: declare a uniqueness constraint on the entity")
                }
                var stored = AttributeDescription(
                    element.name, attributeType, isOptional: isOptional, defaultValue: defaultValue,
                    minValue: settings.minValue, maxValue: settings.maxValue, minLength: settings.minLength,
                    maxLength: settings.maxLength, regularExpression: settings.regularExpression,
                    isIndexed: settings.options.contains(.indexed))
                stored.isText = settings.options.contains(.text)
                stored.renamingIdentifier = settings.originalName
                elements.append(stored)
            case .composite(let type):
                var inner = composite(element.name, type.compositeDeclaration) { key, reason in
                    problem(name + "." + key, reason)
                }
                inner.typeName = type.compositeDeclaration.typeName
                nested.append(inner)
            case .toOne, .toMany:
                problem(path, "a composite holds attribute values, not relationships (\(element.valueType))")
            }
        }
        return CompositeAttributeDescription(name, elements: elements, composites: nested)
    }

    /// Whether a null reads as a value of the type (0, "", false, …), so that a
    /// non-optional property needs no initial value.
    private static func hasZeroValue(_ conversion: DeclaredValueType.Conversion) -> Bool {
        if case .convertible = conversion { return true }
        return false
    }

    private func unwrap(_ value: Any) -> Any {
        if let optional = value as? any OptionalValue, let wrapped = optional.wrapped { return unwrap(wrapped) }
        return value
    }
}
