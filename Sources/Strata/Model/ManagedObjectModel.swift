import Foundation

/// A model: the entities of a document, their configurations and fetch request templates.
///
/// Building a model resolves inheritance, storage slots and inverses, and validates the
/// whole; every problem is reported in one ``StrataStorage/StrataError`` with code `.invalidModel`.
///
/// ```swift
/// let model = try ManagedObjectModel(entities: [department, employee])
/// let employee = model.entitiesByName["Employee"]!
/// ```
public final class ManagedObjectModel: @unchecked Sendable {
    /// The entities, in declaration order.
    public let entities: [EntityDescription]
    /// Entities by name.
    public let entitiesByName: [String: EntityDescription]
    /// Named subsets of entities; a store is added for one configuration.
    public let configurations: [String: [String]]
    /// Named fetch request templates.
    public let fetchRequestTemplatesByName: [String: FetchRequestTemplate]
    /// A free-form version identifier (Xcode's `userDefinedModelVersionIdentifier`).
    public let versionIdentifier: String?
    /// What loading the model file left out, one sentence each: elements of an Xcode model
    /// that Strata cannot honour and that change no stored data (an empty composite, a
    /// validation constraint it cannot read, a transient attribute of a type it does not
    /// model). Empty for a model built in code or read from JSON; the model stored in a
    /// document (``DocumentStore/storedModel(at:configuration:)``) keeps the warnings of the
    /// model file it was created or migrated with, so `strata info` can show them.
    /// docs/MODEL-FORMAT.md, "Lenient and strict".
    public internal(set) var loadWarnings: [String] = []
    /// The derived attributes, resolved once the model is built (DerivedAttributeDescription.swift).
    internal private(set) var derivationPlan = DerivationPlan.empty
    /// The subclass registered for each entity name. The model owns its registrations, so
    /// they go with it: a table outside keyed by the model's address outlived the model, and
    /// a new model allocated at the same address inherited its classes.
    let classRegistrations = Locked<[String: ManagedObject.Type]>([:])
    /// Whether a registered class takes part in Observation (an `@Entity` class): only then
    /// does a context tell objects of their changes (ManagedObjectContext+Observation.swift).
    let hasObservableClasses = Locked(false)
    /// The segment decoder's plan of each entity by index, built on first use
    /// (``SegmentModelPlan``).
    let segmentPlans = Locked<[SegmentEntityPlan?]>([])

    /// Property names that collide with the object's own API and are refused.
    public static let reservedPropertyNames: Set<String> = [
        "description", "debugDescription", "objectID", "entity", "context", "managedObjectContext",
        "isFault", "isInserted", "isUpdated", "isDeleted", "hasChanges", "hasPersistentChangedValues",
        "faultingState", "changedValues", "committedValues", "self", "hash", "hashValue", "class",
        "superclass", "isTemporaryID", "value", "setValue", "willSave", "didSave", "awakeFromInsert",
        "awakeFromFetch", "prepareForDeletion", "didTurnIntoFault", "validateForInsert",
        "validateForUpdate", "validateForDelete",
    ]

