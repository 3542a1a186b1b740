import Foundation

/// Turns the element tree of an Xcode model's `contents` XML into a ``ModelDeclaration``
/// (docs/MODEL-FORMAT.md, "Importing Xcode models").
///
/// Reads what Strata models; ignores the diagram (`elements`), code generation settings,
/// `compoundIndexes` (the pre-iOS 11 form of fetch indexes) and any attribute it does not know, as Xcode itself adds new ones over time.
struct XcodeModelReader {
    /// The file name used in error messages.
    let file: String
    /// What the reader leaves out, shared by the copies of the reader.
    let notes = Notes()

    /// The warnings of one reading (docs/MODEL-FORMAT.md, "Lenient and strict").
    final class Notes {
        var warnings: [String] = []
    }

    /// Records that an element was left out, naming the file, line, entity and property.
    func warn(_ element: XcodeModelElement, entity: String? = nil, property: String? = nil, _ reason: String) {
        var place = "\(file) line \(element.line)"
        if let entity { place += ", entity '\(entity)'" }
        if let property { place += ", \(element.name) '\(property)'" }
        notes.warnings.append("\(place): \(reason)")
    }
    /// The model's `<composite>` types by name (read before the entities that use them).
    var compositeTypes: [String: XcodeModelElement] = [:]

    /// The Xcode names of attribute types Strata supports.
    static let attributeTypes = Dictionary(uniqueKeysWithValues: AttributeType.allCases.map { ($0.xcodeName, $0) })

    /// The Xcode names of delete rules.
    static let deleteRules: [String: DeleteRule] = [
        "Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction,
    ]

    /// The predicate used when a fetch request in the file has no `predicateString`.
    static let truePredicate = "TRUEPREDICATE"

    /// A `.modelFile` error naming the file, line, entity, property and XML attribute.
    func error(
        _ element: XcodeModelElement, entity: String? = nil, property: String? = nil,
        attribute: String? = nil, _ reason: String
    ) -> StrataError {
        let context = StrataError.Context { $0.path = file; $0.entity = entity; $0.key = property; $0.line = element.line; $0.xmlElement = element.name; $0.xmlAttribute = attribute }
        var names: [String] = []
        if let entity { names.append("entity '\(entity)'") }
        if let property { names.append("\(element.name) '\(property)'") }
        if let attribute { names.append("XML attribute '\(attribute)'") }
        let place = names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")"
        return StrataError(.modelFile, "Cannot import the Xcode model \(file) at line \(element.line)\(place): \(reason).",
                           context: context)
    }

    func required(_ element: XcodeModelElement, _ name: String, entity: String? = nil) throws -> String {
        guard let value = element.attributes[name], !value.isEmpty else {
            throw error(element, entity: entity, attribute: name, "<\(element.name)> needs a '\(name)'")
        }
        return value
    }

    /// Reads the `<model>` root.
    func declaration(from root: XcodeModelElement) throws -> ModelDeclaration {
        guard root.name == "model" else {
            throw error(root, "the root element is <\(root.name)>, expected <model>")
        }
        var declaration = ModelDeclaration()
        if let identifier = root.attributes["userDefinedModelVersionIdentifier"], !identifier.isEmpty {
            declaration.versionIdentifier = identifier
        }
        var templateNames: Set<String> = []
        var reader = self
        reader.compositeTypes = try compositeTypes(in: root)
        for child in root.children {
            switch child.name {
            case "entity":
                declaration.entities.append(try reader.entity(child))
            case "fetchRequest":
                let name = try required(child, "name")
                guard templateNames.insert(name).inserted else {
                    throw error(child, property: name, "the fetch request name is used twice")
                }
                declaration.fetchRequestTemplates.append(FetchRequestTemplate(
                    name: name, entity: try required(child, "entity"),
                    predicate: child.attributes["predicateString"] ?? Self.truePredicate))
            case "configuration":
                let name = try required(child, "name")
                var members = declaration.configurations[name] ?? []
                for member in child.children(named: "memberEntity") { members.append(try required(member, "name")) }
                declaration.configurations[name] = members
            default:
                continue  // elements (diagram layout), composite, future additions
            }
        }
        declaration.warnings = notes.warnings
        return declaration
    }

