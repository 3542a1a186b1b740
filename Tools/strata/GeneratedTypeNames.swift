import Foundation
import Strata

/// How `strata codegen`'s output spells the standard-library, Foundation and Strata types
/// it uses: plainly (`String`, `AttributeKey`), or module-qualified (`Swift.String`,
/// `Strata.AttributeKey`) when the generated code itself declares that name — a class
/// for an entity called `String`, a property called `Date`, a composite element called
/// `URL` — which would otherwise be found first (docs/SEMANTICS.md, "Generated classes").
/// Qualifying only then keeps ordinary models' output as it was.
///
/// The module names themselves are never declared: a class named after one is renamed
/// (``ClassGenerator/className(_:)``) and a property named after one takes the `Key` and
/// `Value` suffixes (``ClassGenerator/takenStatics``, ``ClassGenerator/takenMembers``).
struct GeneratedTypeNames {
    /// The modules the generated code qualifies types with.
    static let modules: Set<String> = ["Swift", "Foundation", "Strata"]

    /// Each type the generated code names, and its module.
    static let moduleOfType: [String: String] = [
        "String": "Swift", "Int16": "Swift", "Int32": "Swift", "Int64": "Swift", "Double": "Swift", "Float": "Swift",
        "Bool": "Swift", "Hashable": "Swift", "Sendable": "Swift",
        "Date": "Foundation", "Data": "Foundation", "UUID": "Foundation", "URL": "Foundation", "Decimal": "Foundation",
        "ManagedObject": "Strata", "AttributeKey": "Strata", "ToOneKey": "Strata", "ToManyKey": "Strata",
        "CompositeKey": "Strata", "TypedKeyDescription": "Strata",
    ]

    /// Every name the generated code declares (classes, keys, properties, composite
    /// elements), without backquotes.
    let declared: Set<String>

    init(generator: ClassGenerator) throws {
        var names: Set<String> = []
        func add(_ name: String) { names.insert(name.replacingOccurrences(of: "`", with: "")) }
        func addElements(of composite: CompositeAttributeDescription) {
            add(composite.name)
            for element in composite.elements { add(element.name) }
            for nested in composite.composites { addElements(of: nested) }
        }
        for entity in generator.model.entities {
            add(try generator.className(entity))
            for key in try generator.properties(of: entity, types: nil) {
                add(key.keyName)
                add(key.propertyName)
            }
            for composite in entity.declaredComposites { addElements(of: composite) }
        }
        declared = names
    }

    /// The type's spelling: qualified when a generated name would hide it.
    subscript(type: String) -> String {
        guard declared.contains(type), let module = Self.moduleOfType[type] else { return type }
        return "\(module).\(type)"
    }

    /// Names a composite's struct must not take: the declared ones, the types the code
    /// uses and the modules (it is nested in its class, so it would hide them there), and
    /// the keywords a type cannot be named.
    var reserved: Set<String> {
        declared.union(Self.moduleOfType.keys).union(Self.modules).union(["Self", "Type", "Protocol", "Any"])
    }
}
