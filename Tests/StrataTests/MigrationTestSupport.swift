import Foundation
import Testing
@testable import Strata

/// Models and documents for the migration suites: a small library (authors, books, notes)
/// in version 1, and documents holding the same records made with it.
enum MigrationFixtures {
    static func attribute(_ name: String, _ type: AttributeType, optional: Bool = true, default value: PropertyValue = .null,
                          indexed: Bool = false, renamedFrom: String? = nil) -> AttributeDescription {
        var attribute = AttributeDescription(name, type, isOptional: optional, defaultValue: value, isIndexed: indexed)
        attribute.renamingIdentifier = renamedFrom
        return attribute
    }

    static func relationship(_ name: String, to destination: String, toMany: Bool = false, inverse: String?,
                             renamedFrom: String? = nil) -> RelationshipDescription {
        var relationship = RelationshipDescription(name, to: destination, toMany: toMany, inverse: inverse)
        relationship.renamingIdentifier = renamedFrom
        return relationship
    }

    /// Version 1: Author(name required; books) ↔ Book(title required, pages int16, rating
    /// int32, subtitle, price float; author), and Note(text).
    static func v1() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription("Author", attributes: [attribute("name", .string, optional: false)],
                              relationships: [relationship("books", to: "Book", toMany: true, inverse: "author")]),
            EntityDescription("Book", attributes: [
                attribute("title", .string, optional: false), attribute("pages", .integer16), attribute("rating", .integer32),
                attribute("subtitle", .string), attribute("price", .float),
            ], relationships: [relationship("author", to: "Author", inverse: "books")]),
            EntityDescription("Note", attributes: [attribute("text", .string)]),
        ], versionIdentifier: "library-1")
    }

    /// Makes a version 1 document: two authors, three books (one without subtitle or
    /// author), two notes; saved in three segments so the log has history.
    static func makeV1Document(_ url: URL, model: ManagedObjectModel? = nil) throws {
        let model = try model ?? v1()
        let stack = try DocumentStack.create(url, model: model)
        let (store, context) = (stack.store, stack.context)
        let ada = try context.insertObject(forEntityName: "Author")
        try ada.setValue("Ada", forKey: "name")
        let bob = try context.insertObject(forEntityName: "Author")
        try bob.setValue("Bob", forKey: "name")
        var books: [ManagedObject] = []
        for (title, pages, rating, subtitle) in [("Engines", 120, 5, "On analysis"), ("Notes", 300, 4, nil), ("Loose", 80, 3, "Alone")] {
            let book = try context.insertObject(forEntityName: "Book")
            try book.setValue(.string(title), forKey: "title")
            try book.setValue(.integer(Int64(pages)), forKey: "pages")
            try book.setValue(.integer(Int64(rating)), forKey: "rating")
            try book.setValue(subtitle.map { .string($0) } ?? .null, forKey: "subtitle")
            try book.setValue(.double(9.5), forKey: "price")
            books.append(book)
        }
        try books[0].setObject(ada, forKey: "author")
        try books[1].setObject(ada, forKey: "author")
        try context.save()
        let note = try context.insertObject(forEntityName: "Note")
        try note.setValue("remember", forKey: "text")
        try context.save()
        try books[2].setObject(bob, forKey: "author")
        try books[2].setObject(nil, forKey: "author")
        let second = try context.insertObject(forEntityName: "Note")
        try second.setValue("again", forKey: "text")
        try context.save()
        try store.close()
    }

    /// Opens a document with `model` (no migration allowed) and reads every record.
    static func read(_ url: URL, model: ManagedObjectModel) throws -> [RecordKey: [String: ComparableValue]] {
        let store = try DocumentStore(openingAt: url, model: model)
        defer { try? store.close() }
        return try readEverything(store)
    }

    /// The value of one property of one record of a whole-document read.
    static func value(_ records: [RecordKey: [String: ComparableValue]], _ entity: String, _ key: Int64, _ name: String) -> ComparableValue? {
        records[RecordKey(entity: entity, key: key)]?[name]
    }
}
