import Foundation
import Strata
import StrataToolSupport

/// How the inspector writes values into its JSON: attribute values as the CLI's JSON
/// (``ToolValueText/json(_:)``), a relationship as references the web app turns into links
/// (`{"ref": "Employee/p3"}`), so the browser never has to parse a URI.
enum InspectorValues {
    /// The most references of one to-many listed; the rest is counted.
    static let referenceLimit = 200

    /// A value as JSON.
    static func json(_ value: PropertyValue) -> JSONValue {
        switch value {
        case .object(let id):
            return reference(id)
        case .objects(let ids):
            let shown = ids.prefix(referenceLimit).map(reference)
            return .fields(["refs": .array(Array(shown)), "count": .int(ids.count)])
        default:
            return ToolValueText.json(value)
        }
    }

    /// An optional value (a history change's missing old or new side is `null`).
    static func json(_ value: PropertyValue?) -> JSONValue {
        value.map(json) ?? .null
    }

    /// A link to an object.
    static func reference(_ id: ManagedObjectID) -> JSONValue {
        .fields(["ref": .string(id.shortReference)])
    }

    /// The stored properties of an entity, as the object table's columns.
    static func columns(of entity: EntityDescription) -> JSONValue {
        .array(ToolRecordText.storedProperties(of: entity).map { _, property in
            switch property {
            case .attribute(let attribute):
                return .fields(["name": .string(attribute.name), "kind": .string("attribute"),
                                "type": .string(String(describing: attribute.attributeType))])
            case .relationship(let relationship):
                return .fields(["name": .string(relationship.name), "kind": .string("relationship"),
                                "toMany": .bool(relationship.isToMany),
                                "destination": .string(relationship.destinationEntityName)])
            }
        })
    }

    /// A record's values by column, in column order.
    static func row(id: ManagedObjectID, values: [PropertyValue]) -> JSONValue {
        let cells = ToolRecordText.storedProperties(of: id.entity).map { slot, _ in
            json(slot < values.count ? values[slot] : .null)
        }
        return .fields(["ref": .string(id.shortReference), "entity": .string(id.entity.name), "values": .array(cells)])
    }

    /// A date as the timeline shows it (ISO 8601 with milliseconds, UTC).
    static func time(_ date: Date) -> JSONValue {
        .string(ToolValueText.timestamp(date))
    }
}
