import Foundation
import Strata

/// W2: attribute edits with a flush every `editsPerGroup` edits, then undo all, then redo all.
struct EditUndoWorkload {
    var edits: Int
    var objects: Int
    var editsPerGroup: Int
    var undoEnabled: Bool

    struct Result {
        var editSeconds: Double
        var undoSeconds: Double
        var redoSeconds: Double
        var groups: Int
    }

    func run() throws -> Result {
        let model = ManagedObjectModel.employeesExample()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: undoEnabled ? ContextUndoManager() : nil)
        var employees: [ManagedObject] = []
        employees.reserveCapacity(objects)
        for index in 0..<objects {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("First\(index)"), forKey: "firstName")
            try employee.setValue(.string("Last\(index)"), forKey: "lastName")
            employees.append(employee)
        }
        try context.save()
        context.undoManager?.removeAllActions()

        let salarySlot = "salary"
        let start = Clock.now
        for edit in 0..<edits {
            try employees[edit % objects].setValue(.integer(Int64(edit)), forKey: salarySlot)
            if edit % editsPerGroup == editsPerGroup - 1 { context.processPendingChanges() }
        }
        context.processPendingChanges()
        let editSeconds = Clock.seconds(since: start)
        guard let undo = context.undoManager else {
            return Result(editSeconds: editSeconds, undoSeconds: 0, redoSeconds: 0, groups: 0)
        }
        let groups = undo.undoCount
        let undoStart = Clock.now
        while undo.canUndo { try undo.undo() }
        let undoSeconds = Clock.seconds(since: undoStart)
        let redoStart = Clock.now
        while undo.canRedo { try undo.redo() }
        let redoSeconds = Clock.seconds(since: redoStart)
        return Result(editSeconds: editSeconds, undoSeconds: undoSeconds, redoSeconds: redoSeconds, groups: groups)
    }
}

enum Clock {
    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func seconds(since start: UInt64) -> Double { Double(now - start) / 1e9 }
}
