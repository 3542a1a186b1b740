import Foundation

/// What happens to a relationship's destinations when its source object is deleted.
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// Remove the deleted object from the destinations' inverse relationship.
    case nullify
    /// Delete the destinations too.
    case cascade
    /// Refuse to save the delete while the relationship has destinations.
    case deny
    /// Leave the destinations' inverse pointing at the deleted object.
    case noAction
}

/// A to-one or to-many link from one entity to another.
///
/// ```swift
/// RelationshipDescription("employees", to: "Employee", toMany: true,
///                         inverse: "department", deleteRule: .cascade)
/// ```
public struct RelationshipDescription: Sendable, Hashable {
    /// The relationship's name.
    public var name: String
    /// The name of the destination entity.
    public var destinationEntityName: String
    /// The name of the inverse relationship on the destination, if any.
    public var inverseName: String?
    /// Whether the relationship holds several destinations.
    public var isToMany: Bool
    /// Whether a to-many keeps its destinations in order.
    public var isOrdered: Bool
    /// Whether the relationship may be empty when saved (default `true`).
    public var isOptional: Bool
    /// The smallest number of destinations of a to-many (applies when non-empty if optional).
    public var minCount: Int
    /// The largest number of destinations of a to-many; 0 means unbounded.
    public var maxCount: Int
    /// What a delete of the source does to the destinations.
    public var deleteRule: DeleteRule
    /// Whether the relationship is kept in memory and undo only.
    public var isTransient: Bool
    /// Free-form information for the application.
    public var userInfo: [String: String]
    /// The name this relationship had in an earlier model version (Xcode's renaming
    /// identifier): a migration carries that relationship's members into this one.
    public var renamingIdentifier: String?
    /// The storage slot of this relationship in its entity, assigned when the model is built.
    public internal(set) var slot: Int = -1
    /// The destination entity's index in the model, assigned when the model is built.
    public internal(set) var destinationIndex: Int = -1
    /// The inverse's storage slot in the destination, assigned when the model is built.
    public internal(set) var inverseSlot: Int?

    /// Creates a relationship description.
    public init(
        _ name: String, to destination: String, toMany: Bool = false, inverse: String? = nil,
        deleteRule: DeleteRule = .nullify, isOptional: Bool = true, isOrdered: Bool = false,
        minCount: Int = 0, maxCount: Int = 0, isTransient: Bool = false,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.destinationEntityName = destination
        self.inverseName = inverse
        self.isToMany = toMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.minCount = minCount
        self.maxCount = toMany ? maxCount : 1
        self.deleteRule = deleteRule
        self.isTransient = isTransient
        self.userInfo = userInfo
    }
}

/// A weak, one-way, lazily evaluated relationship defined by a predicate.
///
/// The predicate may use `$FETCH_SOURCE` (the object) and `$FETCHED_PROPERTY`.
public struct FetchedPropertyDescription: Sendable, Hashable {
    /// The fetched property's name.
    public var name: String
    /// The entity fetched.
    public var destinationEntityName: String
    /// The predicate in NSPredicate format.
    public var predicateFormat: String
    /// Free-form information for the application.
    public var userInfo: [String: String]

    /// Creates a fetched property description.
    public init(_ name: String, entity: String, predicate: String, userInfo: [String: String] = [:]) {
        self.name = name
        self.destinationEntityName = entity
        self.predicateFormat = predicate
        self.userInfo = userInfo
    }
}

/// A named fetch request stored in the model, whose predicate may hold `$VARIABLES`.
public struct FetchRequestTemplate: Sendable, Hashable {
    /// The template's name.
    public var name: String
    /// The entity it fetches.
    public var entityName: String
    /// The predicate in NSPredicate format, with `$VARIABLES` to substitute.
    public var predicateFormat: String

    /// Creates a template.
    public init(name: String, entity: String, predicate: String) {
        self.name = name
        self.entityName = entity
        self.predicateFormat = predicate
    }
}
