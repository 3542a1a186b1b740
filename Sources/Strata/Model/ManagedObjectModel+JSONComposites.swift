import Foundation

/// Composite attributes in the JSON model format (docs/MODEL-FORMAT.md, "Composite
/// attributes"): an entity's `composites` array, each `{"name": …, "elements": [attribute,
/// …]}` with elements written exactly like attributes; an element that has `elements` of its
/// own is a nested composite.
extension _ModelJSONReader {
    static func composite(_ json: JSONValue, at location: ModelJSONLocation) throws -> CompositeAttributeDescription {
        var reader = try _ModelJSONObjectReader(json, at: location)
        reader.location.propertyKind = "composite attribute"
        let name = try reader.requiredString("name")
        reader.location.property = name
        let here = reader.location
        var elements: [AttributeDescription] = []
        var nested: [CompositeAttributeDescription] = []
        for (index, item) in try reader.array("elements").enumerated() {
            if case .object(let members) = item, members.contains(where: { $0.key == "elements" }) {
                nested.append(try composite(item, at: here.appending("elements[\(index)]")))
            } else {
                elements.append(try attribute(item, at: here.appending("elements[\(index)]")))
            }
        }
        let composite = CompositeAttributeDescription(
            name, elements: elements, composites: nested, typeName: try reader.string("typeName"),
            userInfo: try reader.stringDictionary("userInfo"))
        try reader.finish()
        return composite
    }
}

extension ManagedObjectModel {
    static func _json(composite: CompositeAttributeDescription) -> JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(composite.name),
            "elements": .array(composite.elements.map(_json(attribute:)) + composite.composites.map(_json(composite:))),
        ]
        if let typeName = composite.typeName { object["typeName"] = .string(typeName) }
        if !composite.userInfo.isEmpty { object["userInfo"] = .stringDictionary(composite.userInfo) }
        return .dictionary(object)
    }
}