    /// Builds and validates a model.
    /// - Throws: ``StrataStorage/StrataError`` `.invalidModel` listing every problem found.
    public init(
        entities declared: [EntityDescription], configurations: [String: [String]] = [:],
        fetchRequestTemplates: [FetchRequestTemplate] = [], versionIdentifier: String? = nil
    ) throws {
        var problems: [StrataError.Problem] = []
        func problem(_ entity: String, _ key: String?, _ reason: String) {
            problems.append(.init(entityName: entity, object: nil, key: key, reason: reason))
        }
        var byName: [String: EntityDescription] = [:]
        for entity in declared {
            if entity.index >= 0 || entity._model != nil {
                problem(entity.name, nil, "the entity already belongs to a model; use copyDeclaration()")
            }
            if byName[entity.name] != nil {
                problem(entity.name, nil, "the entity name is defined twice")
            } else {
                byName[entity.name] = entity
            }
            if entity.name.isEmpty { problem("(unnamed)", nil, "an entity needs a name") }
        }
        var templateNames: Set<String> = []
        for template in fetchRequestTemplates where !templateNames.insert(template.name).inserted {
            problem(template.entityName, nil, "fetch request template '\(template.name)' is defined twice")
        }
        self.entities = declared
        self.entitiesByName = byName
        self.configurations = configurations
        self.fetchRequestTemplatesByName = Dictionary(
            fetchRequestTemplates.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.versionIdentifier = versionIdentifier
        if !problems.isEmpty { throw Self.invalid(problems) }

        for (index, entity) in declared.enumerated() {
            entity.index = index
            entity._model = self
            if let parentName = entity.parentName {
                guard let parent = byName[parentName] else {
                    problem(entity.name, nil, "parent entity '\(parentName)' is not in the model")
                    continue
                }
                entity.superentity = parent
                parent.subentities.append(entity)
            }
        }
        for entity in declared where Self.hasInheritanceCycle(entity) {
            problem(entity.name, nil, "the entity inherits from itself")
        }
        if !problems.isEmpty {
            // A parent cycle is also a cycle of strong `subentities` references: unlinked,
            // the refused entities can be freed (LeakSanitizer found them kept forever).
            for entity in declared { entity.subentities = [] }
            throw Self.invalid(problems)
        }

        for entity in Self.parentsFirst(declared) { Self.resolveProperties(of: entity, problem: problem) }
        for entity in Self.parentsFirst(declared) { entity.rootEntityIndex = entity.superentity?.rootEntityIndex ?? entity.index }
        for entity in declared { Self.resolveRelationships(of: entity, in: byName, problem: problem) }
        for entity in declared {
            for constraint in entity.uniquenessConstraints {
                if constraint.isEmpty { problem(entity.name, nil, "a uniqueness constraint names no property") }
                for name in constraint where entity.slot(forKey: name) == nil {
                    problem(entity.name, name, "the uniqueness constraint names an unknown property")
                }
            }
            for fetched in entity.declaredFetchedProperties where byName[fetched.destinationEntityName] == nil {
                problem(entity.name, fetched.name,
                        "fetched property entity '\(fetched.destinationEntityName)' is not in the model")
            }
        }
        for (name, members) in configurations {
            for member in members where byName[member] == nil {
                problem(member, nil, "configuration '\(name)' names an entity that is not in the model")
            }
        }
        for template in fetchRequestTemplates where byName[template.entityName] == nil {
            problem(template.entityName, nil, "fetch request template '\(template.name)' names an unknown entity")
        }
        problems += Self.fetchIndexProblems(declared)
        problems += TextAttributeCheck.problems(in: declared)
        if !problems.isEmpty { throw Self.invalid(problems) }
        problems = Self.sqlNameProblems(self)
        if !problems.isEmpty { throw Self.invalid(problems) }
        problems = DerivationCheck.problems(in: self)
        if !problems.isEmpty { throw Self.invalid(problems) }
        derivationPlan = DerivationPlan(self)
    }

    private static func invalid(_ problems: [StrataError.Problem]) -> StrataError {
        StrataError(.invalidModel, "The model is invalid (\(problems.count) problem\(problems.count == 1 ? "" : "s")).",
                    problems: problems)
    }

    private static func hasInheritanceCycle(_ entity: EntityDescription) -> Bool {
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(entity)]
        var current = entity.superentity
        while let parent = current {
            if !seen.insert(ObjectIdentifier(parent)).inserted { return true }
            current = parent.superentity
        }
        return false
    }

    private static func parentsFirst(_ entities: [EntityDescription]) -> [EntityDescription] {
        entities.filter { $0.superentity == nil }.flatMap(\.selfAndDescendants)
    }

