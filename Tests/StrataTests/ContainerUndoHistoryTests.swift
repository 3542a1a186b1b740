import Foundation
import Testing
import Strata
import StrataTestSupport

/// docs/SEMANTICS.md §7, "A container's contexts and undo": the view context's restored undo
/// stack holds its own saves only; background contexts have no undo manager, as Core Data's
/// `newBackgroundContext()` and `performBackgroundTask` contexts have none.
@Suite struct ContainerUndoHistory {
    private func options() -> PersistentContainer.Options {
        var options = PersistentContainer.Options()
        options.viewContextConcurrencyType = .confinement
        return options
    }

    private func insertEmployee(_ first: String, _ last: String, in context: ManagedObjectContext) throws -> ManagedObject {
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue(.string(first), forKey: "firstName")
        try employee.setValue(.string(last), forKey: "lastName")
        return employee
    }

    private func lastNames(in context: ManagedObjectContext) throws -> [String] {
        try context.fetch(FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("lastName")])).map {
            if case .string(let name) = try $0.value(forKey: "lastName") { return name }
            return "?"
        }
    }

    @Test func theRestoredUndoStackHoldsOnlyTheViewContextsSaves() async throws {
        let directory = try TemporaryDirectory()
        do {
            let container = try PersistentContainer(name: "Staff", model: .employeesExample(), url: directory.file(),
                                                    options: options())
            let view = container.viewContext
            let ada = try insertEmployee("Ada", "Lovelace", in: view)
            view.undoManager?.setActionName("Hire Ada")
            try view.save()

            let background = container.newBackgroundContext()
            try background.performAndWait {
                _ = try insertEmployee("Alan", "Turing", in: background)
                try background.save()
            }
            try await container.performBackgroundTask { context in
                _ = try insertEmployee("Konrad", "Zuse", in: context)
                try context.save()
            }

            try ada.setValue("Augusta", forKey: "firstName")
            view.undoManager?.setActionName("Rename")
            try view.save()
            #expect(view.undoManager?.undoGroups.map(\.actionName) == ["Hire Ada", "Rename"])
            try container.close()
        }

        let reopened = try PersistentContainer(name: "Staff", model: .employeesExample(), url: directory.file(),
                                               options: options())
        let undo = try #require(reopened.viewContext.undoManager)
        #expect(undo.undoGroups.map(\.actionName) == ["Hire Ada", "Rename"])
        try undo.undo()
        try undo.undo()
        #expect(!undo.canUndo)
        // The second undo removed Ada, not an employee a background context imported.
        #expect(try lastNames(in: reopened.viewContext) == ["Turing", "Zuse"])
        try reopened.close()
    }

    @Test func backgroundContextsHaveNoUndoManager() async throws {
        let container = try PersistentContainer(name: "Staff", model: .employeesExample(), url: nil, options: options())
        #expect(container.viewContext.undoManager != nil)
        #expect(container.newBackgroundContext().undoManager == nil)
        let hasUndoManager = try await container.performBackgroundTask { context in context.undoManager != nil }
        #expect(!hasUndoManager)
    }

    @Test func aBackgroundContextGivenAnUndoManagerUndoesItsOwnChanges() throws {
        let container = try PersistentContainer(name: "Staff", model: .employeesExample(), url: nil, options: options())
        let background = container.newBackgroundContext()
        try background.performAndWait {
            background.undoManager = ContextUndoManager()
            _ = try insertEmployee("Alan", "Turing", in: background)
        }
        try background.performAndWait {
            try background.undoManager?.undo()
            #expect(try lastNames(in: background).isEmpty)
        }
    }
}
