import Foundation
import Strata
import StrataToolSupport

/// `strata info`'s lines for composite attributes (kept apart from the model table's layout).
extension InfoCommand {
    /// One line per composite attribute declared in the model:
    /// `Composite Customer.address (Address): city string, zip string?`, `?` marking an
    /// optional element. Empty when the model has none.
    static func compositeLines(_ entities: [EntityDescription]) -> [String] {
        entities.flatMap { entity in
            entity.declaredComposites.map { composite in
                let type = composite.typeName.map { " (\($0))" } ?? ""
                let elements = composite.elements.map { "\($0.name) \($0.attributeType.rawValue)\($0.isOptional ? "?" : "")" }
                return "Composite \(entity.name).\(composite.name)\(type): \(elements.joined(separator: ", "))"
            }
        }
    }

    /// The composites of an entity for `info --json`: name → element names, in order.
    static func compositesJSON(_ entity: EntityDescription) -> JSONValue {
        .dictionary(Dictionary(uniqueKeysWithValues: entity.composites.map { composite in
            (composite.name, JSONValue.array(composite.elements.map { .string($0.name) }))
        }))
    }
}
