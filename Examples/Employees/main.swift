import Foundation
import StrataModels

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

// MARK: The rest of the guide's tour, on a container (an in-memory store; a document works the same)

var containerOptions = PersistentContainer.Options()
containerOptions.viewContextConcurrencyType = .confinement   // a program with no main queue to run
let container = try PersistentContainer(name: "Staff", model: model, url: nil, options: containerOptions)
let view = container.viewContext
let viewUndo = view.undoManager!

// Default data: in the document, but not something the user can undo.
view.processPendingChanges()
viewUndo.disableUndoRegistration()
let sales = try view.insert(Department.self)
sales.name = "Sales"
view.processPendingChanges()
try viewUndo.enableUndoRegistration()
try view.save()
print("— default data saved; can undo: \(viewUndo.canUndo)")

// A background import in a private context; the view context merges its save on its own.
try await container.performBackgroundTask { context in
    let department = try context.fetch(FetchRequest<Department>())[0]
    for (first, last, salary) in [("Grace", "Hopper", 130_000), ("Alan", "Kay", 90_000), ("Barbara", "Liskov", 140_000)] {
        let employee = try context.insert(Employee.self)
        employee.firstName = first
        employee.lastName = last
        employee.salary = Int64(salary)
        employee.department = department
    }
    try context.save()
}
_ = try view.count(for: FetchRequest<Employee>())   // a confinement context takes merges in at its next operation
print("— after the background import: \(sales.employees.count) in Sales")

// A collection operator through the relationship.
let total = try sales.value(forKeyPath: "employees.@sum.salary").value ?? .null
print("— Sales payroll (employees.@sum.salary): \(total)")

// A fetch template with a variable.
let earners = try model.fetchRequestFromTemplate(withName: "EmployeesEarningMoreThan", substitutionVariables: ["SALARY": .integer(100_000)])
earners.sortDescriptors = [FetchSortDescriptor("lastName")]
print("— EmployeesEarningMoreThan $SALARY = 100000: \(try view.fetch(earners, as: Employee.self).map(\.lastName))")

// The refresh pitfall: a pending rename, then refresh(mergeChanges: true).
let hopper = try view.fetch(FetchRequest<Employee>(predicate: #Predicate { $0.lastName == "Hopper" }))[0]
print("— \(hopper.currentFullName) loaded; a pending rename follows")
hopper.firstName = "Amazing Grace"
view.processPendingChanges()
view.refresh(hopper, mergeChanges: true)
print("— refresh pitfall: the cached transient says \(hopper.fullName ?? "-"); the accessor with the fix says \(hopper.currentFullName)")

// Rollback: the pending rename goes; the saved values come back.
view.rollback()
let changedAfterRollback = view.hasChanges
print("— after rollback: \(hopper.currentFullName), had changes: \(changedAfterRollback)")

// A child context as an edit sheet: nothing reaches the view context until it saves.
let sheet = ManagedObjectContext(parent: view)
let kay = try sheet.fetch(FetchRequest<Employee>(predicate: #Predicate { $0.lastName == "Kay" }))[0]
kay.salary = 95_000
print("— edit sheet open: the sheet says \(kay.salary ?? 0), the view context says \(sales.employees.first { $0.lastName == "Kay" }?.salary ?? 0)")
sheet.undoManager?.setActionName("Edit Salary")
try sheet.save()
print("— edit sheet saved: the view context says \(sales.employees.first { $0.lastName == "Kay" }?.salary ?? 0); \(viewUndo.undoMenuItemTitle)")
try viewUndo.undo()
print("— after undo: \(sales.employees.first { $0.lastName == "Kay" }?.salary ?? 0)")
try view.save()
try container.close()