    private func entity(_ element: XcodeModelElement) throws -> EntityDescription {
        let name = try required(element, "name")
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var fetchedProperties: [FetchedPropertyDescription] = []
        var constraints: [[String]] = []
        var fetchIndexes: [FetchIndexDescription] = []
        var composites: [CompositeAttributeDescription] = []
        for child in element.children {
            switch child.name {
            case "attribute" where child.attributes["attributeType"] == Self.compositeTypeName:
                if let composite = try compositeAttribute(child, entity: name) { composites.append(composite) }
            case "attribute":
                if let attribute = try attribute(child, entity: name) { attributes.append(attribute) }
            case "relationship": relationships.append(try relationship(child, entity: name))
            case "fetchedProperty": fetchedProperties.append(try fetchedProperty(child, entity: name))
            case "uniquenessConstraints":
                for constraint in child.children(named: "uniquenessConstraint") {
                    constraints.append(try constraint.children(named: "constraint").map {
                        try required($0, "value", entity: name)
                    })
                }
            case "fetchIndex": fetchIndexes.append(try fetchIndex(child, entity: name))
            default: continue  // userInfo (below), compoundIndexes
            }
        }
        return EntityDescription(
            name, parent: element.attributes["parentEntity"], isAbstract: element.flag("isAbstract"),
            attributes: attributes, relationships: relationships, fetchedProperties: fetchedProperties,
            uniquenessConstraints: constraints, userInfo: try userInfo(of: element, entity: name),
            representedClassName: element.attributes["representedClassName"],
            renamingIdentifier: element.attributes["elementID"], fetchIndexes: fetchIndexes, composites: composites)
    }

    func userInfo(of element: XcodeModelElement, entity: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for info in element.children(named: "userInfo") {
            for entry in info.children(named: "entry") {
                guard let key = entry.attributes["key"] else {
                    throw error(entry, entity: entity, attribute: "key", "a userInfo entry needs a 'key'")
                }
                result[key] = entry.attributes["value"] ?? ""
            }
        }
        return result
    }

    /// An attribute; nil for a transient attribute of a type Strata does not model
    /// (`Undefined`, `ObjectID`), which stores nothing and is left out with a warning.
    func attribute(_ element: XcodeModelElement, entity: String) throws -> AttributeDescription? {
        let name = try required(element, "name", entity: entity)
        func fail(_ attribute: String?, _ reason: String) -> StrataError {
            error(element, entity: entity, property: name, attribute: attribute, reason)
        }
        guard let typeName = element.attributes["attributeType"] else {
            throw fail("attributeType", "the attribute has no attributeType")
        }
        guard let type = Self.attributeTypes[typeName] else {
            if element.flag("transient") {
                warn(element, entity: entity, property: name,
                     "transient attribute of type '\(typeName)' left out (Strata does not model that type; a transient attribute stores nothing)")
                return nil
            }
            let known = Self.attributeTypes.keys.sorted().joined(separator: ", ")
            throw fail("attributeType", "attribute type '\(typeName)' is not supported (supported: \(known))")
        }
        var attribute = AttributeDescription(
            name, type, isOptional: element.flag("optional"), isTransient: element.flag("transient"),
            regularExpression: element.attributes["regularExpressionString"], isIndexed: element.flag("indexed"),
            valueTransformerName: element.attributes["valueTransformerName"],
            userInfo: try userInfo(of: element, entity: entity))
        attribute.renamingIdentifier = element.attributes["elementID"]
        attribute.isText = AttributeDescription.textFlags.contains(attribute.userInfo[AttributeDescription.textUserInfoKey]?.lowercased() ?? "")
        do {
            if element.flag("derived") { attribute.derivation = try AttributeDescription.parsedDerivation(element.attributes["derivationExpression"]) }
            if let text = element.attributes["defaultValueString"] {
                attribute.defaultValue = try Self.value(text, type: type, field: "defaultValueString")
            }
            if let text = element.attributes["defaultDateTimeInterval"] {
                attribute.defaultValue = try Self.dateValue(text, type: type, field: "defaultDateTimeInterval")
            }
        } catch let reason as ModelFileReason {
            throw fail(nil, reason.text)
        }
        // Validation constraints change no stored data: one that cannot be read is left out
        // with a warning (docs/MODEL-FORMAT.md, "Lenient and strict").
        func constraint(_ field: String, _ read: () throws -> Void) {
            do {
                try read()
            } catch let reason as ModelFileReason {
                warn(element, entity: entity, property: name, "\(reason.text); the constraint is left out")
            } catch {
                warn(element, entity: entity, property: name, "\(field): \(error); the constraint is left out")
            }
        }
        for (field, isMinimum) in [("minValueString", true), ("maxValueString", false)] {
            guard let text = element.attributes[field] else { continue }
            constraint(field) {
                if type.hasLength {
                    guard let length = Int(text), length >= 0 else {
                        throw ModelFileReason("\(field) of \(withArticle(typeName)) attribute is a length; '\(text)' is not one")
                    }
                    if isMinimum { attribute.minLength = length } else { attribute.maxLength = length }
                } else if type.isNumeric {
                    let value = try Self.value(text, type: type, field: field)
                    if isMinimum { attribute.minValue = value } else { attribute.maxValue = value }
                } else {
                    throw ModelFileReason("\(field) does not apply to \(withArticle(typeName)) attribute")
                }
            }
        }
        if let text = element.attributes["minDateTimeInterval"] {
            constraint("minDateTimeInterval") { attribute.minValue = try Self.dateValue(text, type: type, field: "minDateTimeInterval") }
        }
        if let text = element.attributes["maxDateTimeInterval"] {
            constraint("maxDateTimeInterval") { attribute.maxValue = try Self.dateValue(text, type: type, field: "maxDateTimeInterval") }
        }
        return attribute
    }

