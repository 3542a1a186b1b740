import Foundation
import Testing
@testable import Strata

/// `PersistentContainer`: opening and creating, background saves reaching the view context,
/// undo history after reopening, models by name, other processes' saves.
@Suite struct PersistentContainers {
    private func confined() -> PersistentContainer.Options {
        var options = PersistentContainer.Options()
        options.viewContextConcurrencyType = .confinement
        options.configuration = manualCompaction()
        return options
    }

    @Test func aBackgroundTasksSaveAppearsInTheViewContext() async throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(name: "Staff", model: sharedExampleModel, url: directory.file())
        #expect(FileManager.default.fileExists(atPath: directory.file().path), "created")
        #expect(container.viewContext.concurrencyType == .mainQueue && container.viewContext.automaticallyMergesChangesFromParent)
        let view = container.viewContext
        let (ids, controller) = try await view.perform {
            let controller = FetchedResultsController(fetchRequest: FetchRequest(entityName: "Department", sortDescriptors: [FetchSortDescriptor("name")]),
                                                      managedObjectContext: view)
            try controller.performFetch()
            return (try view.fetchObjectIDs(FetchRequest(entityName: "Department")), UncheckedBox(controller))
        }
        #expect(ids.isEmpty)
        let id = try await container.performBackgroundTask { context in
            let research = try insertNamed("Department", "Research", in: context)
            try context.save()
            return research.objectID
        }
        // The merge was queued on the view context's queue before the save returned.
        let (seen, name, listed) = try await view.perform {
            (try view.fetchObjectIDs(FetchRequest(entityName: "Department")), try view.existingObject(with: id).string("name"),
             controller.value.fetchedObjects?.map(\.objectID) ?? [])
        }
        #expect(seen == [id] && name == "Research" && listed == [id])
        try container.close()
    }

    @Test func theUndoHistoryIsThereAfterReopeningByDefault() throws {
        let directory = try TemporaryDirectory()
        let first = try PersistentContainer(name: "Staff", model: sharedExampleModel, url: directory.file(), options: confined())
        try insertNamed("Department", "Research", in: first.viewContext)
        first.viewContext.undoManager?.setActionName("Add Research")
        try first.viewContext.save()
        try first.close()

        let second = try PersistentContainer(name: "Staff", model: sharedExampleModel, url: directory.file(), options: confined())
        let undo = try #require(second.viewContext.undoManager)
        #expect(undo.canUndo && undo.undoActionName == "Add Research")
        try undo.undo()
        try second.viewContext.save()
        #expect(try second.viewContext.count(for: FetchRequest(entityName: "Department")) == 0)
        try second.close()

        var options = confined()
        options.restoresUndoHistory = false
        let third = try PersistentContainer(name: "Staff", model: sharedExampleModel, url: directory.file(), options: options)
        #expect(third.viewContext.undoManager?.canUndo == false)
        try third.close()
    }

    @Test func theModelIsFoundByNameInADirectory() throws {
        let directory = try TemporaryDirectory()
        try sharedExampleModel.jsonRepresentation().write(to: directory.url.appendingPathComponent("Staff.json"))
        let container = try PersistentContainer(name: "Staff", modelDirectory: directory.url, url: nil, options: confined())
        #expect(container.model.entitiesByName["Employee"] != nil && container.store is InMemoryStore)
        let error = strataError { _ = try PersistentContainer(name: "Missing", modelDirectory: directory.url, url: nil) }
        #expect(error?.code == .modelFile)
    }

    @Test func otherProcessesSavesAreMergedIntoTheViewContextAndItsControllers() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try PersistentContainer(name: "Staff", model: sharedExampleModel, url: url, options: confined()).close()
        let container = try PersistentContainer(name: "Staff", model: sharedExampleModel, url: url, options: confined())
        let other = try DocumentStack.open(url, configuration: manualCompaction())
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest(entityName: "Department", sortDescriptors: [FetchSortDescriptor("name")]),
            managedObjectContext: container.viewContext)
        try controller.performFetch()
        let sales = try insertNamed("Department", "Sales", in: other.context)
        try other.context.save()
        let merged = try container.mergeChangesFromOtherProcesses()
        #expect(merged.inserted == [sales.objectID] && merged.updated.isEmpty)
        #expect(controller.fetchedObjects?.map(\.objectID) == [sales.objectID])
        other.context.delete(sales)
        try other.context.save()
        #expect(try container.mergeChangesFromOtherProcesses().deleted == [sales.objectID])
        #expect(controller.fetchedObjects?.isEmpty == true)
        try other.store.close()
        try container.close()
    }
}

/// Carries a value that stays on one queue across a `perform` boundary in a test.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
