import Foundation
import Testing
@testable import Strata

private typealias F = MigrationFixtures

/// Inferred migrations that carry one record at a time (``MigrationPlan/carriesRecordByRecord``).
@Suite struct RecordByRecordMigrationTests {
    /// Version 2 for record-by-record carrying: Author.name renamed fullName, Book.pages
    /// widened, Book.isbn added, Note removed; every record keeps its key.
    static func v2() throws -> ManagedObjectModel {
        let v1 = try F.v1()
        let book = v1.entitiesByName["Book"]!
        return try ManagedObjectModel(entities: [
            EntityDescription("Author", attributes: [F.attribute("fullName", .string, optional: false, renamedFrom: "name")],
                              relationships: v1.entitiesByName["Author"]!.declaredRelationships),
            EntityDescription("Book", attributes: book.declaredAttributes.map { $0.name == "pages" ? F.attribute("pages", .integer64) : $0 }
                                  + [F.attribute("isbn", .string)],
                              relationships: book.declaredRelationships),
        ], versionIdentifier: "library-2-streamed")
    }

    @Test func compactedAndUncompactedRecordsAreCarriedAndTheDocumentVerifies() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("library.strata")
        var configuration = DocumentStore.Configuration()
        configuration.compactsOnClose = false
        configuration.turnOffAutomaticCompaction()
        let v1 = try F.v1(), v2 = try Self.v2()
        let stack = try DocumentStack.create(url, model: v1, configuration: configuration)
        var authors: [ManagedObject] = []
        for index in 0..<1_200 {
            let author = try stack.context.insertObject(forEntityName: "Author")
            try author.setValue(.string("Author \(index)"), forKey: "name")
            for number in 0..<2 {
                let book = try stack.context.insertObject(forEntityName: "Book")
                try book.setValue(.string("Book \(index).\(number)"), forKey: "title")
                try book.setValue(.integer(Int64(index % 500)), forKey: "pages")
                try book.setObject(author, forKey: "author")
            }
            authors.append(author)
        }
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue("dropped", forKey: "text")
        try stack.context.save()
        try stack.store.compact()
        // Saves the migration finds only in the log: an update, a delete, an insert.
        try authors[0].setValue("Renamed", forKey: "name")
        stack.context.delete(authors[1])
        let late = try stack.context.insertObject(forEntityName: "Author")
        try late.setValue("Late", forKey: "name")
        try stack.context.save()
        try stack.store.close()

        #expect(try MigrationPlan(from: v1, to: v2).carriesRecordByRecord)
        #expect(try !MigrationPlan(from: v1, to: MigrationTests.v2()).carriesRecordByRecord)   // adds a uniqueness constraint
        let before = try F.read(url, model: v1)
        var calls: [(Int, Int)] = []
        let report = try DocumentStore.migrate(at: url, to: v2) { calls.append(($0, $1)) }
        #expect(report.didMigrate && report.droppedRecords == 1)
        #expect(report.entities.first { $0.entity == "Author" }?.records == 1_200)
        #expect(report.entities.first { $0.entity == "Book" }?.records == 2_400)
        #expect(calls.last.map { $0.0 == $0.1 } == true && calls.count >= 3)

        let after = try F.read(url, model: v2)
        #expect(after.count == before.count - 1)
        for (key, values) in before where key.entity != "Note" {
            if key.entity == "Author" {
                #expect(after[key]?["fullName"] == values["name"], "\(key)")
                #expect(after[key]?["books"] == values["books"], "\(key)")
            } else {
                #expect(after[key]?["title"] == values["title"] && after[key]?["pages"] == values["pages"], "\(key)")
                #expect(after[key]?["author"] == values["author"] && after[key]?["isbn"] == .value(.null), "\(key)")
            }
        }
        #expect(try sqlRows(url, "SELECT name FROM sqlite_schema WHERE name LIKE 'strata_migrating_%'").isEmpty)
        #expect(try sqlRows(url, "SELECT name FROM sqlite_schema WHERE name = 'Note'").isEmpty)
        #expect(try !sqlRows(url, "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Book'").isEmpty)
        let verified = try DocumentVerifier.verify(url)
        #expect(verified.isValid, "\(verified.problems)")
        #expect(verified.passed.contains { $0.contains("gives exactly the") }, "\(verified.passed)")
    }
}
