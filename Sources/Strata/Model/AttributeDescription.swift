import Foundation

/// One attribute of an entity: a typed value with optionality, a default, transience and
/// validation constraints.
///
/// ```swift
/// AttributeDescription("salary", .integer64, isOptional: true, minValue: 0)
/// ```
public struct AttributeDescription: Sendable, Hashable {
    /// The attribute's name, unique within the entity and its ancestors.
    public var name: String
    /// The storage type.
    public var attributeType: AttributeType
    /// Whether the attribute may be `null` when saved (default `true`).
    public var isOptional: Bool
    /// Whether the attribute is kept in memory and in undo only, never written to a store.
    public var isTransient: Bool
    /// The value a newly inserted object starts with (default `null`).
    public var defaultValue: PropertyValue
    /// The smallest allowed number or date (inclusive).
    public var minValue: PropertyValue?
    /// The largest allowed number or date (inclusive).
    public var maxValue: PropertyValue?
    /// The shortest allowed string (characters) or data (bytes).
    public var minLength: Int?
    /// The longest allowed string (characters) or data (bytes).
    public var maxLength: Int?
    /// A regular expression the whole string must match.
    public var regularExpression: String?
    /// Whether the store keeps an index on this attribute.
    public var isIndexed: Bool
    /// For transformable attributes: the name of the value transformer (informational).
    public var valueTransformerName: String?
    /// Free-form information for the application.
    public var userInfo: [String: String]
    /// For a derived attribute (Core Data's `NSDerivedAttributeDescription`): the expression
    /// its value is computed from when the context saves; nil for an ordinary attribute.
    /// See <doc:DerivedAttributes>.
    public var derivation: FetchExpression?
    /// The name this attribute had in an earlier model version (Xcode's renaming
    /// identifier): a migration carries that attribute's values into this one.
    public var renamingIdentifier: String?
    /// Whether this string attribute is a **text**: a string people edit character by
    /// character. Its changes are splices (``ManagedObject/replaceCharacters(in:with:forKey:)-(Range<Int>,_,_)``,
    /// and `setValue` of a whole string turned into the fewest splices), recorded in the
    /// log as ``TextEdit``s, merged character-wise with other contexts', processes' and
    /// replicas' edits, and undone per context; it reads, fetches, sorts and is stored as a
    /// string like any other (docs/TEXT.md). Only `.string` attributes that are stored
    /// and not derived can be texts. In a JSON model: `"text": true`; in an Xcode model:
    /// the attribute's `userInfo` entry `strata.text` = `YES`.
    public var isText: Bool = false
    /// The storage slot of this attribute in its entity, assigned when the model is built.
    public internal(set) var slot: Int = -1
    /// For an element of a composite attribute: the composite's name (the attribute is then
    /// named `composite.element`); nil for an ordinary attribute.
    public internal(set) var compositeName: String? = nil

    /// Creates an attribute description.
    public init(
        _ name: String, _ type: AttributeType, isOptional: Bool = true, isTransient: Bool = false,
        defaultValue: PropertyValue = .null, minValue: PropertyValue? = nil,
        maxValue: PropertyValue? = nil, minLength: Int? = nil, maxLength: Int? = nil,
        regularExpression: String? = nil, isIndexed: Bool = false,
        valueTransformerName: String? = nil, userInfo: [String: String] = [:],
        derivation: FetchExpression? = nil
    ) {
        self.name = name
        self.attributeType = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.defaultValue = defaultValue
        self.minValue = minValue
        self.maxValue = maxValue
        self.minLength = minLength
        self.maxLength = maxLength
        self.regularExpression = regularExpression
        self.isIndexed = isIndexed
        self.valueTransformerName = valueTransformerName
        self.userInfo = userInfo
        self.derivation = derivation
    }
}
