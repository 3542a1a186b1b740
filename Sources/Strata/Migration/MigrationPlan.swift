import Foundation

/// How records of one model version become records of another, inferred from the two
/// models alone (Core Data's lightweight migration): entities and properties are matched
/// by renaming identifier (an element's renaming identifier, or its name when it has
/// none), and every change between a matched pair must be one Strata can carry out without
/// being told how.
///
/// Inferred: added and removed attributes, relationships and entities; renames through
/// renaming identifiers; optional → required when the attribute has a default;
/// required → optional; a changed parent entity; to-one → to-many; numeric widening
/// (integer 16 → 32 → 64, float → double, integer → double or decimal); changed
/// uniqueness constraints and indexes. Anything else is refused, naming each blocking
/// entity and property (docs/MIGRATION.md).
///
/// ```swift
/// let plan = try MigrationPlan(from: storedModel, to: newModel)
/// print(plan.summary)
/// ```
public struct MigrationPlan: Sendable {
    /// The model the records are in.
    public let source: ManagedObjectModel
    /// The model they are migrated to.
    public let destination: ManagedObjectModel
    /// For each destination entity (by index), the source entity its records come from,
    /// or nil for an entity that is new.
    let sourceEntity: [Int?]
    /// For each destination entity (by index) and slot, the source slot its value comes
    /// from (in the source entity), or nil for a property that is new.
    let sourceSlot: [[Int?]]
    /// Source entities (by index) whose records are dropped: no destination entity has
    /// their renaming identifier.
    let removedEntities: [Int]
    /// One line per change, for reports and dry runs.
    public let changes: [String]

    /// Infers the mapping from `source` to `destination`.
    /// - Throws: ``StrataStorage/StrataError`` `.modelIncompatible` listing every change that cannot be
    ///   inferred (`context.blocking`: the entities and properties).
    public init(from source: ManagedObjectModel, to destination: ManagedObjectModel) throws {
        try self.init(from: source, to: destination, custom: false)
    }

