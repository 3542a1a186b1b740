import Foundation

extension XcodeModelReader {
    /// Reads one `<fetchIndex name="…">` of an entity: its `<fetchIndexElement
    /// property="…" type="Binary|RTree" order="ascending|descending"/>` children.
    ///
    /// Xcode writes `type` and `order` on every element; a missing one takes Core Data's
    /// default (binary, ascending). An element indexing an expression (`expression="…"`)
    /// has no column to index and is refused, as is an unknown type or order.
    func fetchIndex(_ element: XcodeModelElement, entity: String) throws -> FetchIndexDescription {
        guard let name = element.attributes["name"], !name.isEmpty else {
            throw error(element, entity: entity, attribute: "name", "<fetchIndex> needs a 'name'")
        }
        let elements = try element.children(named: "fetchIndexElement").map { child -> FetchIndexDescription.Element in
            func fail(_ attribute: String, _ reason: String) -> StrataError {
                error(child, entity: entity, property: name, attribute: attribute, "fetch index '\(name)': \(reason)")
            }
            guard let property = child.attributes["property"], !property.isEmpty else {
                if child.attributes["expression"] != nil {
                    throw fail("expression", "an index element over an expression is not supported (index attributes or to-one relationships)")
                }
                throw fail("property", "<fetchIndexElement> needs a 'property'")
            }
            let kind: FetchIndexDescription.Element.Kind
            switch child.attributes["type"] ?? "Binary" {
            case "Binary": kind = .binary
            case "RTree", "R-Tree": kind = .rTree
            case let other: throw fail("type", "index type '\(other)' is not supported (Binary, RTree)")
            }
            let ascending: Bool
            switch child.attributes["order"] ?? "ascending" {
            case "ascending": ascending = true
            case "descending": ascending = false
            case let other: throw fail("order", "index order '\(other)' is not supported (ascending, descending)")
            }
            return FetchIndexDescription.Element(property, kind: kind, ascending: ascending)
        }
        return FetchIndexDescription(name, elements: elements)
    }
}
