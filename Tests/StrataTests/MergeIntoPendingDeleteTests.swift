import Foundation
import Testing
@testable import Strata

/// A merged save that relates new records to a record this context deletes (not saved
/// yet): the delete's rules reach them, so this context's save leaves nothing pointing at
/// a deleted record. Found by the fetched-results random test (seed 3, merged context).
@Suite struct MergeIntoPendingDelete {
    @Test(arguments: [false, true])
    func anEmployeeAddedElsewhereToADepartmentThisContextDeletesIsCascadedWithIt(faultInTheOtherContext: Bool) throws {
        let coordinator = PersistentStoreCoordinator(model: sharedExampleModel)
        try coordinator.addStore(InMemoryStore(model: sharedExampleModel))
        let editor = ManagedObjectContext(coordinator: coordinator)
        let research = try editor.insertObject(forEntityName: "Department")
        try research.setValue("Research", forKey: "name")
        try editor.save()

        let other = ManagedObjectContext(coordinator: coordinator)
        let department = faultInTheOtherContext ? other.object(with: research.objectID) : try other.existingObject(with: research.objectID)

        editor.delete(research)                 // pending: Department.employees cascades
        editor.processPendingChanges()

        let newcomer = try other.insertObject(forEntityName: "Employee")
        try newcomer.setValue("Grace", forKey: "firstName")
        try newcomer.setValue("Hopper", forKey: "lastName")
        try newcomer.setObject(department, forKey: "department")
        let saved = try captureDidSave(of: other) { try other.save() }
        #expect(saved.updated.contains(research.objectID), "the other save changed the department's employees")

        editor.mergeChanges(fromContextDidSave: saved)
        try editor.save()

        let reader = ManagedObjectContext(coordinator: coordinator)
        #expect(try reader.count(for: FetchRequest(entityName: "Department")) == 0)
        #expect(try reader.count(for: FetchRequest(entityName: "Employee")) == 0, "cascade reaches the merged employee")
        #expect(reader.graphInvariantViolations().isEmpty)
        #expect(!editor.undoManager!.canRedo)
    }
}

/// The SaveChanges of the DidSave `context` posts while `body` runs.
private func captureDidSave(of context: ManagedObjectContext, _ body: () throws -> Void) throws -> SaveChanges {
    nonisolated(unsafe) var captured = SaveChanges()
    let token = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveNotification, object: context, queue: nil) { note in
        for (key, path) in [(ManagedObjectContext.insertedObjectsKey, \SaveChanges.inserted),
                            (ManagedObjectContext.updatedObjectsKey, \.updated), (ManagedObjectContext.deletedObjectsKey, \.deleted)] {
            if let ids = note.userInfo?[key] as? Set<ManagedObjectID> { captured[keyPath: path] = ids }
        }
    }
    defer { NotificationCenter.default.removeObserver(token) }
    try body()
    return captured
}
