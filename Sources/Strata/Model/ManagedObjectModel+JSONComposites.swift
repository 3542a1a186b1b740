import Foundation

/// Composite attributes in the JSON model format (docs/MODEL-FORMAT.md, "Composite
/// attributes"): an entity's `composites` array, each `{"name": …, "elements": [attribute,
/// …]}` with elements written exactly like attributes.
extension _ModelJSONReader {
    static func composite(_ json: JSONValue, at location: ModelJSONLocation) throws -> CompositeAttributeDescription {
        var reader = try _ModelJSONObjectReader(json, at: location)
        reader.location.propertyKind = "composite attribute"
        let name = try reader.requiredString("name")
        reader.location.property = name
        let here = reader.location
        let elements = try reader.array("elements").enumerated().map { index, item in
            if case .object(let members) = item, members.contains(where: { $0.key == "elements" }) {
                throw here.error(field: "elements[\(index)]", "nested composites are not supported: Core Data allows a composite among a composite's elements, Strata does not yet; flatten the inner elements into this composite")
            }
            return try attribute(item, at: here.appending("elements[\(index)]"))
        }
        let composite = CompositeAttributeDescription(
            name, elements: elements, typeName: try reader.string("typeName"),
            userInfo: try reader.stringDictionary("userInfo"))
        try reader.finish()
        return composite
    }
}

extension ManagedObjectModel {
    static func _json(composite: CompositeAttributeDescription) -> JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(composite.name), "elements": .array(composite.elements.map(_json(attribute:))),
        ]
        if let typeName = composite.typeName { object["typeName"] = .string(typeName) }
        if !composite.userInfo.isEmpty { object["userInfo"] = .stringDictionary(composite.userInfo) }
        return .dictionary(object)
    }
}
