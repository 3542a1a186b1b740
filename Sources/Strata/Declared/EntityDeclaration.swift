import Foundation

/// An entity as a Swift class declares it: what the `@Entity` macro of StrataModels
/// generates from the class's properties, and ``ManagedObjectModel/init(types:versionIdentifier:)``
/// turns into an ``EntityDescription``.
///
/// Written by the macro, not by hand:
///
/// ```swift
/// @Entity final class Employee: ManagedObject {
///     var lastName: String
///     var salary: Int64? = 50_000
///     @Relationship(inverse: \Department.employees) var department: Department?
/// }
/// // expands (among other members) to
/// override class var entityDeclaration: EntityDeclaration? {
///     EntityDeclaration(name: "Employee", class: Employee.self, parent: nil, properties: [
///         .property("lastName", \Employee.lastName),
///         .property("salary", \Employee.salary, defaultValue: 50_000),
///         .relationship("department", \Employee.department, inverse: "employees"),
///     ])
/// }
/// ```
public struct EntityDeclaration: Sendable {
    /// The entity's name (the class's name unless `@Entity(name:)` says otherwise).
    public var name: String
    /// The class that declares the entity.
    public var objectClass: ManagedObject.Type
    /// The class of the parent entity; nil for a root entity (a direct ``ManagedObject`` subclass).
    public var parentClass: ManagedObject.Type?
    /// Whether objects of exactly this entity may not be inserted.
    public var isAbstract: Bool
    /// The properties the class declares, in source order (inherited ones are the parent's).
    public var properties: [PropertyDeclaration]
    /// Compound uniqueness constraints, each a list of property names (`@Unique`, `#Unique`).
    public var uniquenessConstraints: [[String]]
    /// The fetch indexes (`#FetchIndex`).
    public var fetchIndexes: [FetchIndexDescription]
    /// The fetched properties (`#FetchedProperty`).
    public var fetchedProperties: [FetchedPropertyDeclaration]

    /// Creates a declaration; the `@Entity` macro calls this.
    public init(name: String, class objectClass: ManagedObject.Type, parent: ManagedObject.Type?, isAbstract: Bool = false,
                properties: [PropertyDeclaration], uniquenessConstraints: [[String]] = [],
                fetchIndexes: [FetchIndexDescription] = [], fetchedProperties: [FetchedPropertyDeclaration] = []) {
        self.name = name
        self.objectClass = objectClass
        self.parentClass = parent
        self.isAbstract = isAbstract
        self.properties = properties
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.fetchedProperties = fetchedProperties
    }
}

/// A fetched property of an `@Entity` class (`#FetchedProperty`): the JSON model's
/// `fetchedProperties` entry (docs/MODEL-FORMAT.md §6), with the fetched entity named by
/// its class.
public struct FetchedPropertyDeclaration: Sendable {
    /// The fetched property's name.
    public var name: String
    /// The class of the entity fetched.
    public var destinationClass: ManagedObject.Type
    /// The predicate, in the format of docs/PREDICATES.md (`$FETCH_SOURCE` is the object).
    public var predicateFormat: String

    /// Creates a declaration; the `@Entity` macro calls this.
    public init(_ name: String, entity destinationClass: ManagedObject.Type, predicate: String) {
        self.name = name
        self.destinationClass = destinationClass
        self.predicateFormat = predicate
    }
}

/// One stored property of an `@Entity` class: its name, key path, Swift type and what its
/// `@Attribute`, `@Relationship` or `@Transient` annotation says.
public struct PropertyDeclaration: Sendable {
    /// What the annotation asked for; a ``PropertyDeclaration/Kind/property`` is whatever its type makes it.
    public enum Kind: Sendable {
        /// No annotation: an attribute or a relationship, as the Swift type says.
        case property
        /// `@Attribute(…)`: must be an attribute.
        case attribute
        /// `@Relationship(…)`: must be a relationship.
        case relationship
    }

    /// The property's name in the model.
    public let name: String
    /// The Swift property's key path.
    public let keyPath: AnyKeyPath & Sendable
    /// What the annotation asked for.
    public let kind: Kind
    /// The Swift type declared.
    let valueType: Any.Type
    /// The Swift default value (the property's initial value), if any.
    let initialValue: InitialValue?
    /// The attribute's settings, as `@Attribute` gave them.
    let attribute: AttributeSettings
    /// The relationship's settings, as `@Relationship` gave them.
    let relationship: RelationshipSettings
    /// Whether the property is transient (`@Transient`).
    let isTransient: Bool
    /// Tells the object's observers that the property changed.
    let announceChange: @Sendable (ManagedObject) -> Void

