import Foundation
import StrataModels
import StrataTestSupport
import Testing

/// Counts the changes Observation reports for what `read` reads. Tracking is one-shot:
/// the first change ends it, so a count of 1 says "told", and each test makes a new counter
/// for each thing it checks.
private final class ChangeCounter: @unchecked Sendable {
    private(set) var count = 0

    init(_ read: @escaping () -> Void) {
        withObservationTracking(read) { [self] in count += 1 }
    }
}

@Suite("Observation of declared properties")
struct DeclaredObservationTests {
    private func makeContext(_ model: ManagedObjectModel) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        return ManagedObjectContext(coordinator: coordinator)
    }

    @Test("A tracked read is told of an edit through the property")
    func edit() throws {
        let context = try makeContext(try staffModel())
        let department = try #require(try context.insertObject(forEntityName: "Department") as? Department)
        let counter = ChangeCounter { _ = department.name }
        department.name = "Research"
        #expect(counter.count == 1)
    }

    @Test("A tracked read is told of undo, and of a change by key-value coding")
    func undoAndKeyValueCoding() throws {
        let context = try makeContext(try staffModel())
        let department = try #require(try context.insertObject(forEntityName: "Department") as? Department)
        department.name = "Research"
        try context.save()
        try department.setValue("Labs", forKey: "name")
        context.processPendingChanges()
        var counter = ChangeCounter { _ = department.name }
        try context.undoManager?.undo()
        context.processPendingChanges()
        #expect(department.name == "Research")
        #expect(counter.count == 1)
        counter = ChangeCounter { _ = department.name }
        try department.setValue("Labs", forKey: "name")
        context.processPendingChanges()
        #expect(counter.count == 1)
    }

    @Test("A tracked read is told of another context's save merged into its own")
    func merge() throws {
        let model = try staffModel()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        let viewContext = ManagedObjectContext(coordinator: coordinator)
        viewContext.automaticallyMergesChangesFromParent = true
        let department = try #require(try viewContext.insertObject(forEntityName: "Department") as? Department)
        department.name = "Research"
        try viewContext.save()
        let counter = ChangeCounter { _ = department.name }

        let background = ManagedObjectContext(coordinator: coordinator)
        let other = try #require(try background.existingObject(with: department.objectID) as? Department)
        other.name = "Labs"
        try background.save()
        // A confinement context merges at its next operation.
        _ = try viewContext.fetch(FetchRequest(entityName: "Employee"))
        #expect(counter.count == 1)
        #expect(department.name == "Labs")
        #expect(counter.count >= 1)
    }

    @Test("A tracked read is told of another process's save to the same document")
    func otherProcess() throws {
        let model = try staffModel()
        let directory = try TemporaryDirectory()
        // Two connections to one file stand for two processes (as RemoteChangeTests do).
        let (id, one, other) = try DocumentStack.twoConnections(directory.file(), model: model) { stack in
            let department = try #require(try stack.context.insertObject(forEntityName: "Department") as? Department)
            department.name = "Research"
            try stack.context.save()
            return department.objectID.uriRepresentation()
        }
        defer {
            try? one.store.close()
            try? other.store.close()
        }
        one.context.automaticallyMergesChangesFromParent = true
        let department = try #require(try one.object(id) as? Department)
        #expect(department.name == "Research")
        let counter = ChangeCounter { _ = department.name }

        let theirs = try #require(try other.object(id) as? Department)
        theirs.name = "Labs"
        try other.context.save()
        #expect(try one.store.catchUp() != nil)
        _ = try one.context.fetch(FetchRequest(entityName: "Employee"))
        #expect(counter.count == 1)
        #expect(department.name == "Labs")
    }

    @Test("A FetchedResultsController's results tell tracked reads that they changed")
    func fetchedResults() throws {
        let context = try makeContext(try staffModel())
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest(entityName: "Department", sortDescriptors: [FetchSortDescriptor("name")]),
            managedObjectContext: context)
        try controller.performFetch()
        let counter = ChangeCounter { _ = controller.fetchedObjects }
        let department = try #require(try context.insertObject(forEntityName: "Department") as? Department)
        department.name = "Research"
        context.processPendingChanges()
        #expect(counter.count == 1)
        #expect(controller.fetchedObjects?.count == 1)
    }
}
