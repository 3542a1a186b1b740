import Foundation
import Strata

/// The model section of `strata info`: per entity, one line per model feature that the
/// entity uses (indexes, uniqueness constraints, derived and composite attributes), and
/// the same as JSON members.
///
/// Each feature has its own pair of small functions (text lines, JSON value) so that the
/// features can grow independently; an entity without any feature prints nothing.
enum ModelInfoText {
    /// The lines printed under the entity table, one block per entity that has any.
    static func lines(for entities: [EntityDescription]) -> [String] {
        var lines: [String] = []
        for entity in entities {
            let features = [
                ("indexes", indexes(of: entity)),
                ("unique", uniquenessConstraints(of: entity)),
                ("derived", derivedAttributes(of: entity)),
                ("composite", compositeAttributes(of: entity)),
            ].filter { !$0.1.isEmpty }
            guard !features.isEmpty else { continue }
            lines.append(entity.name)
            for (label, items) in features {
                lines.append("  " + label.padding(toLength: 10, withPad: " ", startingAt: 0) + items.joined(separator: "; "))
            }
        }
        return lines
    }

    /// The JSON members added to each entity of `strata info --json`.
    static func json(for entity: EntityDescription) -> [(String, JSONValue)] {
        [
            ("indexes", indexesJSON(of: entity)),
            ("uniquenessConstraints", .array(entity.uniquenessConstraints.map { .array($0.map(JSONValue.string)) })),
            ("derivedAttributes", derivedAttributesJSON(of: entity)),
            ("compositeAttributes", compositeAttributesJSON(of: entity)),
        ]
    }

    // MARK: Indexes

    /// `byName (name)`, `byDate (date desc, kind)`, `byLocation r-tree (lat, lon)`: the
    /// declared fetch indexes and the attributes marked indexed.
    static func indexes(of entity: EntityDescription) -> [String] {
        entity.declaredIndexes.map { index in
            let elements = index.elements.map { $0.property + ($0.isAscending || index.isRTree ? "" : " desc") }
            return "\(index.name)\(index.isRTree ? " r-tree" : "") (\(elements.joined(separator: ", ")))"
        }
    }

    static func indexesJSON(of entity: EntityDescription) -> JSONValue {
        .array(entity.declaredIndexes.map { index in
            .fields([
                "name": .string(index.name),
                "elements": .array(index.elements.map { element in
                    .fields([
                        "property": .string(element.property), "type": .string(element.kind.rawValue),
                        "ascending": .bool(element.isAscending),
                    ])
                }),
            ])
        })
    }

    // MARK: Uniqueness constraints

    /// `(email)`, `(firstName, lastName)`: the constraints declared on the entity.
    static func uniquenessConstraints(of entity: EntityDescription) -> [String] {
        entity.uniquenessConstraints.map { "(" + $0.joined(separator: ", ") + ")" }
    }

    // MARK: Derived attributes

    /// `total (Integer 64) = employees.@sum.salary`: the entity's own derived attributes.
    static func derivedAttributes(of entity: EntityDescription) -> [String] {
        entity.declaredAttributes.compactMap { attribute in
            attribute.derivation.map { "\(attribute.name) (\(attribute.attributeType.rawValue)) = \($0.predicateFormat)" }
        }
    }

    /// The derived attributes as `{"name": ..., "derivation": ...}` objects.
    static func derivedAttributesJSON(of entity: EntityDescription) -> JSONValue {
        .array(entity.declaredAttributes.compactMap { attribute in
            attribute.derivation.map { .fields(["name": .string(attribute.name), "derivation": .string($0.predicateFormat)]) }
        })
    }

    // MARK: Composite attributes

    /// `address (Address): city string, zip string?, geo (Geo) {lat double, lon double}`: the
    /// entity's own composite attributes with their elements' types (`?` for an optional
    /// element), a nested composite's in braces.
    static func compositeAttributes(of entity: EntityDescription) -> [String] {
        entity.declaredComposites.map { composite in
            "\(composite.name)\(composite.typeName.map { " (\($0))" } ?? ""): \(compositeElements(composite))"
        }
    }

    private static func compositeElements(_ composite: CompositeAttributeDescription) -> String {
        let elements = composite.elements.map { "\($0.name) \($0.attributeType.rawValue)\($0.isOptional ? "?" : "")" }
        let nested = composite.composites.map { inner in
            "\(inner.name)\(inner.typeName.map { " (\($0))" } ?? "") {\(compositeElements(inner))}"
        }
        return (elements + nested).joined(separator: ", ")
    }

    /// The composite attributes as `{"name": ..., "elements": [...]}` objects, elements in
    /// order, a nested composite as such an object among them.
    static func compositeAttributesJSON(of entity: EntityDescription) -> JSONValue {
        .array(entity.declaredComposites.map(compositeJSON))
    }

    private static func compositeJSON(_ composite: CompositeAttributeDescription) -> JSONValue {
        .fields(["name": .string(composite.name),
                 "elements": .array(composite.elements.map { .string($0.name) } + composite.composites.map(compositeJSON))])
    }
}
