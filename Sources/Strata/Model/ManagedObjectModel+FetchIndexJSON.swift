import Foundation

/// The JSON model's `fetchIndexes` member of an entity (docs/MODEL-FORMAT.md, "Fetch
/// indexes"): `[{"name": "byName", "elements": [{"property": "name", "order":
/// "descending", "type": "binary"}]}]`, where `order` (ascending) and `type` (binary) may
/// be left out.
enum FetchIndexJSON {
    static func read(_ items: [JSONValue], at location: ModelJSONLocation) throws -> [FetchIndexDescription] {
        try items.enumerated().map { index, item in
            var reader = try _ModelJSONObjectReader(item, at: location.appending("fetchIndexes[\(index)]"))
            let name = try reader.requiredString("name")
            let here = reader.location
            let elements = try reader.array("elements").enumerated().map { position, json in
                var element = try _ModelJSONObjectReader(json, at: here.appending("elements[\(position)]"))
                let property = try element.requiredString("property")
                let typeName = try element.string("type") ?? "binary"
                guard let kind = FetchIndexDescription.Element.Kind(rawValue: typeName) else {
                    throw element.location.error(field: "type", "unknown index type '\(typeName)' (known types: binary, rtree)")
                }
                let order = try element.string("order") ?? "ascending"
                guard order == "ascending" || order == "descending" else {
                    throw element.location.error(field: "order", "unknown index order '\(order)' (ascending, descending)")
                }
                try element.finish()
                return FetchIndexDescription.Element(property, kind: kind, ascending: order == "ascending")
            }
            try reader.finish()
            return FetchIndexDescription(name, elements: elements)
        }
    }

    static func json(_ indexes: [FetchIndexDescription]) -> JSONValue {
        .array(indexes.map { index in
            .dictionary([
                "name": .string(index.name),
                "elements": .array(index.elements.map { element in
                    var object: [String: JSONValue] = ["property": .string(element.property)]
                    if element.kind != .binary { object["type"] = .string(element.kind.rawValue) }
                    if !element.isAscending { object["order"] = .string("descending") }
                    return .dictionary(object)
                }),
            ])
        })
    }
}
