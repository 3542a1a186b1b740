import Foundation
import Strata

/// How an import row's cells become property values: its entity, attribute values parsed
/// as the attribute's type, and relationship cells as references.
package enum ImportValues {
    /// The entity a row names (`_entity`), else `fallback` (`--entity`).
    /// - Throws: `.invalidArgument` when the row's entity is not the fallback's kind or
    ///   neither names one; `.unknownKey` for an unknown entity.
    package static func entity(of row: ImportRow, fallback: EntityDescription?, in session: some ImportDestination) throws -> EntityDescription {
        if let name = row.entity {
            let entity = try session.entity(named: name)
            if let fallback, !entity.isKind(of: fallback) {
                throw StrataError(.invalidArgument, "_entity \(name) is not \(fallback.name) (--entity).", context: .init { $0.entity = name })
            }
            return entity
        }
        guard let fallback else {
            throw StrataError(.invalidArgument, "no _entity and no --entity: say which entity the objects are.")
        }
        return fallback
    }

    /// An attribute's value from a cell.
    /// - Throws: `.unknownKey` listing the entity's properties; the value parser's errors.
    package static func attribute(_ value: ImportRow.Value, key: String, of entity: EntityDescription) throws -> PropertyValue {
        guard let attribute = entity.attributesByName[key] else { throw unknownKey(key, entity) }
        switch value {
        case .json(let json): return try ToolValueText.value(fromJSON: json, as: attribute.attributeType, key: key)
        case .text(let text): return text.isEmpty ? .null : try ToolValueText.parse(text, as: attribute.attributeType, key: key)
        }
    }

    /// An attribute's value from a cell, the attribute's type known.
    /// - Throws: the value parser's errors.
    package static func attribute(_ value: ImportRow.Value, key: String, type: AttributeType) throws -> PropertyValue {
        switch value {
        case .json(let json): return try ToolValueText.value(fromJSON: json, as: type, key: key)
        case .text(let text): return text.isEmpty ? .null : try ToolValueText.parse(text, as: type, key: key)
        }
    }

    /// Where a column of an import file goes in a row of its entity: a stored property's slot.
    package struct Column {
        /// The property's name.
        package let key: String
        /// The property's slot in the entity's rows.
        package let slot: Int
        /// The attribute's type (unused for a relationship).
        package let type: AttributeType
        /// The relationship, when the column is one.
        package let relationship: RelationshipDescription?

        /// The column of `key` in rows of `entity`.
        /// - Throws: `.unknownKey` listing the entity's properties; `.invalidArgument` for a
        ///   transient attribute (the store does not hold it), naming request row `row`.
        package init(key: String, of entity: EntityDescription, row: Int) throws {
            self.key = key
            if let relationship = entity.relationshipsByName[key], let slot = entity.slot(forKey: key) {
                self.slot = slot
                type = .string
                self.relationship = relationship
                return
            }
            guard let attribute = entity.attributesByName[key], let slot = entity.slot(forKey: key) else {
                throw unknownKey(key, entity)
            }
            guard !attribute.isTransient else {
                throw StrataError(.invalidArgument, "Row \(row) of the batch insert sets the transient attribute '\(entity.name).\(key)', which the store does not hold.",
                                  context: .init { $0.entity = entity.name; $0.key = key; $0.row = row })
            }
            self.slot = slot
            type = attribute.attributeType
            relationship = nil
        }
    }

    /// The references a relationship cell lists (URIs or `_uri`s, a leading `@` dropped).
    /// - Throws: `.typeMismatch` for a JSON value that is not a string, null or array of strings.
    package static func references(_ value: ImportRow.Value, key: String) throws -> [String] {
        let references: [String]
        switch value {
        case .json(.null): references = []
        case .json(.string(let text)): references = [text]
        case .json(.array(let items)):
            references = try items.map { item in
                guard let text = item.stringValue else {
                    throw StrataError(.typeMismatch, "\(key) must list URI strings.", context: .init { $0.key = key })
                }
                return text
            }
        case .json(let other):
            throw StrataError(.typeMismatch, "\(key) is a relationship; \(other.rendered(pretty: false)) is not a URI.", context: .init { $0.key = key })
        case .text(let text):
            references = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: "@")) }
        }
        return references.map { $0.hasPrefix("@") ? String($0.dropFirst()) : $0 }
    }

    /// The ID of an object already in the document.
    /// - Throws: `.objectNotFound` naming the reference.
    package static func existing(_ reference: String, key: String, in session: some ImportDestination) throws -> ManagedObjectID {
        do {
            return try session.objectID(reference)
        } catch {
            throw StrataError(.objectNotFound, "\(key) refers to \(reference), which is neither in the file nor in the document.",
                              context: .init { $0.key = key; $0.object = reference })
        }
    }

    /// A relationship's value from the IDs of its cell.
    /// - Throws: `.typeMismatch` for more than one reference in a to-one.
    package static func relationshipValue(_ ids: [ManagedObjectID], _ relationship: RelationshipDescription) throws -> PropertyValue {
        if relationship.isToMany { return ids.isEmpty ? .null : .objects(.init(ids)) }
        guard ids.count <= 1 else {
            throw StrataError(.typeMismatch, "\(relationship.name) is a to-one relationship; got \(ids.count) references.",
                              context: .init { $0.key = relationship.name })
        }
        return ids.first.map { .object($0) } ?? .null
    }

    private static func unknownKey(_ key: String, _ entity: EntityDescription) -> StrataError {
        let names = ToolRecordText.storedProperties(of: entity).map(\.property.name).joined(separator: ", ")
        return StrataError(.unknownKey, "Entity \(input: entity.name) has no property \(input: key) (properties: \(names)).",
                           context: .init { $0.entity = entity.name; $0.key = key })
    }
}
