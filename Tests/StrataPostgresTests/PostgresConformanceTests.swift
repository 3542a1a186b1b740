import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

// The store conformance subset against a real server: the fetch, save, undo, merge and
// conflict behaviour the document store's tests check, through a PostgresDocumentStore.

@Suite("PostgreSQL document: fetch, save, undo (conformance)")
struct PostgresConformanceTests {
    @Test func savedRecordsAreFetchedSortedFilteredAndCountedByAnotherStore() throws {
        let name = uniqueDocumentName("fetch")
        let writer = try PostgresStack(name)
        defer { writer.close() }
        let research = try department("Research", writer.context)
        for (last, salary) in [("Lovelace", 300), ("Hopper", 200), ("Babbage", 100)] {
            try hire(last, salary: Int64(salary), in: research, writer.context)
        }
        try writer.context.save()

        let reader = try PostgresStack(name, create: false)
        defer { reader.close() }
        #expect(reader.store.identifier == writer.store.identifier)
        #expect(try lastNames(reader.context) == ["Babbage", "Hopper", "Lovelace"])
        #expect(try lastNames(reader.context, "salary >= 200") == ["Hopper", "Lovelace"])
        #expect(try reader.context.count(for: FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "department.name == 'Research'"))) == 3)
        let fetched = try reader.context.fetch(FetchRequest(entityName: "Department"))
        #expect(fetched.count == 1)
        #expect(try fetched[0].objects(forKey: "employees").count == 3)
        // Object URIs mean the same in both stores.
        let uri = research.objectID.uriRepresentation()
        #expect(try reader.coordinator.managedObjectID(forURIRepresentation: uri) == fetched[0].objectID)
    }

    @Test func updatesAndDeletesReachTheServerAndANewStoreSeesThem() throws {
        let name = uniqueDocumentName("update")
        let writer = try PostgresStack(name)
        defer { writer.close() }
        let lovelace = try hire("Lovelace", writer.context)
        let hopper = try hire("Hopper", writer.context)
        try writer.context.save()
        try lovelace.setValue(.integer(999), forKey: "salary")
        writer.context.delete(hopper)
        try writer.context.save()

        let reader = try PostgresStack(name, create: false)
        defer { reader.close() }
        let employees = try reader.context.fetch(FetchRequest(entityName: "Employee"))
        #expect(employees.count == 1)
        #expect(try employees.first?.int("salary") == 999)
    }

    @Test func undoAndRedoAcrossSavesAreSavedToTheServer() throws {
        let name = uniqueDocumentName("undo")
        let writer = try PostgresStack(name)
        defer { writer.close() }
        let undo = try #require(writer.context.undoManager)
        let lovelace = try hire("Lovelace", salary: 100, writer.context)
        try writer.context.save()
        try lovelace.setValue(.integer(500), forKey: "salary")
        try writer.context.save()
        try undo.undo()
        try writer.context.save()
        let reader = try PostgresStack(name, create: false)
        defer { reader.close() }
        #expect(try reader.context.fetch(FetchRequest(entityName: "Employee")).first?.int("salary") == 100)
        try undo.redo()
        try writer.context.save()
        let later = try PostgresStack(name, create: false)
        defer { later.close() }
        #expect(try later.context.fetch(FetchRequest(entityName: "Employee")).first?.int("salary") == 500)
    }

    @Test func primaryKeysReservedByOneStoreAreNeverHandedOutByAnother() throws {
        let name = uniqueDocumentName("keys")
        let one = try PostgresStack(name)
        defer { one.close() }
        let two = try PostgresStack(name, create: false)
        defer { two.close() }
        let entity = try sharedExampleModel.entity(named: "Employee")
        let reserved = try one.store.allocatePrimaryKeys(for: entity, count: 10)
        let saved = try hire("Hopper", two.context)
        try two.context.save()
        #expect(!reserved.contains(saved.objectID.primaryKey))
        #expect(saved.objectID.primaryKey > reserved.upperBound)
        let again = try one.store.allocatePrimaryKeys(for: entity, count: 1)
        #expect(again.lowerBound > saved.objectID.primaryKey)
    }

    @Test func aDocumentCreatedWithAnotherModelIsRefused() throws {
        let name = uniqueDocumentName("model")
        let writer = try PostgresStack(name)
        writer.close()
        let extra = try ManagedObjectModel(entities: [EntityDescription("Note", attributes: [AttributeDescription("text", .string)])])
        let error = try #require(throws: StrataError.self) { try PostgresStack(name, create: false, model: extra) }
        #expect(error.code == .modelIncompatible)
        #expect(error.message.contains(name))
    }
}
