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

        // The other process renames, inserts and compacts, each a process of its own. Each
        // waits its busy timeout at close for a checkpoint the pinned snapshot holds back
        // (docs/SEMANTICS.md "Query generations"): a short one keeps the test quick.
        let quick = ["STRATA_BUSY_TIMEOUT": "0.2"]
        for (tool, arguments) in [("strata", ["update", document, lovelace, "lastName=Byron"]),
                                  ("strata", ["insert", document, "Employee", "firstName=Alan", "lastName=Turing", "department=@Department/p1"]),
                                  ("strata-log", ["compact", document, "--retain", "none"])] {
            let result = try CLI.run(tool, arguments, environment: quick)
            #expect(result.status == 0, "\(tool) \(arguments[0]): \(result.stderr)")
        }

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
        #expect(error.context.kind == .generationCompacted && error.context.token == token.historyToken.map { String($0.sequence) })
        try pinned.setQueryGenerationFrom(nil)
        try store.close()
    }
}
