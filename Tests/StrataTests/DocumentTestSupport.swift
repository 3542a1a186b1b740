import Foundation
import OrderedCollections
import Testing
@testable import Strata
// Every file of the test target sees the one seeded generator and seed policy.
@_exported import StrataTestSupport

// Helpers for the document store suites: temporary directories, stacks over real document
// files, whole-document reads for equivalence checks, and small models with the
// relationship kinds the example model lacks.

/// A fresh temporary directory, removed when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String = "doc.strata") -> URL { url.appendingPathComponent(name) }
}

/// A document store, its coordinator and one context.
struct DocumentStack {
    let store: DocumentStore
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext

    var model: ManagedObjectModel { store.model }
    var undo: ContextUndoManager { context.undoManager! }

    private init(store: DocumentStore) throws {
        self.store = store
        coordinator = PersistentStoreCoordinator(model: store.model)
        try coordinator.addStore(store)
        context = ManagedObjectContext(coordinator: coordinator)
    }

    static func create(_ url: URL, model: ManagedObjectModel = sharedExampleModel,
                       configuration: DocumentStore.Configuration = .init()) throws -> DocumentStack {
        try DocumentStack(store: DocumentStore(creatingAt: url, model: model, configuration: configuration))
    }

    static func open(_ url: URL, model: ManagedObjectModel = sharedExampleModel,
                     configuration: DocumentStore.Configuration = .init()) throws -> DocumentStack {
        try DocumentStack(store: DocumentStore(openingAt: url, model: model, configuration: configuration))
    }

    /// Creates a document at `url`, fills it with `setUp` and closes it, then opens it twice,
    /// as two processes do (two connections, manual compaction).
    static func twoConnections<Value>(_ url: URL, setUp: (DocumentStack) throws -> Value) throws
        -> (value: Value, one: DocumentStack, other: DocumentStack)
    {
        let stack = try create(url)
        let value = try setUp(stack)
        try stack.store.close()
        return (value, try open(url, configuration: manualCompaction()), try open(url, configuration: manualCompaction()))
    }

    /// The object for a URI saved before, loaded through this stack's context.
    func object(_ uri: URL) throws -> ManagedObject {
        try context.existingObject(with: try coordinator.managedObjectID(forURIRepresentation: uri))
    }
}

/// A configuration that never compacts by itself (so tests decide when).
func manualCompaction(retention: DocumentStore.HistoryRetention = .all, compactsOnClose: Bool = false) -> DocumentStore.Configuration {
    var configuration = DocumentStore.Configuration()
    configuration.compactionSegmentThreshold = 0
    configuration.compactionByteThreshold = 0
    configuration.compactsOnClose = compactsOnClose
    configuration.retention = retention
    return configuration
}

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

/// Runs a program and returns its exit status, standard output and standard error.
func runProcess(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
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

/// The `strata-crash-writer` child program built by `swift build --build-tests` next to
/// the test bundle (or in the package's `.build/debug`), or nil when it is not built.
let crashWriterPath: String? = {
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL {
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent("strata-crash-writer"))
    }
    for bundle in Bundle.allBundles {
        candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("strata-crash-writer"))
    }
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(packageRoot.appendingPathComponent(".build/debug/strata-crash-writer"))
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }?.path
}()

let crashWriterMissing = "strata-crash-writer is not built: run `swift build --build-tests` before `swift test`"

/// SQLite's `PRAGMA integrity_check` of the file ("ok" when sound).
func integrityCheck(_ url: URL) throws -> String {
    try sqlRows(url, "PRAGMA integrity_check").compactMap { row -> String? in
        if case .text(let text)? = row.first { return text }
        return nil
    }.joined(separator: "\n")
}
