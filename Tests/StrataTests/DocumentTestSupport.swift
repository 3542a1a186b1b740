import Foundation
import OrderedCollections
import Testing
@testable import Strata
// Every file of the test target sees the one seeded generator and seed policy.
@_exported import StrataTestSupport

// Helpers for the document store suites: whole-document reads for equivalence checks, and
// small models with the relationship kinds the example model lacks. (Temporary
// directories and document stacks are in StrataTestSupport.)

/// One record as compared between reads: keyed by entity name and primary key (so reads
/// of different store instances compare), values with unordered to-manys as sorted sets.
struct RecordKey: Hashable, Comparable, CustomStringConvertible {
    var entity: String
    var key: Int64
    static func < (lhs: RecordKey, rhs: RecordKey) -> Bool { (lhs.entity, lhs.key) < (rhs.entity, rhs.key) }
    var description: String { "\(entity)/p\(key)" }
}

/// A value with object IDs turned into record keys; unordered to-manys sorted.
enum ComparableValue: Hashable, CustomStringConvertible {
    case value(PropertyValue)
    case object(RecordKey)
    case objects([RecordKey], ordered: Bool)

    var description: String {
        switch self {
        case .value(let value): return value.description
        case .object(let key): return "→\(key)"
        case .objects(let keys, let ordered): return (ordered ? "[" : "{") + keys.map(\.description).joined(separator: ",") + (ordered ? "]" : "}")
        }
    }
}

/// Every record of every concrete entity in the store, read by ID.
func readEverything(_ store: DocumentStore) throws -> [RecordKey: [String: ComparableValue]] {
    var result: [RecordKey: [String: ComparableValue]] = [:]
    for entity in store.model.entities where !entity.isAbstract {
        for id in try store.objectIDs(for: entity, includingSubentities: false) {
            let values = try #require(try store.values(for: id), "listed \(id) has no values")
            result[RecordKey(entity: entity.name, key: id.primaryKey)] = comparable(values, of: entity)
        }
    }
    return result
}

/// A row's persistent slots by name, in comparable form.
func comparable(_ values: [PropertyValue], of entity: EntityDescription) -> [String: ComparableValue] {
    var row: [String: ComparableValue] = [:]
    for slot in values.indices where !RowTable.isTransient(slot, of: entity) {
        let name = entity.slotNames[slot]
        switch values[slot] {
        case .object(let id):
            row[name] = .object(RecordKey(entity: id.entity.name, key: id.primaryKey))
        case .objects(let ids):
            let keys = ids.map { RecordKey(entity: $0.entity.name, key: $0.primaryKey) }
            let ordered = OverlayPatch.isOrdered(slot, of: entity)
            row[name] = .objects(ordered ? keys : keys.sorted(), ordered: ordered)
        case let value:
            row[name] = .value(value)
        }
    }
    return row
}

/// Describes the first difference between two whole-document reads (nil when equal).
func firstDifference(_ a: [RecordKey: [String: ComparableValue]], _ b: [RecordKey: [String: ComparableValue]]) -> String? {
    for key in Set(a.keys).union(b.keys).sorted() {
        guard let left = a[key] else { return "\(key) only in the second read" }
        guard let right = b[key] else { return "\(key) only in the first read" }
        for name in Set(left.keys).union(right.keys).sorted() where left[name] != right[name] {
            return "\(key).\(name): \(left[name].map(\.description) ?? "-") vs \(right[name].map(\.description) ?? "-")"
        }
    }
    return nil
}

/// The rows of a table of the document, read with a separate SQLite connection.
func sqlRows(_ url: URL, _ sql: String) throws -> [[SQLiteValue]] {
    let connection = try SQLiteConnection(path: url.path, flags: [.readOnly])
    defer { connection.close() }
    return try connection.prepare(sql).rows()
}

// MARK: Small models

/// Relationship kinds the example model lacks:
/// - `Playlist.tracks` ↔ `Track.playlists`: an ordered to-many whose inverse is a to-many.
/// - `Shelf.items` ↔ `Item.shelf`: a to-many to a hierarchy (`Item` with `Book`, `Film`).
/// - `Book.owner` ↔ `Person.books` and `Film.owner` ↔ `Person.films`: two sibling
///   sub-entities whose to-ones share a name, so their columns must differ.
/// - `Shelf.favorite` → `Item` and `Item.bookmarks` → `Shelf` (to-many): no inverse.
/// - `Tag.parent` ↔ `Tag.children`: an ordered reflexive to-many with a to-one inverse.
let documentKindsModel: ManagedObjectModel = {
    let playlist = EntityDescription("Playlist", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("tracks", to: "Track", toMany: true, inverse: "playlists", isOrdered: true),
    ])
    let track = EntityDescription("Track", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("playlists", to: "Playlist", toMany: true, inverse: "tracks"),
    ])
    let shelf = EntityDescription("Shelf", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("items", to: "Item", toMany: true, inverse: "shelf"),
        RelationshipDescription("favorite", to: "Item"),
    ])
    let item = EntityDescription("Item", isAbstract: true, attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("shelf", to: "Shelf", inverse: "items"),
        RelationshipDescription("bookmarks", to: "Shelf", toMany: true),
    ])
    let book = EntityDescription("Book", parent: "Item", attributes: [AttributeDescription("pages", .integer32)], relationships: [
        RelationshipDescription("owner", to: "Person", inverse: "books"),
    ])
    let film = EntityDescription("Film", parent: "Item", attributes: [AttributeDescription("minutes", .integer32)], relationships: [
        RelationshipDescription("owner", to: "Person", inverse: "films"),
    ])
    let person = EntityDescription("Person", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("books", to: "Book", toMany: true, inverse: "owner"),
        RelationshipDescription("films", to: "Film", toMany: true, inverse: "owner"),
    ])
    let tag = EntityDescription("Tag", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("parent", to: "Tag", inverse: "children"),
        RelationshipDescription("children", to: "Tag", toMany: true, inverse: "parent", isOrdered: true),
    ])
    return try! ManagedObjectModel(entities: [playlist, track, shelf, item, book, film, person, tag])
}()

/// SQLite's `PRAGMA integrity_check` of the file ("ok" when sound).
func integrityCheck(_ url: URL) throws -> String {
    try sqlRows(url, "PRAGMA integrity_check").compactMap { row -> String? in
        if case .text(let text)? = row.first { return text }
        return nil
    }.joined(separator: "\n")
}
