import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A document with two departments and three employees, and two coordinators over it, each
/// with its own store (its own SQLite connection), as two processes would have.
private struct PinnedFixture {
    let directory: TemporaryDirectory
    let url: URL
    let store: DocumentStore
    let coordinator: PersistentStoreCoordinator
    /// Another connection to the same file: the concurrent writer.
    let otherStore: DocumentStore
    let other: PersistentStoreCoordinator
    let ids: [String: ManagedObjectID]

    init(configuration: DocumentStore.Configuration = DocumentStore.Configuration()) throws {
        directory = try TemporaryDirectory()
        url = directory.file()
        store = try DocumentStore(creatingAt: url, model: sharedExampleModel, configuration: configuration)
        coordinator = PersistentStoreCoordinator(model: sharedExampleModel)
        try coordinator.addStore(store)
        let setup = ManagedObjectContext(coordinator: coordinator)
        var made: [String: ManagedObject] = [:]
        for name in ["Research", "Sales"] {
            let department = try setup.insertObject(forEntityName: "Department")
            try department.setValue(.string(name), forKey: "name")
            made[name] = department
        }
        for (last, salary, department) in [("Lovelace", 100, "Research"), ("Hopper", 200, "Research"), ("Turing", 300, "Sales")] {
            let employee = try setup.insertObject(forEntityName: "Employee")
            try employee.setValue("Ada", forKey: "firstName")
            try employee.setValue(.string(last), forKey: "lastName")
            try employee.setValue(.integer(Int64(salary)), forKey: "salary")
            try employee.setObject(made[department], forKey: "department")
            made[last] = employee
        }
        try setup.save()
        ids = made.mapValues(\.objectID)
        otherStore = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: configuration)
        other = PersistentStoreCoordinator(model: sharedExampleModel)
        try other.addStore(otherStore)
    }

    /// The other connection's edits: renames Lovelace, moves Hopper to Sales, deletes
    /// Turing, inserts Wirth into Research, and raises Hopper's salary.
    func editElsewhere() throws -> ManagedObjectID {
        let writer = ManagedObjectContext(coordinator: other)
        try writer.object(with: ids["Lovelace"]!).setValue("Byron", forKey: "lastName")
        let hopper = writer.object(with: ids["Hopper"]!)
        try hopper.setObject(writer.object(with: ids["Sales"]!), forKey: "department")
        try hopper.setValue(.integer(250), forKey: "salary")
        writer.delete(writer.object(with: ids["Turing"]!))
        let wirth = try writer.insertObject(forEntityName: "Employee")
        try wirth.setValue("Niklaus", forKey: "firstName")
        try wirth.setValue("Wirth", forKey: "lastName")
        try wirth.setValue(.integer(400), forKey: "salary")
        try wirth.setObject(writer.object(with: ids["Research"]!), forKey: "department")
        try writer.save()
        return wirth.objectID
    }

    func close() throws {
        try otherStore.close()
        try store.close()
    }
}

private func lastNames(_ context: ManagedObjectContext, _ predicate: String? = nil) throws -> [String] {
    let request = FetchRequest(entityName: "Employee", predicate: try predicate.map { try FetchPredicate(format: $0) },
                               sortDescriptors: [FetchSortDescriptor("lastName")])
    return try context.fetch(request).map { object in
        if case .string(let name) = try object.value(forKey: "lastName") { return name }
        return "?"
    }
}

private func memberNames(_ department: ManagedObject) throws -> [String] {
    try department.objects(forKey: "employees").map { object in
        if case .string(let name) = try object.value(forKey: "lastName") { return name }
        return "?"
    }.sorted()
}

