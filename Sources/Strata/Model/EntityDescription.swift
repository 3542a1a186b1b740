import Foundation

/// One entity of a model: its attributes, relationships and fetched properties, its parent
/// entity and sub-entities.
///
/// Entities are declared, then handed to ``ManagedObjectModel``, which resolves them
/// (inheritance, storage slots, inverses). Once in a model an entity must not change.
///
/// ```swift
/// let employee = EntityDescription("Employee", parent: "Person", attributes: [
///     AttributeDescription("salary", .integer64),
/// ], relationships: [
///     RelationshipDescription("department", to: "Department", inverse: "employees"),
/// ])
/// ```
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    /// The entity's name, unique in the model.
    public let name: String
    /// The parent entity's name, if any.
    public let parentName: String?
    /// Whether objects of exactly this entity may not be inserted.
    public let isAbstract: Bool
    /// The attributes declared on this entity (not inherited ones).
    public let declaredAttributes: [AttributeDescription]
    /// The relationships declared on this entity (not inherited ones).
    public let declaredRelationships: [RelationshipDescription]
    /// The fetched properties declared on this entity.
    public let declaredFetchedProperties: [FetchedPropertyDescription]
    /// Compound uniqueness constraints (each a list of attribute names).
    public let uniquenessConstraints: [[String]]
    /// Free-form information for the application.
    public let userInfo: [String: String]
    /// The class name the model file names (informational).
    public let representedClassName: String?
    /// A renaming identifier carried over from Xcode models (for migration).
    public let renamingIdentifier: String?
    /// The fetch indexes declared on this entity (see ``declaredIndexes`` for these plus
    /// the attributes marked indexed).
    public let fetchIndexes: [FetchIndexDescription]
    /// The composite attributes declared on this entity (not inherited ones).
    public let declaredComposites: [CompositeAttributeDescription]

    // Resolved by the model; fixed once the model is built. Those read on every change of
    // every object are `@exclusivity(unchecked)`: written only while the model resolves,
    // their reads need no dynamic exclusivity check.
    /// The entity's position in ``ManagedObjectModel/entities``.
    @exclusivity(unchecked) public internal(set) var index: Int = -1
    /// Every attribute, inherited ones first, indexed by storage slot order.
    @exclusivity(unchecked) public internal(set) var attributes: [AttributeDescription] = []
    /// Every relationship, inherited ones first.
    @exclusivity(unchecked) public internal(set) var relationships: [RelationshipDescription] = []
    /// Every fetched property, inherited ones first.
    public internal(set) var fetchedProperties: [FetchedPropertyDescription] = []
    /// Attributes by name.
    public internal(set) var attributesByName: [String: AttributeDescription] = [:]
    /// Every composite attribute, inherited ones first (their elements are in ``attributes``).
    public internal(set) var composites: [CompositeAttributeDescription] = []
    /// Relationships by name.
    public internal(set) var relationshipsByName: [String: RelationshipDescription] = [:]
    /// The parent entity.
    public internal(set) weak var superentity: EntityDescription?
    /// The direct sub-entities.
    public internal(set) var subentities: [EntityDescription] = []
    /// The names of stored properties by slot (attributes and relationships).
    @exclusivity(unchecked) public internal(set) var slotNames: [String] = []
    /// The number of storage slots (attributes plus relationships, inherited included).
    public var slotCount: Int { slotNames.count }
    @exclusivity(unchecked) internal var slotKinds: [SlotKind] = []
    /// The slots of the text attributes (own and inherited), ascending; empty for most
    /// entities, so a flush checks no further without.
    @exclusivity(unchecked) internal var textSlots: [Int] = []
    /// Whether any attribute (own or inherited) is derived: a write checks no further without.
    @exclusivity(unchecked) internal var hasDerivedAttributes = false
    /// A new object's values by slot: each attribute's default, to-manys empty, to-ones
    /// NULL. Built once when the model lays the entity out, so making an object (a fault a
    /// fetch returns, above all) shares it instead of walking the attributes.
    @exclusivity(unchecked) internal var initialValues: [PropertyValue] = []
    /// The transient attributes' slots and default values (own and inherited), which a
    /// record read from a store gets (stores keep no transient value).
    @exclusivity(unchecked) internal var transientDefaults: [(slot: Int, value: PropertyValue)] = []
    @exclusivity(unchecked) internal private(set) var slotNameTable = SlotNameTable.empty
    /// Owns `slotNameTable`'s memory.
    internal var slotNameStorage: SlotNameStorage? {
        didSet { slotNameTable = slotNameStorage?.table ?? .empty }
    }
    internal weak var _model: ManagedObjectModel?

    /// Creates an entity declaration.
    public init(
        _ name: String, parent: String? = nil, isAbstract: Bool = false,
        attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        fetchedProperties: [FetchedPropertyDescription] = [], uniquenessConstraints: [[String]] = [],
        userInfo: [String: String] = [:], representedClassName: String? = nil,
        renamingIdentifier: String? = nil, fetchIndexes: [FetchIndexDescription] = [],
        composites: [CompositeAttributeDescription] = []
    ) {
        self.name = name
        self.parentName = parent
        self.isAbstract = isAbstract
        self.declaredAttributes = attributes
        self.declaredRelationships = relationships
        self.declaredFetchedProperties = fetchedProperties
        self.uniquenessConstraints = uniquenessConstraints
        self.userInfo = userInfo
        self.representedClassName = representedClassName
        self.renamingIdentifier = renamingIdentifier
        self.fetchIndexes = fetchIndexes
        self.declaredComposites = composites
    }

    /// A fresh, unresolved copy of the declaration (used when merging models).
    public func copyDeclaration() -> EntityDescription {
        EntityDescription(
            name, parent: parentName, isAbstract: isAbstract, attributes: declaredAttributes,
            relationships: declaredRelationships, fetchedProperties: declaredFetchedProperties,
            uniquenessConstraints: uniquenessConstraints, userInfo: userInfo,
            representedClassName: representedClassName, renamingIdentifier: renamingIdentifier,
            fetchIndexes: fetchIndexes, composites: declaredComposites)
    }

    /// The model the entity belongs to.
    public var model: ManagedObjectModel? { _model }

    /// The top of this entity's inheritance chain (itself when it has no parent).
    public var rootEntity: EntityDescription {
        if rootEntityIndex >= 0, let model = _model { return model.entities[rootEntityIndex] }
        var entity = self
        while let parent = entity.superentity { entity = parent }
        return entity
    }

    /// The root entity's index in the model, set when the model is built (object IDs and
    /// the registry use it on every lookup; walking `superentity` loads weak references).
    @exclusivity(unchecked) public internal(set) var rootEntityIndex: Int = -1

    /// This entity and every entity below it, depth first.
    public var selfAndDescendants: [EntityDescription] {
        [self] + subentities.flatMap(\.selfAndDescendants)
    }

    /// Whether `self` is `entity` or one of its descendants.
    public func isKind(of entity: EntityDescription) -> Bool {
        var current: EntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.superentity
        }
        return false
    }

    /// The storage slot of an attribute or relationship, or nil.
    public func slot(forKey key: String) -> Int? { slotNameTable.slot(key) }

    /// The attribute or relationship names in model order.
    public var propertyNames: [String] { slotNames }

    /// The destination entity of a relationship.
    public func destination(of relationship: RelationshipDescription) -> EntityDescription {
        _model!.entities[relationship.destinationIndex]
    }

    /// The entity's name.
    public var description: String { name }
}

/// What a storage slot holds, so hot paths avoid dictionary lookups.
enum SlotKind: Sendable {
    case attribute(Int)       // index into `attributes`
    case relationship(Int)    // index into `relationships`
}

extension EntityDescription {
    /// Whether a storage slot holds an unordered to-many relationship (whose changes are
    /// logged as `.relate` operations rather than updates).
    @inline(__always)
    func isUnorderedToMany(slot: Int) -> Bool {
        guard case .relationship(let index) = slotKinds[slot] else { return false }
        return relationships[index].isToMany && !relationships[index].isOrdered
    }
}
