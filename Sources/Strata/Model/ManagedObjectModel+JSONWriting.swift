import Foundation

/// The JSON model format's identification (docs/MODEL-FORMAT.md, "Document").
enum ModelJSONFormat {
    /// The value of the top-level `format` key.
    static let name = "strata-model"
    /// The value of the top-level `formatVersion` key this library writes and reads.
    static let version = 1
}

extension ManagedObjectModel {
    /// The model as JSON in the Strata model format (docs/MODEL-FORMAT.md).
    ///
    /// The output is deterministic: keys sorted, two-space indentation, fields equal to their
    /// default left out, entities, properties and constraints in model order, templates
    /// sorted by name. ``init(jsonData:)`` reads it back into a model with the same
    /// declarations, so the same JSON and the same ``versionHash``.
    ///
    /// ```swift
    /// let data = model.jsonRepresentation()
    /// let copy = try ManagedObjectModel(jsonData: data)
    /// assert(copy.jsonRepresentation() == data)
    /// ```
    /// - Complexity: O(size of the model).
    public func jsonRepresentation() -> Data {
        Data(jsonValue().prettyPrinted().utf8)
    }

    /// The model as a JSON value (the document the store embeds).
    func jsonValue() -> JSONValue {
        var root: [String: JSONValue] = [
            "format": .string(ModelJSONFormat.name),
            "formatVersion": .int(ModelJSONFormat.version),
            "entities": .array(entities.map(Self._json(entity:))),
        ]
        if !configurations.isEmpty { root["configurations"] = .dictionary(configurations.mapValues(JSONValue.strings)) }
        if !fetchRequestTemplatesByName.isEmpty {
            let templates = fetchRequestTemplatesByName.values.sorted { $0.name < $1.name }
            root["fetchRequestTemplates"] = .array(templates.map { template in
                .dictionary(["name": .string(template.name), "entity": .string(template.entityName),
                         "predicate": .string(template.predicateFormat)])
            })
        }
        if let versionIdentifier { root["versionIdentifier"] = .string(versionIdentifier) }
        return .dictionary(root)
    }

    private static func _json(entity: EntityDescription) -> JSONValue {
        var object: [String: JSONValue] = ["name": .string(entity.name)]
        if let parent = entity.parentName { object["parent"] = .string(parent) }
        if entity.isAbstract { object["abstract"] = .bool(true) }
        if !entity.declaredAttributes.isEmpty {
            object["attributes"] = .array(entity.declaredAttributes.map(_json(attribute:)))
        }
        if !entity.declaredComposites.isEmpty {
            object["composites"] = .array(entity.declaredComposites.map(_json(composite:)))
        }
        if !entity.declaredRelationships.isEmpty {
            object["relationships"] = .array(entity.declaredRelationships.map(_json(relationship:)))
        }
        if !entity.declaredFetchedProperties.isEmpty {
            object["fetchedProperties"] = .array(entity.declaredFetchedProperties.map { property in
                var fetched: [String: JSONValue] = [
                    "name": .string(property.name), "entity": .string(property.destinationEntityName),
                    "predicate": .string(property.predicateFormat),
                ]
                if !property.userInfo.isEmpty { fetched["userInfo"] = .stringDictionary(property.userInfo) }
                return .dictionary(fetched)
            })
        }
        if !entity.uniquenessConstraints.isEmpty {
            object["uniquenessConstraints"] = .array(entity.uniquenessConstraints.map(JSONValue.strings))
        }
        if !entity.fetchIndexes.isEmpty { object["fetchIndexes"] = FetchIndexJSON.json(entity.fetchIndexes) }
        if !entity.userInfo.isEmpty { object["userInfo"] = .stringDictionary(entity.userInfo) }
        if let name = entity.representedClassName { object["representedClassName"] = .string(name) }
        if let identifier = entity.renamingIdentifier { object["renamingIdentifier"] = .string(identifier) }
        return .dictionary(object)
    }

    static func _json(attribute: AttributeDescription) -> JSONValue {
        let type = attribute.attributeType
        var object: [String: JSONValue] = ["name": .string(attribute.name), "type": .string(type.rawValue)]
        if !attribute.isOptional { object["optional"] = .bool(false) }
        if attribute.isTransient { object["transient"] = .bool(true) }
        if !attribute.defaultValue.isNull {
            object["default"] = ModelValueCoding.json(for: attribute.defaultValue, type: type)
        }
        if let minimum = attribute.minValue, !minimum.isNull {
            object["minValue"] = ModelValueCoding.json(for: minimum, type: type)
        }
        if let maximum = attribute.maxValue, !maximum.isNull {
            object["maxValue"] = ModelValueCoding.json(for: maximum, type: type)
        }
        if let length = attribute.minLength { object["minLength"] = .int(length) }
        if let length = attribute.maxLength { object["maxLength"] = .int(length) }
        if let pattern = attribute.regularExpression { object["regularExpression"] = .string(pattern) }
        if attribute.isIndexed { object["indexed"] = .bool(true) }
        if attribute.isText { object["text"] = .bool(true) }
        if let name = attribute.valueTransformerName { object["valueTransformerName"] = .string(name) }
        if !attribute.userInfo.isEmpty { object["userInfo"] = .stringDictionary(attribute.userInfo) }
        if let derivation = attribute.derivation { object["derivation"] = .string(derivation.predicateFormat) }
        if let identifier = attribute.renamingIdentifier { object["renamingIdentifier"] = .string(identifier) }
        return .dictionary(object)
    }

    private static func _json(relationship: RelationshipDescription) -> JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(relationship.name), "destination": .string(relationship.destinationEntityName),
        ]
        if relationship.isToMany { object["toMany"] = .bool(true) }
        if relationship.isOrdered { object["ordered"] = .bool(true) }
        if let inverse = relationship.inverseName { object["inverse"] = .string(inverse) }
        if relationship.deleteRule != .nullify { object["deleteRule"] = .string(relationship.deleteRule.rawValue) }
        if !relationship.isOptional { object["optional"] = .bool(false) }
        if relationship.minCount != 0 { object["minCount"] = .int(relationship.minCount) }
        if relationship.isToMany, relationship.maxCount != 0 { object["maxCount"] = .int(relationship.maxCount) }
        if relationship.isTransient { object["transient"] = .bool(true) }
        if !relationship.userInfo.isEmpty { object["userInfo"] = .stringDictionary(relationship.userInfo) }
        if let identifier = relationship.renamingIdentifier { object["renamingIdentifier"] = .string(identifier) }
        return .dictionary(object)
    }
}