    /// A value written as text in the file (defaultValueString, minValueString...).
    static func value(_ text: String, type: AttributeType, field: String) throws -> PropertyValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type.valueKind {
        case .integer:
            let parsed: PropertyValue? = Int64(trimmed).map(PropertyValue.integer) ?? Double(trimmed).map(PropertyValue.double)
            guard let parsed, let value = ModelValueRules.coerce(parsed, to: type) else {
                throw ModelFileReason("\(field) '\(text)' is not \(withArticle(type.rawValue)) value")
            }
            return value
        case .double:
            guard let number = Double(trimmed) else { throw ModelFileReason("\(field) '\(text)' is not a number") }
            return ModelValueRules.coerce(.double(number), to: type) ?? .double(number)
        case .decimal:
            guard let decimal = ModelValueCoding.exactDecimal(trimmed) else {
                throw ModelFileReason("\(field) '\(text)' is not a decimal number")
            }
            return .decimal(decimal)
        case .string:
            return .string(text)
        case .boolean:
            switch trimmed.lowercased() {
            case "yes", "true", "1": return .boolean(true)
            case "no", "false", "0": return .boolean(false)
            default: throw ModelFileReason("\(field) '\(text)' is not YES or NO")
            }
        case .uuid:
            guard let uuid = UUID(uuidString: trimmed) else { throw ModelFileReason("\(field) '\(text)' is not a UUID") }
            return .uuid(uuid)
        case .uri:
            guard let url = URL(string: trimmed) else { throw ModelFileReason("\(field) '\(text)' is not a URI") }
            return .uri(url)
        case .date:
            return try dateValue(text, type: type, field: field)
        case .data:
            throw ModelFileReason("\(field) is not supported for \(type.rawValue) attributes")
        }
    }

    /// A date written as seconds since 2001-01-01 (Xcode's `…DateTimeInterval` fields).
    private static func dateValue(_ text: String, type: AttributeType, field: String) throws -> PropertyValue {
        guard type == .date else { throw ModelFileReason("\(field) applies only to Date attributes") }
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite else {
            throw ModelFileReason("\(field) '\(text)' is not a number of seconds")
        }
        return .date(Date(timeIntervalSinceReferenceDate: seconds))
    }

    private func relationship(_ element: XcodeModelElement, entity: String) throws -> RelationshipDescription {
        let name = try required(element, "name", entity: entity)
        func count(_ field: String) throws -> Int? {
            guard let text = element.attributes[field] else { return nil }
            guard let value = Int(text), value >= 0 else {
                throw error(element, entity: entity, property: name, attribute: field, "'\(text)' is not a count")
            }
            return value
        }
        guard let destination = element.attributes["destinationEntity"], !destination.isEmpty else {
            throw error(element, entity: entity, property: name, attribute: "destinationEntity",
                        "the relationship has no destinationEntity")
        }
        var rule = DeleteRule.nullify
        if let ruleName = element.attributes["deletionRule"] {
            guard let known = Self.deleteRules[ruleName] else {
                throw error(element, entity: entity, property: name, attribute: "deletionRule",
                            "unknown deletion rule '\(ruleName)'")
            }
            rule = known
        }
        let toMany = element.flag("toMany")
        var relationship = RelationshipDescription(
            name, to: destination, toMany: toMany, inverse: element.attributes["inverseName"], deleteRule: rule,
            isOptional: element.flag("optional"), isOrdered: element.flag("ordered"),
            minCount: try count("minCount") ?? 0, maxCount: try count("maxCount") ?? 0,
            isTransient: element.flag("transient"), userInfo: try userInfo(of: element, entity: entity))
        relationship.renamingIdentifier = element.attributes["elementID"]
        return relationship
    }

    private func fetchedProperty(_ element: XcodeModelElement, entity: String) throws -> FetchedPropertyDescription {
        let name = try required(element, "name", entity: entity)
        guard let request = element.children(named: "fetchRequest").first else {
            throw error(element, entity: entity, property: name, "the fetched property has no <fetchRequest>")
        }
        return FetchedPropertyDescription(
            name, entity: try required(request, "entity", entity: entity),
            predicate: request.attributes["predicateString"] ?? Self.truePredicate,
            userInfo: try userInfo(of: element, entity: entity))
    }
}
