import Foundation

/// Everything needed to build a model, as read from a file (JSON or Xcode XML).
struct ModelDeclaration {
    var entities: [EntityDescription] = []
    var configurations: [String: [String]] = [:]
    var fetchRequestTemplates: [FetchRequestTemplate] = []
    var versionIdentifier: String?
    /// What the reader left out (``ManagedObjectModel/loadWarnings``).
    var warnings: [String] = []
}

extension ManagedObjectModel {
    /// Builds a model from a declaration read from a file.
    convenience init(declaration: ModelDeclaration) throws {
        try self.init(
            entities: declaration.entities, configurations: declaration.configurations,
            fetchRequestTemplates: declaration.fetchRequestTemplates,
            versionIdentifier: declaration.versionIdentifier)
        loadWarnings = declaration.warnings
    }

    /// Reads a model from JSON in the Strata model format (docs/MODEL-FORMAT.md), the
    /// inverse of ``jsonRepresentation()``.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(jsonData: Data(contentsOf: url))
    /// ```
    /// - Parameter jsonData: UTF-8 JSON text.
    /// - Throws: ``StrataStorage/StrataError`` `.modelFile` when the text is not valid JSON (with `line` and
    ///   `column`) or does not follow the format: an unknown or misspelled field, a value of
    ///   the wrong kind, an unknown attribute type or delete rule (with `path`, `entity`,
    ///   `property` and `field`); `.invalidModel` when the model it describes is inconsistent.
    /// - Complexity: O(size of the text).
    public convenience init(jsonData: Data) throws {
        let declaration = try _ModelJSONReader.declaration(from: JSONValue.parseModel(jsonData))
        try self.init(declaration: declaration)
    }
}

/// Turns a parsed JSON document into a ``ModelDeclaration``, field by field.
enum _ModelJSONReader {
    static func declaration(from json: JSONValue) throws -> ModelDeclaration {
        var root = try _ModelJSONObjectReader(json, at: ModelJSONLocation(path: ""))
        let format = try root.requiredString("format")
        guard format == ModelJSONFormat.name else {
            throw root.location.error(field: "format", "expected \"\(ModelJSONFormat.name)\", found \"\(format)\"")
        }
        guard let version = try root.count("formatVersion") else {
            throw root.location.error(field: "formatVersion", "the field is required")
        }
        guard version == ModelJSONFormat.version else {
            throw root.location.error(field: "formatVersion",
                                      "version \(version) is not supported (this library reads version \(ModelJSONFormat.version))")
        }
        var declaration = ModelDeclaration()
        declaration.versionIdentifier = try root.string("versionIdentifier")
        let entitiesLocation = root.location.appending("entities")
        guard root.value("entities") != nil else { throw root.location.error(field: "entities", "the field is required") }
        declaration.entities = try root.array("entities").enumerated().map { index, item in
            try entity(item, at: entitiesLocation.appending("[\(index)]"))
        }
        if let configurations = root.value("configurations") {
            let location = root.location.appending("configurations")
            guard let members = configurations.dictionaryValue else {
                throw root.location.error(field: "configurations", "expected an object, found \(configurations.kindName)")
            }
            for (name, members) in members {
                guard case .array(let items) = members else {
                    throw location.error(field: name, "expected an array of entity names, found \(members.kindName)")
                }
                declaration.configurations[name] = try items.enumerated().map { index, item in
                    guard case .string(let text) = item else {
                        throw location.error(field: "\(name)[\(index)]", "expected an entity name, found \(item.kindName)")
                    }
                    return text
                }
            }
        }
        let templatesLocation = root.location.appending("fetchRequestTemplates")
        var templateNames: Set<String> = []
        for (index, item) in try root.array("fetchRequestTemplates").enumerated() {
            var reader = try _ModelJSONObjectReader(item, at: templatesLocation.appending("[\(index)]"))
            let name = try reader.requiredString("name")
            reader.location.propertyKind = "fetch request template"
            reader.location.property = name
            guard templateNames.insert(name).inserted else {
                throw reader.location.error(field: "name", "the template name is used twice")
            }
            let template = FetchRequestTemplate(
                name: name, entity: try reader.requiredString("entity"),
                predicate: try reader.requiredString("predicate"))
            try reader.finish()
            declaration.fetchRequestTemplates.append(template)
        }
        try root.finish()
        return declaration
    }

