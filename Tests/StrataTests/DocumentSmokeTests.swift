import Foundation
import Testing
@testable import Strata

@Suite struct DocumentSmoke {
    @Test func aDocumentRoundTripsThroughSaveReopenCompactionAndUndo() throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.url
        let url = directory.appendingPathComponent("doc.strata")
        let model = sharedExampleModel
        var employeeURI: URL
        do {
            let store = try DocumentStore(creatingAt: url, model: model)
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addStore(store)
            let context = ManagedObjectContext(coordinator: coordinator)
            let department = try context.insertObject(forEntityName: "Department")
            try department.setValue("Research", forKey: "name")
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue("Ada", forKey: "firstName")
            try employee.setValue("Lovelace", forKey: "lastName")
            try employee.setValue(.integer(100), forKey: "salary")
            try employee.setObject(department, forKey: "department")
            context.undoManager?.setActionName("Hire")
            try context.save()
            try employee.setValue(.integer(200), forKey: "salary")
            context.undoManager?.setActionName("Raise")
            try context.save()
            employeeURI = employee.objectID.uriRepresentation()
            try store.close()
        }
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        do {
            let store = try DocumentStore(openingAt: url, model: model)
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addStore(store)
            let context = ManagedObjectContext(coordinator: coordinator)
            let id = try coordinator.managedObjectID(forURIRepresentation: employeeURI)
            let employee = try context.existingObject(with: id)
            #expect(try employee.int("salary") == 200)
            #expect(try employee.related("department")?.string("name") == "Research")
            try context.restoreUndoHistory()
            #expect(context.undoManager?.undoActionName == "Raise")
            try context.undoManager?.undo()
            #expect(try employee.int("salary") == 100)
            try context.save()
            try store.close()
        }
        let store = try DocumentStore(openingAt: url, model: model)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        let employee = try context.existingObject(with: try coordinator.managedObjectID(forURIRepresentation: employeeURI))
        #expect(try employee.int("salary") == 100)
        let department = try #require(try employee.related("department"))
        #expect(try department.relatedSet("employees") == [employee])
        let info = try store.info()
        #expect(info.objectCounts["Employee"] == 1)
        #expect(info.segmentCount == 3)
        try store.close()
    }
}

@Suite struct DocumentFetchSmoke {
    @Test func fetchesSeeTheOverlayAndTheSnapshotAlike() throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.url
        let model = sharedExampleModel
        var configuration = DocumentStore.Configuration()
        configuration.turnOffAutomaticCompaction()
        let store = try DocumentStore(creatingAt: directory.appendingPathComponent("f.strata"), model: model, configuration: configuration)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        let sales = try context.insertObject(forEntityName: "Department")
        try sales.setValue("Sales", forKey: "name")
        for index in 0..<20 {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("E\(index)"), forKey: "firstName")
            try employee.setValue(.string(index % 2 == 0 ? "Quinn" : "Smith"), forKey: "lastName")
            try employee.setValue(.integer(Int64(index * 10_000)), forKey: "salary")
            if index % 3 == 0 { try employee.setObject(sales, forKey: "department") }
        }
        try context.save()
        let request = FetchRequest(
            entityName: "Employee",
            predicate: try FetchPredicate(format: "lastName BEGINSWITH[c] 'q' AND salary > 50000"),
            sortDescriptors: [FetchSortDescriptor("salary", ascending: false)])
        request.fetchLimit = 5
        let byDepartment = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "department.name == 'Sales'"))
        let overlayAnswer = try context.fetchObjectIDs(request)
        let overlayDepartment = Set(try context.fetchObjectIDs(byDepartment))
        #expect(overlayAnswer.count == 5)
        #expect(try context.count(for: byDepartment) == 7)
        try store.compact()
        let fresh = ManagedObjectContext(coordinator: coordinator)
        #expect(try fresh.fetchObjectIDs(request) == overlayAnswer)
        #expect(Set(try fresh.fetchObjectIDs(byDepartment)) == overlayDepartment)
        // Rename the department in a save (overlay) and the to-one key path must follow.
        try sales.setValue("Marketing", forKey: "name")
        try context.save()
        let third = ManagedObjectContext(coordinator: coordinator)
        #expect(try third.fetchObjectIDs(byDepartment).isEmpty)
        #expect(try third.count(for: byDepartment) == 0)
        try store.close()
    }
}
