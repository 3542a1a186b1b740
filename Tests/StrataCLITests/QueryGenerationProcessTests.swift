import Foundation
import Strata
import Testing

private func lastNames(_ context: ManagedObjectContext) throws -> [String] {
    let request = FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("lastName")])
    return try context.fetch(request).map { object in
        if case .string(let name) = try object.value(forKey: "lastName") { return name }
        return "?"
    }
}

/// Another process (the built `strata` and `strata-log` tools) saves and compacts the
/// document while a context of this one is pinned to a query generation.
@Suite("query generations with another process writing")
struct QueryGenerationProcessTests {
    @Test func aPinnedContextKeepsItsGenerationWhileAnotherProcessSavesAndCompacts() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Engineering")
        let lovelace = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "department=@Department/p1")
        _ = try sandbox.insert(document, "Employee", "firstName=Grace", "lastName=Hopper", "department=@Department/p1")

        let model = ManagedObjectModel.employeesExample()
        let store = try DocumentStore(openingAt: URL(fileURLWithPath: document), model: model)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let pinned = ManagedObjectContext(coordinator: coordinator)
        try pinned.setQueryGenerationFrom(.current)
        let token = try #require(pinned.queryGenerationToken)
        let engineering = try pinned.fetch(FetchRequest(entityName: "Department")).first
        let department = try #require(engineering)
        #expect(try department.objects(forKey: "employees").count == 2)

        // The other process renames, inserts and compacts, each a process of its own.
        #expect(try CLI.strata("update", document, lovelace, "lastName=Byron").status == 0)
        _ = try sandbox.insert(document, "Employee", "firstName=Alan", "lastName=Turing", "department=@Department/p1")
        let compacted = try CLI.strataLog("compact", document, "--retain", "none")
        #expect(compacted.status == 0, "\(compacted.stderr)")

        // Fetches, faults, relationships: the generation pinned before any of it.
        pinned.refreshAllObjects()
        #expect(try lastNames(pinned) == ["Hopper", "Lovelace"])
        #expect(try pinned.count(for: FetchRequest(entityName: "Employee")) == 2)
        #expect(try department.objects(forKey: "employees").count == 2)
        let id = try coordinator.managedObjectID(forURIRepresentation: try #require(URL(string: lovelace)))
        #expect(try pinned.object(with: id).value(forKey: "lastName") == "Lovelace")
        // An unpinned context reads what the other process did, once the store caught up.
        _ = try store.catchUp()
        let live = ManagedObjectContext(coordinator: coordinator)
        #expect(try lastNames(live) == ["Byron", "Hopper", "Turing"])

        // Moving forward shows it; the folded generation can no longer be pinned.
        try pinned.setQueryGenerationFrom(.current)
        #expect(try #require(pinned.queryGenerationToken) > token)
        pinned.refreshAllObjects()
        #expect(try lastNames(pinned) == ["Byron", "Hopper", "Turing"])
        #expect(try department.objects(forKey: "employees").count == 3)
        let error = try #require(throws: StrataError.self) { try pinned.setQueryGenerationFrom(token) }
        #expect(error.context["kind"] == "generationCompacted" && error.context["token"] == token.historyToken.map { String($0.sequence) })
        try pinned.setQueryGenerationFrom(nil)
        try store.close()
    }
}
