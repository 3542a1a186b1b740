import Foundation
import Strata

// Builds the guide's Employee/Department model, edits, undoes, redoes and saves.
let model = ManagedObjectModel.employeesExample()
try model.register(Employee.self, forEntityName: "Employee")
try model.register(Department.self, forEntityName: "Department")
try model.register(Project.self, forEntityName: "Project")

let coordinator = PersistentStoreCoordinator(model: model)
try coordinator.addStore(InMemoryStore(model: model))
let context = ManagedObjectContext(coordinator: coordinator)
let undo = context.undoManager!

let research = try context.insert(Department.self)
research.name = "Research"

@MainActor func show(_ title: String) {
    // Unchanged objects are held weakly by the context, so reach them through the graph.
    let employees = research.employees.sorted { $0.lastName < $1.lastName }
    print("— \(title)")
    for employee in employees {
        let salary = employee.salary.map(String.init) ?? "null"
        print("  \(employee.firstName) \(employee.lastName)  salary \(salary)  dept \(employee.department?.name ?? "-")")
    }
}

undo.setActionName("Add Department")

undo.beginUndoGrouping()
for (first, last, salary) in [("Ada", "Lovelace", 120_000), ("Alan", "Turing", 110_000), ("Grace", "Hopper", 130_000)] {
    let employee = try context.insert(Employee.self)
    employee.firstName = first
    employee.lastName = last
    employee.salary = Int64(salary)
    employee.department = research
}
try undo.endUndoGrouping()
undo.setActionName("Hire Three")
try context.save()
show("after hiring and saving (\(research.employees.count) in \(research.name))")

let ada = research.employees.first { $0.lastName == "Lovelace" }!
ada.salary = 150_000
undo.setActionName("Raise")
show("after a raise")

try undo.undo()
show("after \(undo.redoMenuItemTitle.replacingOccurrences(of: "Redo", with: "undo of"))")
try undo.redo()
show("after redo")

undo.disableUndoRegistration()
ada.lastName = "King"
context.processPendingChanges()
try undo.enableUndoRegistration()
try context.save()
show("after an unregistered rename, saved")

try undo.undo()
show("after undoing '\(undo.redoActionName)' (the rename is not undone)")
print("undo stack: \(undo.undoGroups.map(\.actionName)), can redo: \(undo.canRedo)")
try context.save()
print("saved; context has changes: \(context.hasChanges)")