    private static func resolveProperties(
        of entity: EntityDescription, problem: (String, String?, String) -> Void
    ) {
        let parent = entity.superentity
        var attributes = parent?.attributes ?? []
        var relationships = parent?.relationships ?? []
        var slotNames = parent?.slotNames ?? []
        var kinds = parent?.slotKinds ?? []
        var seen = Set(slotNames)
        for fetched in parent?.fetchedProperties ?? [] { seen.insert(fetched.name) }
        func check(_ name: String) -> Bool {
            if name.isEmpty { problem(entity.name, nil, "a property needs a name"); return false }
            if reservedPropertyNames.contains(name) {
                problem(entity.name, name, "'\(name)' is reserved: it collides with the object's own API")
                return false
            }
            if !seen.insert(name).inserted {
                problem(entity.name, name, "the property name is used twice (own or inherited)")
                return false
            }
            return true
        }
        for var attribute in entity.declaredAttributes where check(attribute.name) {
            attribute.slot = slotNames.count
            kinds.append(.attribute(attributes.count))
            slotNames.append(attribute.name)
            for reason in attribute._declarationProblems() {
                problem(entity.name, attribute.name, reason)
            }
            attributes.append(attribute)
        }
        // A composite's elements are stored attributes named `composite.element`.
        for composite in entity.declaredComposites where check(composite.name) {
            for reason in composite.declarationProblems() { problem(entity.name, composite.name, reason) }
            for var attribute in composite.storedElements where check(attribute.name) {
                attribute.slot = slotNames.count
                kinds.append(.attribute(attributes.count))
                slotNames.append(attribute.name)
                for reason in attribute._declarationProblems() { problem(entity.name, attribute.name, reason) }
                attributes.append(attribute)
            }
        }
        entity.composites = (parent?.composites ?? []) + entity.declaredComposites
        for var relationship in entity.declaredRelationships where check(relationship.name) {
            relationship.slot = slotNames.count
            kinds.append(.relationship(relationships.count))
            slotNames.append(relationship.name)
            relationships.append(relationship)
        }
        var fetched = parent?.fetchedProperties ?? []
        for property in entity.declaredFetchedProperties where check(property.name) {
            fetched.append(property)
        }
        entity.attributes = attributes
        entity.relationships = relationships
        entity.fetchedProperties = fetched
        entity.slotNames = slotNames
        entity.slotKinds = kinds
        var initial = [PropertyValue](repeating: .null, count: slotNames.count)
        for attribute in attributes { initial[attribute.slot] = attribute.defaultValue }
        for relationship in relationships where relationship.isToMany { initial[relationship.slot] = .objects([]) }
        entity.initialValues = initial
        entity.transientDefaults = attributes.filter(\.isTransient).map { ($0.slot, $0.defaultValue) }
        entity.textSlots = attributes.filter(\.isText).map(\.slot)
        entity.slotNameStorage = SlotNameStorage(slotNames)
        entity.attributesByName = Dictionary(uniqueKeysWithValues: attributes.map { ($0.name, $0) })
    }

    /// Resolves every relationship of `entity` (own and inherited: each entity keeps its own
    /// resolved copies) and reports problems only for the relationships the entity declares,
    /// so an error in a parent is not repeated for every sub-entity.
    private static func resolveRelationships(
        of entity: EntityDescription, in byName: [String: EntityDescription],
        problem report: (String, String?, String) -> Void
    ) {
        let inheritedCount = entity.superentity?.relationships.count ?? 0
        for (position, relationship) in entity.relationships.enumerated() {
            func problem(_ reason: String) {
                if position >= inheritedCount { report(entity.name, relationship.name, reason) }
            }
            var resolved = relationship
            guard let destination = byName[relationship.destinationEntityName] else {
                problem("destination entity '\(relationship.destinationEntityName)' is not in the model")
                continue
            }
            resolved.destinationIndex = destination.index
            if let inverseName = relationship.inverseName {
                guard let inverseSlot = destination.slot(forKey: inverseName),
                      case .relationship(let inverseIndex) = destination.slotKinds[inverseSlot]
                else {
                    problem("inverse '\(inverseName)' is not a relationship of '\(destination.name)'")
                    continue
                }
                let inverse = destination.relationships[inverseIndex]
                let back = byName[inverse.destinationEntityName]
                if let back, !(entity.isKind(of: back) || back.isKind(of: entity)) {
                    problem("inverse '\(destination.name).\(inverseName)' points at '\(back.name)', not '\(entity.name)'")
                } else if let backName = inverse.inverseName, backName != relationship.name {
                    problem("inverse mismatch: '\(destination.name).\(inverseName)' names '\(backName)' as its inverse")
                } else if inverse.inverseName == nil {
                    problem("inverse mismatch: '\(destination.name).\(inverseName)' has no inverse; it must name '\(relationship.name)'")
                }
                resolved.inverseSlot = inverseSlot
            }
            if relationship.isToMany, relationship.maxCount > 0, relationship.minCount > relationship.maxCount {
                problem("minCount \(relationship.minCount) is larger than maxCount \(relationship.maxCount)")
            }
            if relationship.isOrdered, !relationship.isToMany {
                problem("only a to-many relationship can be ordered")
            }
            entity.relationships[position] = resolved
        }
        entity.relationshipsByName = Dictionary(uniqueKeysWithValues: entity.relationships.map { ($0.name, $0) })
    }

    /// The entities in a configuration; all entities for `nil` or an unknown name.
    public func entities(forConfiguration name: String?) -> [EntityDescription] {
        guard let name, let members = configurations[name] else { return entities }
        return members.compactMap { entitiesByName[$0] }
    }

    /// The entity with the given name.
    /// - Throws: ``StrataStorage/StrataError`` `.unknownKey` naming the entity.
    public func entity(named name: String) throws -> EntityDescription {
        guard let entity = entitiesByName[name] else {
            throw StrataError(.unknownKey, "There is no entity named '\(name)' in the model.",
                              context: .init { $0.entity = name })
        }
        return entity
    }
}
