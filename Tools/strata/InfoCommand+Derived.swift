import Foundation
import Strata
import StrataToolSupport

extension InfoCommand {
    /// The derived attributes the entities declare, one line each, as `strata info`
    /// prints them after the entity table (nothing without any).
    static func derivedLines(_ entities: [EntityDescription]) -> [String] {
        entities.flatMap { entity in
            entity.declaredAttributes.compactMap { attribute in
                attribute.derivation.map { "Derived   \(entity.name).\(attribute.name) (\(attribute.attributeType.rawValue)) = \($0.predicateFormat)" }
            }
        }
    }

    /// An entity's declared derived attributes for `--json`: name to derivation text.
    static func derivedJSON(_ entity: EntityDescription) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        for attribute in entity.declaredAttributes {
            if let derivation = attribute.derivation { fields[attribute.name] = .string(derivation.predicateFormat) }
        }
        return .dictionary(fields)
    }
}
