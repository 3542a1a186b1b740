import Foundation

/// A typed key as the model checks it when its class is registered
/// (``ManagedObjectModel/register(_:forEntityName:)``): a name and what the key expects.
///
/// ```swift
/// final class Employee: ManagedObject {
///     static let salary = AttributeKey<Int64?>("salary")
///     static let department = ToOneKey<Department>("department")
///     override class var typedKeys: [TypedKeyDescription] { [.init(salary), .init(department)] }
/// }
/// ```
public struct TypedKeyDescription: Sendable {
    /// A relationship key's destination class: its name, and whether a class is it or a
    /// subclass (a metatype cast, so that the generic parameter does the work).
    struct Destination: Sendable {
        let name: String
        let isGeneral: Bool
        let accepts: @Sendable (ManagedObject.Type) -> Bool
    }

    enum Kind: Sendable {
        case attribute(accepted: Set<AttributeType>?)
        case toOne(Destination)
        case toMany(Destination)
    }

    /// The property's name.
    public let name: String
    let kind: Kind

    /// Describes an attribute key.
    public init<Value>(_ key: AttributeKey<Value>) {
        name = key.name
        kind = .attribute(accepted: Self.attributeTypes(accepting: Value.self))
    }

    /// Describes a to-one key.
    public init<Target>(_ key: ToOneKey<Target>) {
        name = key.name
        kind = .toOne(Self.destination(Target.self))
    }

    /// Describes a to-many key.
    public init<Target>(_ key: ToManyKey<Target>) {
        name = key.name
        kind = .toMany(Self.destination(Target.self))
    }

    private static func destination<Target: ManagedObject>(_ type: Target.Type) -> Destination {
        Destination(name: "\(Target.self)", isGeneral: Target.self == ManagedObject.self, accepts: { $0 is Target.Type })
    }

    /// Why the key does not fit the entity, or nil when it does.
    func problem(in entity: EntityDescription, model: ManagedObjectModel) -> String? {
        switch kind {
        case .attribute(let accepted):
            guard let attribute = entity.attributesByName[name] else {
                return entity.relationshipsByName[name] != nil
                    ? "an attribute key names a relationship" : "the entity has no attribute \(input: name)"
            }
            if let accepted, attribute.attributeType != .transformable, !accepted.contains(attribute.attributeType) {
                return "the key's Swift type does not hold \(withArticle(attribute.attributeType.rawValue)) attribute"
            }
            return nil
        case .toOne(let destination), .toMany(let destination):
            let wantsToMany: Bool = if case .toMany = kind { true } else { false }
            guard let relationship = entity.relationshipsByName[name] else {
                return entity.attributesByName[name] != nil
                    ? "a relationship key names an attribute" : "the entity has no relationship \(input: name)"
            }
            if relationship.isToMany != wantsToMany {
                return relationship.isToMany ? "a to-one key names a to-many relationship" : "a to-many key names a to-one relationship"
            }
            guard !destination.isGeneral,
                  let target = model.entitiesByName[relationship.destinationEntityName] else { return nil }
            let registered = model.objectClass(forEntity: target)
            // Not registered yet: the destination's class is checked when it is registered.
            if registered == ManagedObject.self { return nil }
            if !destination.accepts(registered) {
                return "objects of '\(target.name)' are \(registered), not \(destination.name)"
            }
            return nil
        }
    }

    /// The attribute types a Swift type reads and writes without loss of meaning; nil for
    /// types the check does not know (custom ``PropertyValueConvertible`` types).
    static func attributeTypes(accepting type: Any.Type) -> Set<AttributeType>? {
        func types(_ kinds: ValueKind...) -> Set<AttributeType> {
            Set(AttributeType.allCases.filter { kinds.contains($0.valueKind) })
        }
        switch type {
        case is Int64.Type, is Int.Type, is Int32.Type, is Int16.Type: return types(.integer)
        case is Double.Type, is Float.Type, is Decimal.Type: return types(.integer, .double, .decimal)
        case is String.Type: return types(.string)
        case is Bool.Type: return types(.boolean)
        case is Date.Type: return types(.date)
        case is Data.Type: return types(.data)
        case is UUID.Type: return types(.uuid)
        case is URL.Type: return types(.uri)
        case let optional as any OptionalKey.Type: return attributeTypes(accepting: optional.wrappedType)
        default: return nil
        }
    }
}

/// Lets the check see through `Optional` to the wrapped type.
private protocol OptionalKey {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalKey {
    static var wrappedType: Any.Type { Wrapped.self }
}