@Suite("query generations") struct QueryGenerationTests {
    @Test func aPinnedContextReadsItsGenerationWhileAnotherConnectionSaves() throws {
        let fixture = try PinnedFixture()
        let pinned = ManagedObjectContext(coordinator: fixture.coordinator)
        #expect(pinned.queryGenerationToken == nil)
        try pinned.setQueryGenerationFrom(.current)
        let token = try #require(pinned.queryGenerationToken)
        #expect(token.historyToken == (try fixture.store.currentHistoryToken))
        #expect(!token.isCurrent && token < .current)

        let wirth = try fixture.editElsewhere()
        // This process's store takes the other connection's save in: its unpinned readers see it.
        _ = try fixture.store.catchUp()
        let live = ManagedObjectContext(coordinator: fixture.coordinator)
        #expect(try lastNames(live) == ["Byron", "Hopper", "Wirth"])

        // Fetches: objects, IDs, counts, predicates over relationships, dictionaries.
        #expect(try lastNames(pinned) == ["Hopper", "Lovelace", "Turing"])
        #expect(try lastNames(pinned, "department.name == 'Research'") == ["Hopper", "Lovelace"])
        #expect(try pinned.count(for: FetchRequest(entityName: "Employee")) == 3)
        #expect(try pinned.count(for: FetchRequest(entityName: "Person")) == 3)
        #expect(try !pinned.fetchObjectIDs(FetchRequest(entityName: "Employee")).contains(wirth))
        let salaries = FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("salary")])
        salaries.propertiesToFetch = ["lastName", "salary"]
        #expect(try pinned.fetchDictionaries(salaries).map { $0["salary"] } == [.integer(100), .integer(200), .integer(300)])
        // Computed and grouped fetches.
        let totals = try pinned.fetchDictionaries(departmentTotals())
        #expect(totals.map { $0["total"] } == [.integer(300), .integer(300)], "\(totals)")
        // Relationships and faults.
        let research = pinned.object(with: fixture.ids["Research"]!)
        #expect(try memberNames(research) == ["Hopper", "Lovelace"])
        let hopper = pinned.object(with: fixture.ids["Hopper"]!)
        #expect(try hopper.value(forKey: "salary") == .integer(200))
        #expect(try (hopper.value(forKey: "department")) == .object(fixture.ids["Research"]!))
        // A record saved later does not exist in the generation: its fault fails as a deleted record's.
        #expect(throws: StrataError.self) { try pinned.existingObject(with: wirth) }
        #expect(try pinned.object(with: fixture.ids["Turing"]!).value(forKey: "lastName") == "Turing")
        #expect(pinned.queryGenerationToken == token)

        // Told .current again, it reads the newest save.
        try pinned.setQueryGenerationFrom(.current)
        #expect(try #require(pinned.queryGenerationToken) > token)
        pinned.refreshAllObjects()
        #expect(try lastNames(pinned) == ["Byron", "Hopper", "Wirth"])
        #expect(try memberNames(research) == ["Byron", "Wirth"])
        #expect(try hopper.value(forKey: "salary") == .integer(250))
        try pinned.setQueryGenerationFrom(nil)
        try fixture.close()
    }

    @Test func pinnedReadsNeitherTakeNorPutRowsOfTheCoordinatorsRowCache() throws {
        let fixture = try PinnedFixture()
        let pinned = ManagedObjectContext(coordinator: fixture.coordinator)
        try pinned.setQueryGenerationFrom(.current)
        // Another context of the same coordinator saves, and reads (caching the new row).
        let writer = ManagedObjectContext(coordinator: fixture.coordinator)
        try writer.object(with: fixture.ids["Lovelace"]!).setValue("Byron", forKey: "lastName")
        try writer.save()
        let reader = ManagedObjectContext(coordinator: fixture.coordinator)
        #expect(try reader.object(with: fixture.ids["Lovelace"]!).value(forKey: "lastName") == "Byron")
        #expect(try pinned.object(with: fixture.ids["Lovelace"]!).value(forKey: "lastName") == "Lovelace")
        // The pinned context's old row went nowhere: a fresh unpinned context still reads the new one.
        let another = ManagedObjectContext(coordinator: fixture.coordinator)
        #expect(try another.object(with: fixture.ids["Lovelace"]!).value(forKey: "lastName") == "Byron")
        try pinned.setQueryGenerationFrom(nil)
        try fixture.close()
    }

    @Test func aPinnedContextsOwnSaveMovesItToTheNewestGeneration() throws {
        let fixture = try PinnedFixture()
        let pinned = ManagedObjectContext(coordinator: fixture.coordinator)
        try pinned.setQueryGenerationFrom(.current)
        let token = try #require(pinned.queryGenerationToken)
        _ = try fixture.editElsewhere()
        #expect(try lastNames(pinned) == ["Hopper", "Lovelace", "Turing"])
        // Its own insert saves without conflict.
        let marketing = try pinned.insertObject(forEntityName: "Department")
        try marketing.setValue("Marketing", forKey: "name")
        try pinned.save()
        let after = try #require(pinned.queryGenerationToken)
        #expect(after > token)
        #expect(after.historyToken == (try fixture.store.currentHistoryToken))
        #expect(try lastNames(pinned) == ["Byron", "Hopper", "Wirth"])
        #expect(try lastNames(pinned, "department.name == 'Research'") == ["Byron", "Wirth"])
        #expect(try pinned.count(for: FetchRequest(entityName: "Department")) == 3)

        // A save over a record changed after the generation is a conflict, as unpinned.
        try pinned.setQueryGenerationFrom(QueryGenerationToken(token.historyToken!))
        let other = ManagedObjectContext(coordinator: fixture.other)
        try other.object(with: fixture.ids["Sales"]!).setValue("Marketing", forKey: "name")
        try other.save()
        let sales = pinned.object(with: fixture.ids["Sales"]!)
        #expect(try sales.value(forKey: "name") == "Sales")
        try sales.setValue("Field Sales", forKey: "name")
        #expect { try pinned.save() } throws: { ($0 as? StrataError)?.code == .mergeConflict }
        try pinned.setQueryGenerationFrom(nil)
        try fixture.close()
    }

    @Test func resetAndMergingASaveMoveAPinnedContextForward() throws {
        let fixture = try PinnedFixture()
        let pinned = ManagedObjectContext(coordinator: fixture.coordinator)
        try pinned.setQueryGenerationFrom(.current)
        let token = try #require(pinned.queryGenerationToken)
        let writer = ManagedObjectContext(coordinator: fixture.coordinator)
        try writer.object(with: fixture.ids["Turing"]!).setValue("Church", forKey: "lastName")
        try writer.save()
        var saved = SaveChanges()   // what the writer's DidSave says
        saved.updated = [fixture.ids["Turing"]!]
        #expect(try lastNames(pinned) == ["Hopper", "Lovelace", "Turing"])
        pinned.mergeChanges(fromContextDidSave: saved)
        #expect(try #require(pinned.queryGenerationToken) > token)
        #expect(try lastNames(pinned) == ["Church", "Hopper", "Lovelace"])

        let merged = try #require(pinned.queryGenerationToken)
        try writer.object(with: fixture.ids["Hopper"]!).setValue("Liskov", forKey: "lastName")
        try writer.save()
        #expect(try lastNames(pinned) == ["Church", "Hopper", "Lovelace"])
        pinned.reset()
        #expect(try #require(pinned.queryGenerationToken) > merged)
        #expect(try lastNames(pinned) == ["Church", "Liskov", "Lovelace"])
        try pinned.setQueryGenerationFrom(nil)
        try fixture.close()
    }

    @Test func aTokenFromPersistentHistoryPinsTheDocumentAsThatSaveLeftIt() throws {
        let fixture = try PinnedFixture()
        let writer = ManagedObjectContext(coordinator: fixture.other)
        for name in ["First", "Second", "Third"] {
            try writer.object(with: fixture.ids["Lovelace"]!).setValue(.string(name), forKey: "lastName")
            try writer.save()
        }
        let transactions = try fixture.store.history()
        #expect(transactions.count == 4)
        let pinned = ManagedObjectContext(coordinator: fixture.coordinator)
        let lovelace = fixture.ids["Lovelace"]!
        for (transaction, expected) in zip(transactions, ["Lovelace", "First", "Second", "Third"]) {
            try pinned.setQueryGenerationFrom(QueryGenerationToken(transaction.token))
            #expect(pinned.queryGenerationToken?.historyToken == transaction.token)
            pinned.refreshAllObjects()
            #expect(try pinned.object(with: lovelace).value(forKey: "lastName") == .string(expected))
            #expect(try lastNames(pinned, "lastName == '\(expected)'") == [expected])
        }
        // Before the first save: an empty document.
        try pinned.setQueryGenerationFrom(QueryGenerationToken(PersistentHistoryToken(sequence: 0)))
        #expect(try pinned.count(for: FetchRequest(entityName: "Employee")) == 0)
        // A save the document does not have yet is refused, naming the token.
        let future = QueryGenerationToken(PersistentHistoryToken(sequence: 99))
        let error = try #require(throws: StrataError.self) { try pinned.setQueryGenerationFrom(future) }
        #expect(error.code == .invalidArgument && error.message.contains("99") && error.context.token == "99")
        #expect(pinned.queryGenerationToken?.historyToken?.sequence == 0)   // the context stays as it was
        // Unpinned, it reads what the store has taken in (as before pinning).
        try pinned.setQueryGenerationFrom(nil)
        #expect(pinned.queryGenerationToken == nil)
        _ = try fixture.store.catchUp()
        pinned.refreshAllObjects()
        #expect(try pinned.object(with: lovelace).value(forKey: "lastName") == "Third")
        try fixture.close()
    }

    @Test func compactionWhilePinnedLeavesThePinnedReadsAndThenRefusesTheFoldedToken() throws {
        var configuration = DocumentStore.Configuration()
        configuration.turnOffAutomaticCompaction()
        configuration.compactsOnClose = false
        configuration.retention = .none
        let fixture = try PinnedFixture(configuration: configuration)
        let pinned = ManagedObjectContext(coordinator: fixture.coordinator)
        try pinned.setQueryGenerationFrom(.current)
        let token = try #require(pinned.queryGenerationToken)
        let research = pinned.object(with: fixture.ids["Research"]!)
        #expect(try memberNames(research) == ["Hopper", "Lovelace"])

        _ = try fixture.editElsewhere()
        try fixture.otherStore.compact()   // another connection folds every segment into the snapshot
        #expect(try fixture.otherStore.oldestHistoryToken == nil)
        // Both the snapshot rows and the overlay the generation was read over are gone from
        // the file; the pinned reads still see them.
        pinned.refreshAllObjects()
        #expect(try lastNames(pinned) == ["Hopper", "Lovelace", "Turing"])
        #expect(try memberNames(research) == ["Hopper", "Lovelace"])
        #expect(try pinned.fetchDictionaries(departmentTotals()).map { $0["total"] } == [.integer(300), .integer(300)])
        // And this process's store, once it has caught up with the compaction, too.
        _ = try fixture.store.catchUp()
        let live = ManagedObjectContext(coordinator: fixture.coordinator)
        #expect(try lastNames(live) == ["Byron", "Hopper", "Wirth"])
        #expect(try lastNames(pinned) == ["Hopper", "Lovelace", "Turing"])

        // The generation is no longer in the document: pinning to it again is refused.
        try pinned.setQueryGenerationFrom(nil)
        let error = try #require(throws: StrataError.self) { try pinned.setQueryGenerationFrom(token) }
        #expect(error.code == .invalidArgument)
        #expect(error.context.token == String(token.historyToken!.sequence))
        #expect(error.context.kind == .generationCompacted)
        #expect(error.message.contains("compaction"), "\(error.message)")
        try pinned.setQueryGenerationFrom(.current)
        #expect(try lastNames(pinned) == ["Byron", "Hopper", "Wirth"])
        try pinned.setQueryGenerationFrom(nil)
        try fixture.close()
    }

    @Test func aPinnedContextsReadsStayPutWhileAnotherThreadSavesAndCompacts() throws {
        var configuration = DocumentStore.Configuration()
        configuration.compactionSegmentThreshold = 3   // the writer's saves compact as they go
        let fixture = try PinnedFixture(configuration: configuration)
        let pinned = ManagedObjectContext(coordinator: fixture.coordinator)
        try pinned.setQueryGenerationFrom(.current)
        let totals = FetchRequest(entityName: "Employee")
        totals.propertiesToFetch = [expression("total", .function(.sum, [.key("salary")]))]
        func check() throws {
            #expect(try pinned.count(for: FetchRequest(entityName: "Employee")) == 3)
            #expect(try pinned.fetchDictionaries(totals) == [["total": .integer(600)]])
            pinned.refreshAllObjects()
            #expect(try pinned.object(with: fixture.ids["Lovelace"]!).value(forKey: "salary") == .integer(100))
            #expect(try memberNames(pinned.object(with: fixture.ids["Research"]!)) == ["Hopper", "Lovelace"])
        }

        let other = fixture.other
        let (lovelace, research) = (fixture.ids["Lovelace"]!, fixture.ids["Research"]!)
        let done = LockedBox(false)
        let errors = LockedBox<[String]>([])
        let finished = DispatchSemaphore(value: 0)
        let writer = Thread {
            defer { finished.signal() }
            do {
                let context = ManagedObjectContext(coordinator: other)
                for round in 1...12 {
                    let hire = try context.insertObject(forEntityName: "Employee")
                    try hire.setValue("New", forKey: "firstName")
                    try hire.setValue(.string("Hire\(round)"), forKey: "lastName")
                    try hire.setValue(.integer(10), forKey: "salary")
                    try hire.setObject(context.object(with: research), forKey: "department")
                    try context.object(with: lovelace).setValue(.integer(Int64(100 + round)), forKey: "salary")
                    try context.save()
                }
            } catch {
                errors.mutate { $0.append("\(error)") }
            }
            done.value = true
        }
        writer.start()
        while !done.value { try check() }   // reads while the writer saves
        finished.wait()
        #expect(errors.value.isEmpty, "\(errors.value)")
        try check()   // after every save and compaction of the writer
        #expect(try fixture.otherStore.info().compactedThrough > 1)

        try pinned.setQueryGenerationFrom(.current)
        pinned.refreshAllObjects()
        #expect(try pinned.count(for: FetchRequest(entityName: "Employee")) == 15)
        #expect(try pinned.fetchDictionaries(totals) == [["total": .integer(600 + 12 + 120)]])
        try pinned.setQueryGenerationFrom(nil)
        try fixture.close()
    }

    @Test func contextsThatCannotBePinnedSaySo() throws {
        let memory = PersistentStoreCoordinator(model: sharedExampleModel)
        try memory.addStore(InMemoryStore(model: sharedExampleModel))
        let context = ManagedObjectContext(coordinator: memory)
        let error = try #require(throws: StrataError.self) { try context.setQueryGenerationFrom(.current) }
        #expect(error.code == .invalidArgument && error.context.kind == .noDocumentStore)
        #expect(context.queryGenerationToken == nil)

        let fixture = try PinnedFixture()
        let parent = ManagedObjectContext(coordinator: fixture.coordinator)
        let child = ManagedObjectContext(parent: parent)
        let childError = try #require(throws: StrataError.self) { try child.setQueryGenerationFrom(.current) }
        #expect(childError.context.kind == .childContext)
        // A child of a pinned context reads through the parent's generation.
        try parent.setQueryGenerationFrom(.current)
        _ = try fixture.editElsewhere()
        #expect(try lastNames(child) == ["Hopper", "Lovelace", "Turing"])
        #expect(try child.object(with: fixture.ids["Hopper"]!).value(forKey: "salary") == .integer(200))
        try parent.setQueryGenerationFrom(nil)
        try fixture.close()
    }

    @Test func tokensCompareInSaveOrderWithCurrentLast() {
        let first = QueryGenerationToken(PersistentHistoryToken(sequence: 1))
        let second = QueryGenerationToken(PersistentHistoryToken(sequence: 2))
        #expect(first < second && second < .current && !(QueryGenerationToken.current < .current))
        #expect(first == QueryGenerationToken(PersistentHistoryToken(sequence: 1)))
        #expect(QueryGenerationToken.current.isCurrent && QueryGenerationToken.current.historyToken == nil)
        #expect(second.description == "2" && QueryGenerationToken.current.description == "current")
    }
}