    /// The mapping of a stage: with `custom`, a custom stage's code completes the records,
    /// so an attribute whose type changes is not carried (the code sets it) and a new or
    /// newly required attribute or to-one needs no default (the code must give it).
    init(from source: ManagedObjectModel, to destination: ManagedObjectModel, custom: Bool) throws {
        self.source = source
        self.destination = destination
        var blockers: [(name: String, reason: String)] = []
        var changes: [String] = []
        func key(_ name: String, _ renaming: String?) -> String { renaming ?? name }
        var sourceByKey: [String: EntityDescription] = [:]
        for entity in source.entities { sourceByKey[key(entity.name, entity.renamingIdentifier)] = entity }
        var entityMap: [Int?] = []
        var used = Set<Int>()
        for entity in destination.entities {
            let wanted = key(entity.name, entity.renamingIdentifier)
            let match = sourceByKey[wanted] ?? source.entitiesByName[wanted] ?? source.entitiesByName[entity.name]
            if let match, !used.contains(match.index) {
                entityMap.append(match.index)
                used.insert(match.index)
                if match.name != entity.name { changes.append("\(match.name): renamed \(entity.name)") }
                if match.parentName != entity.parentName {
                    changes.append("\(entity.name): parent \(match.parentName ?? "none") → \(entity.parentName ?? "none")")
                }
                if entity.isAbstract, !match.isAbstract {
                    blockers.append((entity.name, "becomes abstract, and its records could have no entity"))
                }
            } else {
                entityMap.append(nil)
                changes.append("\(entity.name): new entity")
            }
        }
        let removed = source.entities.map(\.index).filter { !used.contains($0) }
        for index in removed { changes.append("\(source.entities[index].name): entity removed, its records dropped") }
        var slotMap: [[Int?]] = []
        for entity in destination.entities {
            guard let sourceIndex = entityMap[entity.index] else {
                slotMap.append(Array(repeating: nil, count: entity.slotCount))   // a new entity has no records
                continue
            }
            let old = source.entities[sourceIndex]
            var slots: [Int?] = []
            var matched = Set<Int>()
            for slot in 0..<entity.slotCount {
                let name = entity.slotName(slot)
                let label = "\(entity.name).\(name)"
                if let attribute = entity.attributesByName[name] {
                    let oldAttribute = Self.match(attribute.name, attribute.renamingIdentifier, in: old.attributes.map { ($0.name, $0.renamingIdentifier, $0.slot) })
                        .flatMap { old.attributesByName[old.slotName($0)] }
                    guard !attribute.isTransient else { slots.append(nil); continue }
                    guard let oldAttribute, !oldAttribute.isTransient else {
                        slots.append(nil)
                        if !attribute.isOptional, attribute.defaultValue.isNull, !custom {
                            blockers.append((label, "is new and required but has no default value"))
                        } else {
                            changes.append("\(label): new attribute")
                        }
                        continue
                    }
                    if custom, oldAttribute.attributeType != attribute.attributeType,
                       !Self.widens(oldAttribute.attributeType, to: attribute.attributeType) {
                        slots.append(nil)
                        changes.append("\(label): \(oldAttribute.attributeType.rawValue) → \(attribute.attributeType.rawValue), set by the custom stage")
                        continue
                    }
                    matched.insert(oldAttribute.slot)
                    slots.append(oldAttribute.slot)
                    if oldAttribute.name != attribute.name { changes.append("\(old.name).\(oldAttribute.name): renamed \(name)") }
                    if oldAttribute.attributeType != attribute.attributeType {
                        if Self.widens(oldAttribute.attributeType, to: attribute.attributeType) {
                            changes.append("\(label): \(oldAttribute.attributeType.rawValue) widened to \(attribute.attributeType.rawValue)")
                        } else {
                            blockers.append((label, "changes type \(oldAttribute.attributeType.rawValue) → \(attribute.attributeType.rawValue), which is not a widening"))
                        }
                    }
                    if oldAttribute.isOptional, !attribute.isOptional {
                        if attribute.defaultValue.isNull, !custom {
                            blockers.append((label, "becomes required but has no default value for records without one"))
                        } else {
                            changes.append("\(label): becomes required, missing values get the default")
                        }
                    } else if !oldAttribute.isOptional, attribute.isOptional {
                        changes.append("\(label): becomes optional")
                    }
                    if oldAttribute.isIndexed != attribute.isIndexed {
                        changes.append("\(label): index \(attribute.isIndexed ? "added" : "dropped")")
                    }
                } else if let relationship = entity.relationshipsByName[name] {
                    let oldRelationship = Self.match(relationship.name, relationship.renamingIdentifier,
                                                     in: old.relationships.compactMap { r in old.slotIndex(of: r.name).map { (r.name, r.renamingIdentifier, $0) } })
                        .flatMap { old.relationshipsByName[old.slotName($0)] }
                    guard !relationship.isTransient else { slots.append(nil); continue }
                    guard let oldRelationship, !oldRelationship.isTransient, let oldSlot = old.slotIndex(of: oldRelationship.name) else {
                        slots.append(nil)
                        if !relationship.isToMany, !relationship.isOptional, !custom {
                            blockers.append((label, "is a new required to-one, which existing records cannot have"))
                        } else if relationship.isToMany, relationship.minCount > 0 {
                            blockers.append((label, "is a new to-many with a minimum count, which existing records cannot meet"))
                        } else {
                            changes.append("\(label): new relationship")
                        }
                        continue
                    }
                    let oldDestination = source.entitiesByName[oldRelationship.destinationEntityName]
                    let mappedDestination = destination.entitiesByName[relationship.destinationEntityName].flatMap { entityMap[$0.index] }
                    if custom, oldDestination?.index != mappedDestination || (oldRelationship.isToMany && !relationship.isToMany) {
                        slots.append(nil)
                        changes.append("\(label): not carried (its destination or shape changes), set by the custom stage")
                        continue
                    }
                    matched.insert(oldSlot)
                    slots.append(oldSlot)
                    if oldRelationship.name != relationship.name { changes.append("\(old.name).\(oldRelationship.name): renamed \(name)") }
                    if oldDestination?.index != mappedDestination {
                        blockers.append((label, "points to \(relationship.destinationEntityName), which is not what \(oldRelationship.destinationEntityName) became"))
                    }
                    if oldRelationship.isToMany, !relationship.isToMany {
                        blockers.append((label, "changes to-many → to-one, which would drop members"))
                    } else if !oldRelationship.isToMany, relationship.isToMany {
                        changes.append("\(label): to-one → to-many")
                    }
                    if oldRelationship.isOrdered != relationship.isOrdered {
                        changes.append("\(label): \(relationship.isOrdered ? "becomes ordered (by key)" : "no longer ordered")")
                    }
                    if oldRelationship.isOptional, !relationship.isOptional, !relationship.isToMany, !custom {
                        blockers.append((label, "becomes a required to-one, which records without one cannot meet"))
                    }
                } else {
                    slots.append(nil)
                }
            }
            for slot in 0..<old.slotCount where !matched.contains(slot) && !RowTable.isTransient(slot, of: old) {
                changes.append("\(old.name).\(old.slotName(slot)): removed")
            }
            if Set(old.uniquenessConstraints.map { $0.joined(separator: ",") }) != Set(entity.uniquenessConstraints.map { $0.joined(separator: ",") }) {
                changes.append("\(entity.name): uniqueness constraints changed (checked against the records)")
            }
            slotMap.append(slots)
        }
        if !blockers.isEmpty {
            let lines = blockers.map { "\($0.name) \($0.reason)" }
            throw StrataError(.modelIncompatible,
                              "The migration cannot be inferred: " + lines.joined(separator: "; ") + ".",
                              context: .init { $0.blocking = blockers.map(\.name) })
        }
        sourceEntity = entityMap
        sourceSlot = slotMap
        removedEntities = removed
        self.changes = changes
    }

