import Foundation
import Testing
@testable import Strata

private typealias F = MigrationFixtures

@Suite struct MigrationTests {
    /// Version 2 of the library: every inferable change at once.
    static func v2() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription("Author", attributes: [F.attribute("name", .string)],   // required → optional
                              relationships: [F.relationship("books", to: "Book", toMany: true, inverse: "author")],
                              uniquenessConstraints: [["name"]]),
            EntityDescription("Book", attributes: [
                F.attribute("name", .string, optional: false, renamedFrom: "title"),        // renamed
                F.attribute("pages", .integer64),                                            // widened
                F.attribute("rating", .double),                                              // widened
                F.attribute("subtitle", .string, optional: false, default: .string("none")), // optional → required
                F.attribute("isbn", .string, indexed: true),                                 // new, indexed
                F.attribute("edition", .integer16, optional: false, default: .integer(1)),   // new with a default
            ], relationships: [
                F.relationship("author", to: "Author", inverse: "books"),
                F.relationship("shelf", to: "Shelf", inverse: "books"),                      // new
            ]),
            EntityDescription("Shelf", attributes: [F.attribute("label", .string)],          // new entity
                              relationships: [F.relationship("books", to: "Book", toMany: true, inverse: "shelf")]),
        ], versionIdentifier: "library-2")   // Note removed, Book.price removed
    }

    @Test func everyInferableChangeCarriesTheRecordsAndTheDocumentVerifies() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("library.strata")
        try F.makeV1Document(url)
        let v2 = try Self.v2()
        let report = try DocumentStore.migrate(at: url, to: v2)
        #expect(report.didMigrate)
        #expect(report.droppedRecords == 2)   // the notes
        #expect(report.entities.first { $0.entity == "Book" }?.records == 3)
        #expect(report.entities.first { $0.entity == "Book" }?.addedColumns.contains("isbn") == true)
        #expect(report.entities.first { $0.entity == "Book" }?.removedColumns.contains("price") == true)
        #expect(report.changes.contains("Book.title: renamed name"))

        let records = try F.read(url, model: v2)
        #expect(records.keys.filter { $0.entity == "Book" }.count == 3)
        #expect(records.keys.filter { $0.entity == "Author" }.count == 2)
        #expect(records.keys.filter { $0.entity == "Shelf" }.isEmpty)
        #expect(F.value(records, "Book", 1, "name") == .value(.string("Engines")))
        #expect(F.value(records, "Book", 2, "pages") == .value(.integer(300)))
        #expect(F.value(records, "Book", 1, "rating") == .value(.double(5)))
        #expect(F.value(records, "Book", 2, "subtitle") == .value(.string("none")))
        #expect(F.value(records, "Book", 1, "subtitle") == .value(.string("On analysis")))
        #expect(F.value(records, "Book", 3, "edition") == .value(.integer(1)))
        #expect(F.value(records, "Book", 3, "isbn") == .value(.null))
        #expect(F.value(records, "Book", 1, "author") == .object(RecordKey(entity: "Author", key: 1)))
        #expect(F.value(records, "Author", 1, "books") == .objects([RecordKey(entity: "Book", key: 1), RecordKey(entity: "Book", key: 2)], ordered: false))
        #expect(records[RecordKey(entity: "Book", key: 1)]?["price"] == nil)

        let indexes = try sqlRows(url, "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Book'")
        #expect(indexes.contains { $0.first == .text("Book_isbn_index") })
        #expect(try sqlRows(url, "SELECT name FROM sqlite_schema WHERE name = 'Note'").isEmpty)

        let verified = try DocumentVerifier.verify(url)
        #expect(verified.isValid, "\(verified.problems)")
        #expect(verified.passed.contains { $0.hasPrefix("replaying") }, "\(verified.passed)")
        let versions = try DocumentStore.modelVersions(at: url)
        #expect(versions.map(\.version) == [1, 2])
        #expect(versions.map(\.identifier) == ["library-1", "library-2"])
        #expect(versions[1].firstSegment == 4)
        #expect(versions[1].entityHashes == v2.entityVersionHashes)
        #expect(versions[0].entityHashes["Note"] != nil)
    }

    @Test func aToOneBecomesAToManyThroughARenamingIdentifier() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("library.strata")
        try F.makeV1Document(url)
        let v1 = try F.v1()
        let v2 = try ManagedObjectModel(entities: [
            EntityDescription("Author", attributes: v1.entitiesByName["Author"]!.declaredAttributes,
                              relationships: [F.relationship("books", to: "Book", toMany: true, inverse: "authors")]),
            EntityDescription("Book", attributes: v1.entitiesByName["Book"]!.declaredAttributes,
                              relationships: [F.relationship("authors", to: "Author", toMany: true, inverse: "books", renamedFrom: "author")]),
            EntityDescription("Note", attributes: v1.entitiesByName["Note"]!.declaredAttributes),
        ])
        try DocumentStore.migrate(at: url, to: v2)
        let records = try F.read(url, model: v2)
        #expect(F.value(records, "Book", 1, "authors") == .objects([RecordKey(entity: "Author", key: 1)], ordered: false))
        #expect(F.value(records, "Book", 3, "authors") == .objects([], ordered: false))
        #expect(F.value(records, "Author", 1, "books") == .objects([RecordKey(entity: "Book", key: 1), RecordKey(entity: "Book", key: 2)], ordered: false))
        let verified = try DocumentVerifier.verify(url)
        #expect(verified.isValid, "\(verified.problems)")
    }

    @Test func aParentChangeMovesRecordsIntoTheNewHierarchyWithNewKeysWhereTaken() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("staff.strata")
        let v1 = try ManagedObjectModel(entities: [
            EntityDescription("Person", attributes: [F.attribute("name", .string)]),
            EntityDescription("Employee", attributes: [F.attribute("name", .string), F.attribute("salary", .integer32)],
                              relationships: [F.relationship("team", to: "Team", inverse: "members")]),
            EntityDescription("Team", attributes: [F.attribute("title", .string)],
                              relationships: [F.relationship("members", to: "Employee", toMany: true, inverse: "team")]),
        ])
        let stack = try DocumentStack.create(url, model: v1)
        let (store, context) = (stack.store, stack.context)
        let team = try context.insertObject(forEntityName: "Team")
        try team.setValue("Core", forKey: "title")
        for name in ["Pat", "Sam"] {
            let person = try context.insertObject(forEntityName: "Person")
            try person.setValue(.string(name), forKey: "name")
        }
        for (name, salary) in [("Ann", 10), ("Ben", 20), ("Cy", 30)] {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string(name), forKey: "name")
            try employee.setValue(.integer(Int64(salary)), forKey: "salary")
            try employee.setObject(team, forKey: "team")
        }
        try context.save()
        try store.close()

        let v2 = try ManagedObjectModel(entities: [
            EntityDescription("Person", attributes: [F.attribute("name", .string)]),
            EntityDescription("Employee", parent: "Person", attributes: [F.attribute("salary", .integer64)],
                              relationships: [F.relationship("team", to: "Team", inverse: "members")]),
            EntityDescription("Team", attributes: [F.attribute("title", .string)],
                              relationships: [F.relationship("members", to: "Employee", toMany: true, inverse: "team")]),
        ])
        let report = try DocumentStore.migrate(at: url, to: v2)
        #expect(report.rekeyedRecords == 2)   // employees 1 and 2 collide with the people
        let migrated = try DocumentStore(openingAt: url, model: v2)
        defer { try? migrated.close() }
        let employees = try migrated.objectIDs(for: v2.entitiesByName["Employee"]!, includingSubentities: false)
        let names = try employees.map { try migrated.values(for: $0)![0] }
        #expect(Set(names) == [.string("Ann"), .string("Ben"), .string("Cy")])
        #expect(Set(employees.map(\.primaryKey)) == [3, 4, 5])
        let teamID = try #require(try migrated.objectIDs(for: v2.entitiesByName["Team"]!, includingSubentities: false).first)
        let members = try migrated.values(for: teamID)![1].objectIDs
        #expect(Set(members) == Set(employees))
        #expect(try migrated.objectIDs(for: v2.entitiesByName["Person"]!, includingSubentities: true).count == 5)
        try migrated.close()
        let verified = try DocumentVerifier.verify(url)
        #expect(verified.isValid, "\(verified.problems)")
    }

    @Test func changesThatCannotBeInferredAreRefusedNamingEachBeforeAnythingIsWritten() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("library.strata")
        try F.makeV1Document(url)
        let bytes = try Data(contentsOf: url)
        let bad = try ManagedObjectModel(entities: [
            EntityDescription("Author", attributes: [F.attribute("name", .string, optional: false)],
                              relationships: [F.relationship("books", to: "Book", inverse: "author")]),   // to-many → to-one
            EntityDescription("Book", attributes: [
                F.attribute("title", .integer64, optional: false),                   // string → integer
                F.attribute("isbn", .string, optional: false),                       // new, required, no default
            ], relationships: [F.relationship("author", to: "Author", inverse: "books")]),
        ])
        let error = try #require(throws: StrataError.self) { try DocumentStore.migrate(at: url, to: bad) }
        #expect(error.code == .modelIncompatible)
        for name in ["Author.books", "Book.title", "Book.isbn"] {
            #expect(error.message.contains(name), "\(error.message)")
            #expect(error.context.blocking.contains(name))
        }
        #expect(try Data(contentsOf: url) == bytes)

        // A new uniqueness constraint the records break is refused too, naming the records
        // (a constraint alone is no storage change: it comes with a new attribute here).
        let v1 = try F.v1()
        let unique = try ManagedObjectModel(entities: [
            EntityDescription("Author", attributes: v1.entitiesByName["Author"]!.declaredAttributes,
                              relationships: v1.entitiesByName["Author"]!.declaredRelationships),
            EntityDescription("Book", attributes: v1.entitiesByName["Book"]!.declaredAttributes + [F.attribute("isbn", .string)],
                              relationships: v1.entitiesByName["Book"]!.declaredRelationships, uniquenessConstraints: [["price"]]),
            EntityDescription("Note", attributes: v1.entitiesByName["Note"]!.declaredAttributes),
        ])
        let duplicate = try #require(throws: StrataError.self) { try DocumentStore.migrate(at: url, to: unique) }
        #expect(duplicate.message.contains("uniqueness constraint (price)"), "\(duplicate.message)")
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func aChangedModelOpensOnlyWhenMigrationIsAllowed() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("library.strata")
        try F.makeV1Document(url)
        let v2 = try Self.v2()
        let refused = try #require(throws: StrataError.self) { try DocumentStore(openingAt: url, model: v2) }
        #expect(refused.code == .modelIncompatible)
        #expect(refused.message.contains("migration was not allowed"), "\(refused.message)")

        let dryRun = try DocumentStore.migrate(at: url, to: v2, dryRun: true)
        #expect(!dryRun.didMigrate && dryRun.entities.first { $0.entity == "Book" }?.records == 3)
        #expect(try DocumentStore.storedModel(at: url).versionHash == F.v1().versionHash)

        let container = try PersistentContainer(name: "Library", model: v2, url: url,
                                                options: { var options = PersistentContainer.Options(); options.viewContextConcurrencyType = .confinement; return options }())
        let request = FetchRequest(entityName: "Book")
        #expect(try container.viewContext.count(for: request) == 3)
        #expect(container.viewContext.undoManager?.undoCount == 0)   // the history before the migration is not undoable
        #expect(try (container.store as? DocumentStore)?.undoBoundary == 4)
        try container.close()
        #expect(try DocumentStore.storedModel(at: url).versionHash == v2.versionHash)
    }

    @Test func migratingTwiceGivesWhatMigratingOnceGives() throws {
        let directory = try TemporaryDirectory()
        let v2 = try Self.v2()
        // v3: the v2 names renamed again, and the edition widened.
        let v3 = try ManagedObjectModel(entities: [
            EntityDescription("Writer", attributes: [F.attribute("name", .string)],
                              relationships: [F.relationship("works", to: "Book", toMany: true, inverse: "writer", renamedFrom: "books")],
                              renamingIdentifier: "Author"),
            EntityDescription("Book", attributes: [
                F.attribute("heading", .string, optional: false, renamedFrom: "title"),
                F.attribute("pages", .integer64), F.attribute("rating", .double),
                F.attribute("subtitle", .string, optional: false, default: .string("none")),
                F.attribute("edition", .integer32, optional: false, default: .integer(1)),
            ], relationships: [F.relationship("writer", to: "Writer", inverse: "works", renamedFrom: "author")]),
        ])
        // A renaming identifier stays the same through versions, as in Core Data: v2's
        // Book.name carries "title" too, so v3's "title" finds it in v1 and in v2 alike.
        let twice = directory.url.appendingPathComponent("twice.strata")
        let once = directory.url.appendingPathComponent("once.strata")
        try F.makeV1Document(twice)
        try F.makeV1Document(once)
        try DocumentStore.migrate(at: twice, to: v2)
        try DocumentStore.migrate(at: twice, to: v3)
        try DocumentStore.migrate(at: once, to: v3)
        let a = try F.read(twice, model: v3), b = try F.read(once, model: v3)
        #expect(firstDifference(a, b) == nil)
        #expect(a.count == 5)
        #expect(F.value(a, "Book", 2, "subtitle") == .value(.string("none")))
        #expect(F.value(a, "Writer", 1, "works") == .objects([RecordKey(entity: "Book", key: 1), RecordKey(entity: "Book", key: 2)], ordered: false))
        #expect(try DocumentStore.modelVersions(at: twice).count == 3)
        for url in [twice, once] {
            let verified = try DocumentVerifier.verify(url)
            #expect(verified.isValid, "\(url.lastPathComponent): \(verified.problems)")
        }
    }

    @Test func historyAfterAMigrationUndoesOnlyItsOwnChangesAndVerifies() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("library.strata")
        try F.makeV1Document(url)
        let v2 = try Self.v2()
        try DocumentStore.migrate(at: url, to: v2)
        do {
            let stack = try DocumentStack.open(url, model: v2)
            let (store, context) = (stack.store, stack.context)
            let shelf = try context.insertObject(forEntityName: "Shelf")
            try shelf.setValue("Top", forKey: "label")
            context.undoManager?.setActionName("Add shelf")
            try context.save()
            try store.close()
        }
        let stack = try DocumentStack.open(url, model: v2)
        let (store, context) = (stack.store, stack.context)
        try context.restoreUndoHistory()
        #expect(context.undoManager?.undoCount == 1)
        #expect(context.undoManager?.undoActionName == "Add shelf")
        try context.undoManager?.undo()
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Shelf")) == 0)
        try store.close()
        // Every segment still decodes, each with the model it was written with.
        let log = try DocumentLogFile(url)
        let records = try log.segmentRecords()
        #expect(records.count == 5)
        for record in records { _ = try log.decode(record) }
        #expect(try log.model(forSegment: 1).versionHash == F.v1().versionHash)
        #expect(try log.model(forSegment: 5).versionHash == v2.versionHash)
        log.close()
        let verified = try DocumentVerifier.verify(url)
        #expect(verified.isValid, "\(verified.problems)")
    }

    @Test func theCoreDataPlusSampleModelMigratesToSampleModel3() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("cars.strata")
        let old = try ModelFixtures.xcodeModel("CoreDataPlus__SampleModel")
        let new = try ModelFixtures.xcodeModel("CoreDataPlus__SampleModel3")
        #expect(new.entitiesByName["LuxuryCar"]?.renamingIdentifier == "ExpensiveSportCar")
        let stack = try DocumentStack.create(url, model: old)
        let (store, context) = (stack.store, stack.context)
        var people: [ManagedObject] = []
        for number in 0..<4 {
            let person = try context.insertObject(forEntityName: "Person")
            try person.setValue(.string("First\(number)"), forKey: "firstName")
            try person.setValue(.string("Last\(number)"), forKey: "lastName")
            try person.setValue(.uuid(UUID()), forKey: "id")
            try person.setValue(.date(Date(timeIntervalSinceReferenceDate: Double(number))), forKey: "updatedAt")
            people.append(person)
        }
        var counts: [String: Int] = [:]
        for number in 0..<12 {
            let entity = ["Car", "SportCar", "ExpensiveSportCar"][number % 3]
            let car = try context.insertObject(forEntityName: entity)
            try car.setValue(.string("PLATE-\(number)"), forKey: "numberPlate")
            try car.setValue(.string("Model \(number)"), forKey: "model")
            try car.setValue(.string("Maker \(number)"), forKey: "maker")
            if entity == "ExpensiveSportCar" { try car.setValue(.boolean(number % 2 == 0), forKey: "isLimitedEdition") }
            try car.setObject(people[number % 4], forKey: "owner")
            counts[entity, default: 0] += 1
            if number % 4 == 3 { try context.save() }
        }
        try context.save()
        try store.close()

        let report = try DocumentStore.migrate(at: url, to: new)
        #expect(report.changes.contains("ExpensiveSportCar: renamed LuxuryCar"), "\(report.changes)")
        let migrated = try DocumentStore(openingAt: url, model: new)
        let records = try readEverything(migrated)
        try migrated.close()
        #expect(records.keys.filter { $0.entity == "LuxuryCar" }.count == counts["ExpensiveSportCar"])
        #expect(records.keys.filter { $0.entity == "SportCar" }.count == counts["SportCar"])
        #expect(records.keys.filter { $0.entity == "Car" }.count == counts["Car"])
        #expect(records.keys.filter { $0.entity == "Person" }.count == 4)
        #expect(records.keys.filter { $0.entity == "Maker" }.isEmpty)
        let luxury = try #require(records.first { $0.key.entity == "LuxuryCar" })
        #expect(luxury.value["isLimitedEdition"] != nil)
        #expect(luxury.value["owner"] != nil && luxury.value["owner"] != .value(.null))
        #expect(luxury.value["maker"] == nil)   // the attribute left; createdBy took its place
        #expect(luxury.value["createdBy"] == .value(.null))
        let carsOwned = records.filter { $0.key.entity == "Person" }.reduce(0) { total, person in
            if case .objects(let cars, _)? = person.value["cars"] { return total + cars.count }
            return total
        }
        #expect(carsOwned == 12)
        let verified = try DocumentVerifier.verify(url)
        #expect(verified.isValid, "\(verified.problems)")
    }
}
