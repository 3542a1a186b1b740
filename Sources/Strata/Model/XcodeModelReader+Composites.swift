import Foundation

/// Composite attributes in an Xcode model (Xcode 15 and later): the model declares each
/// composite type once at top level, `<composite name="Address">` holding `<attribute>`
/// elements, and an entity uses it with `<attribute name="home" attributeType="Composite"
/// composite="Address"/>`. A composite type's elements may use another composite type the
/// same way (nested composites, iOS 17); a type that contains itself is refused. A composite
/// with no elements (Xcode lets one be saved) stores nothing: it is left out with a warning
/// (docs/MODEL-FORMAT.md, "Lenient and strict").
extension XcodeModelReader {
    /// The value of `attributeType` that marks a composite attribute.
    static let compositeTypeName = "Composite"

    /// The model's `<composite>` elements by name.
    func compositeTypes(in root: XcodeModelElement) throws -> [String: XcodeModelElement] {
        var types: [String: XcodeModelElement] = [:]
        for child in root.children(named: "composite") {
            let name = try required(child, "name")
            guard types[name] == nil else {
                throw error(child, property: name, "the composite name is used twice")
            }
            types[name] = child
        }
        return types
    }

    /// An entity's composite attribute, its elements read from the composite type it names;
    /// nil when it has no elements once its empty nested composites are left out.
    func compositeAttribute(_ element: XcodeModelElement, entity: String, within: [String] = []) throws -> CompositeAttributeDescription? {
        let name = try required(element, "name", entity: entity)
        guard let typeName = element.attributes["composite"], !typeName.isEmpty else {
            throw error(element, entity: entity, property: name, attribute: "composite",
                        "a Composite attribute needs a 'composite' naming a <composite> of the model")
        }
        guard let type = compositeTypes[typeName] else {
            let known = compositeTypes.keys.sorted()
            throw error(element, entity: entity, property: name, attribute: "composite",
                        "composite '\(typeName)' is not declared in the model"
                            + (known.isEmpty ? "" : " (declared: \(known.joined(separator: ", ")))"))
        }
        if within.contains(typeName) {
            throw error(element, entity: entity, property: name, attribute: "composite",
                        "composite '\(typeName)' contains itself (\((within + [typeName]).joined(separator: " → "))); a composite cannot nest its own type")
        }
        var elements: [AttributeDescription] = []
        var nested: [CompositeAttributeDescription] = []
        for child in type.children(named: "attribute") {
            if child.attributes["attributeType"] == Self.compositeTypeName {
                if let composite = try compositeAttribute(child, entity: entity, within: within + [typeName]) { nested.append(composite) }
            } else if let attribute = try attribute(child, entity: entity) {
                elements.append(attribute)
            }
        }
        if elements.isEmpty && nested.isEmpty {
            let inside = within.last.map { " inside composite '\($0)'" } ?? ""
            warn(element, entity: entity, property: name,
                 "composite attribute '\(name)' of composite type '\(typeName)'\(inside) has no elements and stores nothing; it is left out")
            return nil
        }
        return CompositeAttributeDescription(
            name, elements: elements, composites: nested, typeName: typeName, userInfo: try userInfo(of: element, entity: entity))
    }
}