    struct AttributeSettings: Sendable {
        var options: [AttributeOption] = []
        var originalName: String?
        var minValue: PropertyValue?
        var maxValue: PropertyValue?
        var minLength: Int?
        var maxLength: Int?
        var regularExpression: String?
        /// `@Attribute(derivation:)`: the expression a derived attribute is computed from.
        var derivation: String?
    }

    struct RelationshipSettings: Sendable {
        var deleteRule: DeleteRule = .nullify
        var inverse: String?
        /// `@Relationship(inverse: nil)`: no inverse, on purpose.
        var isWithoutInverse = false
        var isOptional = true
        var minCount = 0
        var maxCount = 0
        var originalName: String?
    }

    private init<Root: ObservableManagedObject, Value>(
        _ name: String, _ keyPath: KeyPath<Root, Value> & Sendable, kind: Kind, defaultValue: Value?, isTransient: Bool,
        attribute: AttributeSettings = .init(), relationship: RelationshipSettings = .init()
    ) {
        self.name = name
        self.keyPath = keyPath
        self.kind = kind
        self.valueType = Value.self
        self.initialValue = defaultValue.map { InitialValue($0) }
        self.isTransient = isTransient
        self.attribute = attribute
        self.relationship = relationship
        self.announceChange = { object in
            guard let subject = object as? Root else { return }
            subject.observationRegistrar.willSet(subject, keyPath: keyPath)
            subject.observationRegistrar.didSet(subject, keyPath: keyPath)
        }
    }

    /// A property without annotation: an attribute or a relationship as its type says
    /// (`@Transient` sets `isTransient`).
    public static func property<Root: ObservableManagedObject, Value>(
        _ name: String, _ keyPath: KeyPath<Root, Value> & Sendable, defaultValue: Value? = nil, isTransient: Bool = false
    ) -> PropertyDeclaration {
        PropertyDeclaration(name, keyPath, kind: .property, defaultValue: defaultValue, isTransient: isTransient)
    }

    /// An attribute with the settings of its `@Attribute(…)` annotation; `derivation` makes
    /// it a derived attribute (docs/MODEL-FORMAT.md §3, `derivation`).
    public static func attribute<Root: ObservableManagedObject, Value>(
        _ name: String, _ keyPath: KeyPath<Root, Value> & Sendable, defaultValue: Value? = nil, isTransient: Bool = false,
        _ options: AttributeOption..., originalName: String? = nil, minValue: PropertyValue? = nil,
        maxValue: PropertyValue? = nil, minLength: Int? = nil, maxLength: Int? = nil, regularExpression: String? = nil,
        derivation: String? = nil
    ) -> PropertyDeclaration {
        PropertyDeclaration(name, keyPath, kind: .attribute, defaultValue: defaultValue, isTransient: isTransient,
                            attribute: AttributeSettings(options: options, originalName: originalName, minValue: minValue,
                                                         maxValue: maxValue, minLength: minLength, maxLength: maxLength,
                                                         regularExpression: regularExpression, derivation: derivation))
    }

    /// A relationship with the settings of its `@Relationship(…)` annotation; `inverse` is
    /// the name of the inverse relationship on the destination, `withoutInverse` says
    /// `@Relationship(inverse: nil)` asked for none.
    public static func relationship<Root: ObservableManagedObject, Value>(
        _ name: String, _ keyPath: KeyPath<Root, Value> & Sendable, defaultValue: Value? = nil, isTransient: Bool = false,
        deleteRule: DeleteRule = .nullify, inverse: String? = nil, withoutInverse: Bool = false, isOptional: Bool = true,
        minCount: Int = 0, maxCount: Int = 0, originalName: String? = nil
    ) -> PropertyDeclaration {
        PropertyDeclaration(name, keyPath, kind: .relationship, defaultValue: defaultValue, isTransient: isTransient,
                            relationship: RelationshipSettings(deleteRule: deleteRule, inverse: inverse,
                                                               isWithoutInverse: withoutInverse, isOptional: isOptional,
                                                               minCount: minCount, maxCount: maxCount,
                                                               originalName: originalName))
    }
}

/// Carries a property's initial value (evaluated in the macro's static context, so it is a
/// literal or a constant) into the declaration, which is `Sendable`.
struct InitialValue: @unchecked Sendable {
    let value: Any
    init(_ value: Any) { self.value = value }
}

/// What `@Attribute(…)` can say about an attribute beyond its type, in Core Data's terms.
public enum AttributeOption: Sendable, Hashable {
    /// The store keeps an index on the attribute (Core Data's "Indexed").
    case indexed
    /// No two objects of the entity may have the same value (a one-attribute uniqueness constraint).
    case unique
    /// A string people edit character by character (``AttributeDescription/isText``).
    case text
    /// A `Data` property stored as a transformable attribute (bytes the application
    /// encodes itself) rather than binary data; what `strata codegen --style macro` writes
    /// for a transformable attribute of a JSON or Xcode model.
    case transformable
}
