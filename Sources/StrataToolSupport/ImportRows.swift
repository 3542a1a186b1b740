import Foundation
import Strata

/// One object to import: its entity, its old URI, and its property values.
package struct ImportRow {
    /// A value as the file holds it.
    package enum Value {
        /// A JSON value (JSON import files).
        case json(JSONValue)
        /// A CSV cell (an empty cell is null).
        case text(String)
    }
    /// The row's number in the file, from 1, for errors.
    package var number: Int
    /// The `_entity` the row names, if any.
    package var entity: String?
    /// The `_uri` the row names, if any: other rows of the file may refer to it.
    package var uri: String?
    /// The property values, in the file's order.
    package var values: [(key: String, value: Value)]
}

/// Where `strata import` puts objects: a context, and how entity names and references to
/// objects already there resolve. `strata`'s document session is one; the fuzzers
/// (Tests/Fuzz) use an in-memory store.
package protocol ImportDestination {
    /// The context the objects are inserted into.
    var context: ManagedObjectContext { get }
    /// The entity with a name.
    /// - Throws: `.unknownKey` naming it.
    func entity(named name: String) throws -> EntityDescription
    /// The ID a URI or `Entity/pKEY` reference names.
    /// - Throws: `.invalidObjectID`, `.objectNotFound` naming the reference.
    func objectID(_ reference: String) throws -> ManagedObjectID
}