    private static func entity(_ json: JSONValue, at location: ModelJSONLocation) throws -> EntityDescription {
        var reader = try _ModelJSONObjectReader(json, at: location)
        let name = try reader.requiredString("name")
        reader.location.entity = name
        let here = reader.location
        let attributes = try reader.array("attributes").enumerated().map { index, item in
            try attribute(item, at: here.appending("attributes[\(index)]"))
        }
        let relationships = try reader.array("relationships").enumerated().map { index, item in
            try relationship(item, at: here.appending("relationships[\(index)]"))
        }
        let fetchedProperties = try reader.array("fetchedProperties").enumerated().map { index, item in
            var fetched = try _ModelJSONObjectReader(item, at: here.appending("fetchedProperties[\(index)]"))
            let name = try fetched.requiredString("name")
            fetched.location.propertyKind = "fetched property"
            fetched.location.property = name
            let property = FetchedPropertyDescription(
                name, entity: try fetched.requiredString("entity"), predicate: try fetched.requiredString("predicate"),
                userInfo: try fetched.stringDictionary("userInfo"))
            try fetched.finish()
            return property
        }
        let constraints = try reader.array("uniquenessConstraints").enumerated().map { index, item in
            guard case .array(let names) = item else {
                throw here.error(field: "uniquenessConstraints[\(index)]", "expected an array of attribute names, found \(item.kindName)")
            }
            return try names.enumerated().map { position, name in
                guard case .string(let text) = name else {
                    throw here.error(field: "uniquenessConstraints[\(index)][\(position)]", "expected an attribute name, found \(name.kindName)")
                }
                return text
            }
        }
        let composites = try reader.array("composites").enumerated().map { index, item in
            try composite(item, at: here.appending("composites[\(index)]"))
        }
        let entity = EntityDescription(
            name, parent: try reader.string("parent"), isAbstract: try reader.bool("abstract", default: false),
            attributes: attributes, relationships: relationships, fetchedProperties: fetchedProperties,
            uniquenessConstraints: constraints, userInfo: try reader.stringDictionary("userInfo"),
            representedClassName: try reader.string("representedClassName"),
            renamingIdentifier: try reader.string("renamingIdentifier"),
            fetchIndexes: try FetchIndexJSON.read(try reader.array("fetchIndexes"), at: here), composites: composites)
        try reader.finish()
        return entity
    }

    static func attribute(_ json: JSONValue, at location: ModelJSONLocation) throws -> AttributeDescription {
        var reader = try _ModelJSONObjectReader(json, at: location)
        reader.location.propertyKind = "attribute"
        reader.location.property = try reader.requiredString("name")
        let typeName = try reader.requiredString("type")
        guard let type = AttributeType(rawValue: typeName) else {
            let known = AttributeType.allCases.map(\.rawValue).joined(separator: ", ")
            throw reader.location.error(field: "type", "unknown attribute type '\(typeName)' (known types: \(known))")
        }
        func typedValue(_ key: String) throws -> PropertyValue? {
            guard let json = reader.value(key) else { return nil }
            do {
                return try ModelValueCoding.value(from: json, type: type)
            } catch let reason as ModelFileReason {
                throw reader.location.error(field: key, reason.text)
            }
        }
        var attribute = AttributeDescription(
            reader.location.property ?? "", type, isOptional: try reader.bool("optional", default: true),
            isTransient: try reader.bool("transient", default: false), defaultValue: try typedValue("default") ?? .null,
            minValue: try typedValue("minValue"), maxValue: try typedValue("maxValue"),
            minLength: try reader.count("minLength"), maxLength: try reader.count("maxLength"),
            regularExpression: try reader.string("regularExpression"), isIndexed: try reader.bool("indexed", default: false),
            valueTransformerName: try reader.string("valueTransformerName"),
            userInfo: try reader.stringDictionary("userInfo"),
            derivation: try AttributeDescription.parsedDerivation(try reader.string("derivation"), at: reader.location))
        attribute.renamingIdentifier = try reader.string("renamingIdentifier")
        attribute.isText = try reader.bool("text", default: false)
        try reader.finish()
        return attribute
    }

    private static func relationship(_ json: JSONValue, at location: ModelJSONLocation) throws -> RelationshipDescription {
        var reader = try _ModelJSONObjectReader(json, at: location)
        reader.location.propertyKind = "relationship"
        let name = try reader.requiredString("name")
        reader.location.property = name
        let destination = try reader.requiredString("destination")
        let toMany = try reader.bool("toMany", default: false)
        var deleteRule = DeleteRule.nullify
        if let ruleName = try reader.string("deleteRule") {
            guard let rule = DeleteRule(rawValue: ruleName) else {
                let known = DeleteRule.allCases.map(\.rawValue).joined(separator: ", ")
                throw reader.location.error(field: "deleteRule", "unknown delete rule '\(ruleName)' (known rules: \(known))")
            }
            deleteRule = rule
        }
        let maxCount = try reader.count("maxCount")
        if !toMany, let maxCount, maxCount != 1 {
            throw reader.location.error(field: "maxCount", "a to-one relationship has maxCount 1, found \(maxCount)")
        }
        var relationship = RelationshipDescription(
            name, to: destination, toMany: toMany, inverse: try reader.string("inverse"), deleteRule: deleteRule,
            isOptional: try reader.bool("optional", default: true), isOrdered: try reader.bool("ordered", default: false),
            minCount: try reader.count("minCount") ?? 0, maxCount: maxCount ?? 0,
            isTransient: try reader.bool("transient", default: false), userInfo: try reader.stringDictionary("userInfo"))
        relationship.renamingIdentifier = try reader.string("renamingIdentifier")
        try reader.finish()
        return relationship
    }
}
