/// Declares an entity with a Swift class: the class's stored `var`s become the entity's
/// attributes and relationships, read and written through the object's storage and
/// observable with Swift's Observation.
///
/// ```swift
/// @Entity final class Department: ManagedObject {
///     var name: String
///     @Relationship(deleteRule: .cascade, inverse: \Employee.department)
///     var employees: Set<Employee>
/// }
///
/// @Entity final class Employee: ManagedObject {
///     var lastName: String
///     var salary: Int64? = 50_000
///     var department: Department?
/// }
///
/// let model = try ManagedObjectModel(types: [Department.self, Employee.self])
/// ```
///
/// A property's Swift type says how it is stored: numbers, `String`, `Bool`, `Date`,
/// `Data`, `UUID`, `URL` and `Decimal` as attributes of those types; an enum with such raw
/// values as its raw value; another `Codable` type as JSON in a transformable attribute; an
/// `@Entity` class as a to-one, a `Set` of them as a to-many and an `Array` as an ordered
/// to-many. An optional type makes an optional property; an initial value is the model's
/// default. Computed, `lazy` and `static` properties are left alone.
///
/// The class subclasses `ManagedObject` or another `@Entity` class (which makes its
/// entity the parent entity).
/// - Parameters:
///   - name: The entity's name; the class's name when nil.
///   - isAbstract: Whether objects of exactly this entity may not be inserted.
@attached(member, names: named(entityDeclaration), named(propertyName(for:)), named(propertyKeyPaths), named(optionalPropertyKeyPaths), named(entityName), named(init),
          named(observationRegistrar))
@attached(memberAttribute)
@attached(extension, conformances: ObservableManagedObject)
public macro Entity(name: String? = nil, isAbstract: Bool = false) =
    #externalMacro(module: "StrataMacros", type: "EntityMacro")

/// Put by `@Entity` on each stored property: accessors through the object's storage.
/// Not written by hand.
@attached(accessor, names: named(init), named(get), named(set))
public macro EntityProperty() = #externalMacro(module: "StrataMacros", type: "EntityPropertyMacro")

/// Settings of an attribute beyond its type, in Core Data's terms.
///
/// ```swift
/// @Attribute(.indexed, minValue: 0) var salary: Int64?
/// @Attribute(originalName: "surname") var lastName: String
/// @Attribute(derivation: "department.name") var departmentName: String?
/// ```
/// - Parameters:
///   - options: `.indexed`, `.unique`, `.text`.
///   - originalName: The attribute's name in an earlier model version (renaming identifier).
///   - minValue: The smallest allowed number or date.
///   - maxValue: The largest allowed number or date.
///   - minLength: The shortest allowed string or data.
///   - maxLength: The longest allowed string or data.
///   - regularExpression: A pattern the whole string must match.
///   - derivation: Makes a derived attribute (Core Data's `NSDerivedAttributeDescription`):
///     the expression, a string literal in the format of docs/PREDICATES.md, its value is
///     computed from at each save (`"department.name"`, `"employees.@count"`,
///     `"employees.@sum.salary"`, `"canonical:(name)"`, `"now()"`); the JSON model's
///     `derivation` (docs/MODEL-FORMAT.md §3). A derived property takes no initial value and
///     is not `@Transient`; writing it is refused at the next save, as `setValue` is.
@attached(peer)
public macro Attribute(
    _ options: AttributeOption..., originalName: String? = nil, minValue: PropertyValue? = nil,
    maxValue: PropertyValue? = nil, minLength: Int? = nil, maxLength: Int? = nil, regularExpression: String? = nil,
    derivation: String? = nil
) = #externalMacro(module: "StrataMacros", type: "AnnotationMacro")

/// Settings of a relationship, in Core Data's terms.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Employee.department)
/// var employees: Set<Employee>
/// ```
/// Name the inverse on one side only: the model names it on the other side too (and two
/// annotations naming each other by key path are a circular reference for the compiler). A
/// relationship whose inverse neither side names is an error when the model is built,
/// unless `inverse: nil` says it has none on purpose.
/// - Parameters:
///   - deleteRule: What deleting the object does to its destinations (default `.nullify`).
///   - inverse: The destination's relationship back, as a key path.
///   - isOptional: Whether the relationship may be empty when saved.
///   - minCount: The fewest destinations of a to-many.
///   - maxCount: The most destinations of a to-many; 0 for no limit.
///   - originalName: The relationship's name in an earlier model version.
@attached(peer)
public macro Relationship(
    deleteRule: DeleteRule = .nullify, inverse: AnyKeyPath? = nil, isOptional: Bool = true, minCount: Int = 0,
    maxCount: Int = 0, originalName: String? = nil
) = #externalMacro(module: "StrataMacros", type: "AnnotationMacro")