/// Reading import files (JSON arrays, CSV) and inserting their objects into a context.
package enum ImportRows {
    /// The rows of a JSON import file: an array of objects.
    /// - Throws: `.invalidArgument` naming the item that is not an object; the JSON
    ///   reader's errors (with line and column).
    package static func json(_ data: Data) throws -> [ImportRow] {
        guard case .array(let items) = try JSONValue.parse([UInt8](data)) else {
            throw StrataError(.invalidArgument, "The JSON import file must hold an array of objects.")
        }
        return try items.enumerated().map { index, item in
            guard case .object(let members) = item else {
                throw StrataError(.invalidArgument, "Item \(index + 1) of the import file is not an object.", context: ["row": String(index + 1)])
            }
            var row = ImportRow(number: index + 1, entity: nil, uri: nil, values: [])
            for member in members {
                switch member.key {
                case "_entity": row.entity = member.value.stringValue
                case "_uri": row.uri = member.value.stringValue
                default: row.values.append((member.key, .json(member.value)))
                }
            }
            return row
        }
    }

    /// The rows of a CSV import file: a header of property names, then one row per object.
    /// - Throws: `.invalidArgument` naming a row whose field count differs from the header's.
    package static func csv(_ data: Data) throws -> [ImportRow] {
        let records = try CSVReader.records(String(decoding: data, as: UTF8.self))
        guard let header = records.first else { return [] }
        return try records.dropFirst().enumerated().compactMap { index, fields in
            if fields.count == 1, fields[0].isEmpty { return nil }
            guard fields.count == header.count else {
                throw StrataError(.invalidArgument, "CSV row \(index + 1) has \(fields.count) fields; the header has \(header.count).",
                                  context: ["row": String(index + 1)])
            }
            var row = ImportRow(number: index + 1, entity: nil, uri: nil, values: [])
            for (key, field) in zip(header, fields) {
                switch key {
                case "_entity": row.entity = field.isEmpty ? nil : field
                case "_uri": row.uri = field.isEmpty ? nil : field
                default: row.values.append((key, .text(field)))
                }
            }
            return row
        }
    }

    /// Creates every object, then links relationships; the caller saves (as one undo group
    /// named by the returned action).
    /// - Returns: How many objects were created and the undo action name ("Import ENTITY").
    /// - Throws: The first bad row's error, its message starting "Import row N".
    package static func insert(
        _ rows: [ImportRow], defaultEntity: String?, into session: some ImportDestination
    ) throws -> (count: Int, action: String) {
        let fallback = try defaultEntity.map(session.entity(named:))
        let bar = ToolProgressBar(label: "Importing")
        var created: [(row: ImportRow, object: ManagedObject)] = []
        var byOldURI: [String: ManagedObjectID] = [:]
        let total = rows.count * 2
        for row in rows {
            try rowContext(row) {
                let entity: EntityDescription
                if let name = row.entity {
                    entity = try session.entity(named: name)
                    if let fallback, !entity.isKind(of: fallback) {
                        throw StrataError(.invalidArgument, "_entity \(name) is not \(fallback.name) (--entity).", context: ["entity": name])
                    }
                } else if let fallback {
                    entity = fallback
                } else {
                    throw StrataError(.invalidArgument, "no _entity and no --entity: say which entity the objects are.")
                }
                let object = try session.context.insertObject(of: entity)
                for (key, value) in row.values where entity.relationshipsByName[key] == nil {
                    guard let attribute = entity.attributesByName[key] else { throw unknownKey(key, entity) }
                    let parsed: PropertyValue
                    switch value {
                    case .json(let json): parsed = try ToolValueText.value(fromJSON: json, as: attribute.attributeType, key: key)
                    case .text(let text): parsed = text.isEmpty ? .null : try ToolValueText.parse(text, as: attribute.attributeType, key: key)
                    }
                    try object.setValue(parsed, forKey: key)
                }
                if let uri = row.uri { byOldURI[uri] = object.objectID }
                created.append((row, object))
            }
            bar.update(created.count, of: total)
        }
        for (index, entry) in created.enumerated() {
            try rowContext(entry.row) {
                let entity = entry.object.entity
                for (key, value) in entry.row.values {
                    guard let relationship = entity.relationshipsByName[key] else { continue }
                    let references: [String]
                    switch value {
                    case .json(.null): references = []
                    case .json(.string(let text)): references = [text]
                    case .json(.array(let items)):
                        references = try items.map { item in
                            guard let text = item.stringValue else {
                                throw StrataError(.typeMismatch, "\(key) must list URI strings.", context: ["key": key])
                            }
                            return text
                        }
                    case .json(let other):
                        throw StrataError(.typeMismatch, "\(key) is a relationship; \(other.rendered(pretty: false)) is not a URI.", context: ["key": key])
                    case .text(let text):
                        references = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: "@")) }
                    }
                    let ids = try references.map { reference -> ManagedObjectID in
                        let trimmed = reference.hasPrefix("@") ? String(reference.dropFirst()) : reference
                        if let id = byOldURI[trimmed] { return id }
                        do {
                            return try session.objectID(trimmed)
                        } catch {
                            throw StrataError(.objectNotFound, "\(key) refers to \(trimmed), which is neither in the file nor in the document.",
                                              context: ["key": key, "uri": trimmed])
                        }
                    }
                    if relationship.isToMany {
                        try entry.object.setValue(ids.isEmpty ? .null : .objects(.init(ids)), forKey: key)
                    } else {
                        guard ids.count <= 1 else {
                            throw StrataError(.typeMismatch, "\(key) is a to-one relationship; got \(ids.count) references.", context: ["key": key])
                        }
                        try entry.object.setValue(ids.first.map { .object($0) } ?? .null, forKey: key)
                    }
                }
            }
            bar.update(created.count + index + 1, of: total)
        }
        bar.finish()
        let names = Set(created.map(\.object.entity.name))
        let action = "Import " + (names.count == 1 ? (names.first ?? "Objects") : (fallback?.name ?? "Objects"))
        return (created.count, action)
    }

    private static func unknownKey(_ key: String, _ entity: EntityDescription) -> StrataError {
        let names = ToolRecordText.storedProperties(of: entity).map(\.property.name).joined(separator: ", ")
        return StrataError(.unknownKey, "Entity '\(entity.name)' has no property '\(key)' (properties: \(names)).",
                           context: ["entity": entity.name, "key": key])
    }

    private static func rowContext(_ row: ImportRow, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch var error as StrataError {
            error.message = "Import row \(row.number)\(row.uri.map { " (\($0))" } ?? ""): \(error.message)"
            error.context["row"] = String(row.number)
            throw error
        }
    }
}