    /// Whether the two models store records the same way (nothing to migrate).
    public var isEmpty: Bool { source.versionHash == destination.versionHash }

    /// The slot named `name` or carrying `renaming` among `(name, renamingIdentifier, slot)`:
    /// the one whose own renaming identifier (or name) equals the destination's, else the
    /// one of the same name.
    private static func match(_ name: String, _ renaming: String?, in candidates: [(String, String?, Int)]) -> Int? {
        let wanted = renaming ?? name
        if let found = candidates.first(where: { ($0.1 ?? $0.0) == wanted }) { return found.2 }
        if let found = candidates.first(where: { $0.0 == wanted }) { return found.2 }
        return candidates.first(where: { $0.0 == name })?.2
    }

    /// Whether every value of `old` is a value of `new` without loss.
    static func widens(_ old: AttributeType, to new: AttributeType) -> Bool {
        switch (old.valueKind, new.valueKind) {
        case (.integer, .integer):
            guard let from = old.integerRange, let to = new.integerRange else { return false }
            return to.lowerBound <= from.lowerBound && from.upperBound <= to.upperBound
        case (.integer, .double):
            // A double holds every integer up to 2^53 exactly; a float only up to 2^24.
            guard let from = old.integerRange, !new.isSinglePrecision else { return false }
            return from.lowerBound >= -(1 << 53) && from.upperBound <= 1 << 53
        case (.double, .double): return old.isSinglePrecision && !new.isSinglePrecision
        case (.integer, .decimal): return true
        case (.data, .data): return old != new
        default: return false
        }
    }
}

extension EntityDescription {
    /// The slot of the property named `name`, if any.
    func slotIndex(of name: String) -> Int? { slotNames.firstIndex(of: name) }
}