/// A transient property: part of the model, kept in memory and in undo, never written
/// to a store.
@attached(peer)
public macro Transient() = #externalMacro(module: "StrataMacros", type: "AnnotationMacro")

/// A property no two objects of the entity may share (a one-property uniqueness constraint).
@attached(peer)
public macro Unique() = #externalMacro(module: "StrataMacros", type: "AnnotationMacro")

/// A uniqueness constraint over several properties, written in the `@Entity` class's body.
///
/// ```swift
/// #UniquenessConstraint<Employee>([\.firstName, \.lastName])
/// ```
@freestanding(declaration)
public macro UniquenessConstraint<Root>(_ properties: [PartialKeyPath<Root>]) =
    #externalMacro(module: "StrataMacros", type: "DeclarationMarkerMacro")

/// A fetch index (Core Data's `NSFetchIndexDescription`) over properties, written in the
/// `@Entity` class's body; named `by` and the properties unless `name` says otherwise.
///
/// ```swift
/// #FetchIndex<Employee>([\.lastName, \.firstName])   // "byLastNameFirstName"
/// ```
@freestanding(declaration)
public macro FetchIndex<Root>(_ properties: [PartialKeyPath<Root>], name: String? = nil) =
    #externalMacro(module: "StrataMacros", type: "DeclarationMarkerMacro")

/// Declares a composite attribute's type (Core Data's `NSCompositeAttributeDescription`):
/// the struct's stored `var`s are the elements, each stored as an attribute of the entity
/// named `property.element`; a property of an `@Entity` class of the struct's type (declared
/// optional: a composite whose elements are all null is nil) is a composite attribute, the
/// JSON model's `composites` entry (docs/MODEL-FORMAT.md §3a).
///
/// ```swift
/// @Composite struct Address {
///     var city: String
///     var zip: String?
///     var geo: Geo?          // a nested @Composite struct
/// }
///
/// @Entity final class Site: ManagedObject {
///     var name: String
///     var address: Address?
/// }
/// ```
///
/// An element's Swift type says how it is stored, as for an entity's attribute (numbers,
/// `String`, `Bool`, `Date`, `Data`, `UUID`, `URL`, `Decimal`, enums with such raw values,
/// other `Codable` types as JSON, another `@Composite` struct as a nested composite); an
/// optional type makes an optional element and an initial value is its default;
/// `@Attribute(…)` on an element gives its constraints and settings as for an attribute
/// (not `derivation`: an element is stored, as are `@Transient` and `@Unique` refused).
@attached(extension, conformances: CompositeValue,
          names: named(compositeDeclaration), named(init(compositeElements:)), named(compositeElements))
public macro Composite() = #externalMacro(module: "StrataMacros", type: "CompositeMacro")

/// A fetched property (Core Data's `NSFetchedPropertyDescription`), written in the
/// `@Entity` class's body: the JSON model's `fetchedProperties` entry (docs/MODEL-FORMAT.md
/// §6). It declares a throwing accessor of that name, whose objects are fetched lazily
/// and cached as ``ManagedObject/fetchedProperty(_:)`` says.
///
/// ```swift
/// @Entity final class Department: ManagedObject {
///     var name: String
///     #FetchedProperty("highEarners", entity: Employee.self,
///                      predicate: "department == $FETCH_SOURCE AND salary > 100000")
/// }
/// let rich: [Employee] = try research.highEarners
/// ```
/// - Parameters:
///   - name: The fetched property's name (and the accessor's), a string literal.
///   - entity: The class of the entity fetched.
///   - predicate: The predicate as a string literal, in the format of docs/PREDICATES.md;
///     `$FETCH_SOURCE` is the object, `$FETCHED_PROPERTY` the property's name.
@freestanding(declaration, names: arbitrary)
public macro FetchedProperty<Destination: ManagedObject>(_ name: String, entity: Destination.Type, predicate: String) =
    #externalMacro(module: "StrataMacros", type: "FetchedPropertyMacro")
