import Foundation
import Testing
import Strata

/// docs/SEMANTICS.md §6, "What a fetched-results controller reports": a move reports the
/// moved object only. Objects whose index path shifted because another object left or
/// entered their section are not updates: an update means the object itself changed.
@Suite struct FetchedResultsMoveReports {
    /// Every object change the delegate hears, as `type name old → new`.
    final class Recorder: FetchedResultsControllerDelegate {
        var changes: [String] = []

        func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange object: ManagedObject,
                        at indexPath: ResultIndexPath?, for type: FetchedResultsChangeType, newIndexPath: ResultIndexPath?) {
            let name: String
            if case .string(let text)? = try? object.value(forKey: "lastName") { name = text } else { name = "?" }
            changes.append("\(type) \(name) \(indexPath.map(\.description) ?? "-") → \(newIndexPath.map(\.description) ?? "-")")
        }
    }

    /// Employees sectioned by department name: Engineering holds Lovelace, Turing and Zuse;
    /// Research holds King.
    final class Staff {
        let container: PersistentContainer
        let controller: FetchedResultsController<ManagedObject>
        let recorder = Recorder()
        var departments: [String: ManagedObject] = [:]
        var employees: [String: ManagedObject] = [:]
        var context: ManagedObjectContext { container.viewContext }

        init() throws {
            var options = PersistentContainer.Options()
            options.viewContextConcurrencyType = .confinement
            container = try PersistentContainer(name: "Staff", model: .employeesExample(), url: nil, options: options)
            let context = container.viewContext
            for name in ["Engineering", "Research"] {
                let department = try context.insertObject(forEntityName: "Department")
                try department.setValue(.string(name), forKey: "name")
                departments[name] = department
            }
            for (first, last, department) in [("Ada", "Lovelace", "Engineering"), ("Alan", "Turing", "Engineering"),
                                              ("Konrad", "Zuse", "Engineering"), ("Mary", "King", "Research")] {
                let employee = try context.insertObject(forEntityName: "Employee")
                try employee.setValue(.string(first), forKey: "firstName")
                try employee.setValue(.string(last), forKey: "lastName")
                try employee.setObject(departments[department], forKey: "department")
                employees[last] = employee
            }
            try context.save()
            context.undoManager?.removeAllActions()
            let request = FetchRequest(entityName: "Employee", sortDescriptors: [
                FetchSortDescriptor("department.name"), FetchSortDescriptor("lastName"),
            ])
            controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                  sectionNameKeyPath: "department.name")
            controller.delegate = recorder
            try controller.performFetch()
        }
    }

    @Test func aMoveToAnotherSectionReportsTheMovedObjectOnly() throws {
        let staff = try Staff()
        try staff.employees["Lovelace"]!.setObject(staff.departments["Research"], forKey: "department")
        staff.context.processPendingChanges()
        #expect(staff.recorder.changes == ["move Lovelace [0, 0] → [1, 1]"])
    }

    @Test func undoingTheMoveReportsTheMoveBackOnly() throws {
        let staff = try Staff()
        try staff.employees["Lovelace"]!.setObject(staff.departments["Research"], forKey: "department")
        staff.context.processPendingChanges()
        staff.recorder.changes.removeAll()
        try staff.context.undoManager?.undo()
        #expect(staff.recorder.changes == ["move Lovelace [1, 1] → [0, 0]"])
    }

    @Test func theStreamsDiffOfAMoveHoldsNoUpdates() async throws {
        let staff = try Staff()
        var updates = staff.controller.changes().makeAsyncIterator()
        _ = await updates.next()
        try staff.employees["Lovelace"]!.setObject(staff.departments["Research"], forKey: "department")
        staff.context.processPendingChanges()
        let diff = try #require(await updates.next()).diff
        #expect(diff.moves.map(\.description) == ["\(staff.employees["Lovelace"]!.objectID) [0, 0] → [1, 1]"])
        #expect(diff.updates.isEmpty)
    }

    @Test func anObjectThatChangedInPlaceIsStillAnUpdate() throws {
        let staff = try Staff()
        try staff.employees["Turing"]!.setValue(.integer(90), forKey: "salary")
        staff.context.processPendingChanges()
        #expect(staff.recorder.changes == ["update Turing [0, 1] → [0, 1]"])
    }

    @Test func aMovedObjectThatAlsoChangedIsReportedOnceAsAMove() throws {
        let staff = try Staff()
        try staff.employees["Lovelace"]!.setObject(staff.departments["Research"], forKey: "department")
        try staff.employees["Lovelace"]!.setValue(.integer(90), forKey: "salary")
        try staff.employees["Zuse"]!.setValue(.integer(80), forKey: "salary")
        staff.context.processPendingChanges()
        #expect(staff.recorder.changes == ["move Lovelace [0, 0] → [1, 1]", "update Zuse [0, 2] → [0, 1]"])
    }
}
