import Foundation
import Testing
@testable import Strata

@Suite struct DocumentSmoke {
    @Test func aDocumentRoundTripsThroughSaveReopenCompactionAndUndo() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
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
