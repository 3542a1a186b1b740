import Foundation
import Strata

// A sectioned list of employees by department kept in sync with one document while
//   1. a background context imports a batch,
//   2. another process (this program again, with `--edit DOCUMENT`) edits the document,
//   3. an edit sheet (a child context of the view context) changes it and saves into it.
// Each change of the list is printed as the diff a list view would apply. The document is
// opened with `watchesForRemoteChanges`, so the other process's save reaches the list on its
// own: the program only waits for the diff. The three happen one after the other, so the
// output is the same on every run (a test compares it). Usage:
//   staff-list-example [DOCUMENT] [--force]
// An existing DOCUMENT is kept (the program refuses to start) unless --force replaces it.
// It exits 1 if the reopened document is not what the list showed.

let model = ManagedObjectModel.employeesExample()
let arguments = Array(CommandLine.arguments.dropFirst())

/// Writes a line unbuffered: the other process writes to the same output, in between.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("staff-list-example: error: \(message)\n".utf8))
    exit(1)
}

func options() -> PersistentContainer.Options {
    var options = PersistentContainer.Options()
    options.viewContextConcurrencyType = .confinement   // a headless program has no main queue to run
    return options
}

func hire(_ first: String, _ last: String, salary: Int64, in department: ManagedObject, _ context: ManagedObjectContext) throws {
    let employee = try context.insertObject(forEntityName: "Employee")
    try employee.setValue(.string(first), forKey: "firstName")
    try employee.setValue(.string(last), forKey: "lastName")
    try employee.setValue(.integer(salary), forKey: "salary")
    try employee.setObject(department, forKey: "department")
}

func department(named name: String, in context: ManagedObjectContext) throws -> ManagedObject {
    let request = FetchRequest(entityName: "Department", predicate: try FetchPredicate(format: "name == %@", .value(.string(name))))
    guard let found = try context.fetch(request).first else { fail("no department \(name)") }
    return found
}

func employee(named last: String, in context: ManagedObjectContext) throws -> ManagedObject {
    let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "lastName == %@", .value(.string(last))))
    guard let found = try context.fetch(request).first else { fail("no employee \(last)") }
    return found
}

func lastName(_ object: ManagedObject) -> String {
    if case .string(let name)? = try? object.value(forKey: "lastName") { return name }
    return "?"
}

// MARK: The other process

if arguments.first == "--edit" {
    guard arguments.count == 2 else { fail("usage: staff-list-example --edit DOCUMENT") }
    let container = try PersistentContainer(name: "Staff", model: model, url: URL(fileURLWithPath: arguments[1]), options: options())
    let context = container.viewContext
    try department(named: "Sales", in: context).setValue("Field Sales", forKey: "name")
    try employee(named: "Hopper", in: context).setObject(try department(named: "Research", in: context), forKey: "department")
    context.delete(try employee(named: "Babbage", in: context))
    try context.save()
    try container.close()
    say("  (other process: renamed Sales to Field Sales, moved Hopper to Research, removed Babbage)")
    exit(0)
}

// MARK: The list

/// Prints each change the controller reports, by name and index path.
final class DiffPrinter: FetchedResultsControllerDelegate {
    var step = ""
    /// Last names by object, for objects deleted by the time they are reported.
    var names: [ObjectIdentifier: String] = [:]

    func remember(_ objects: [ManagedObject]) {
        for object in objects { names[ObjectIdentifier(object)] = lastName(object) }
    }

    /// How many diffs were printed.
    var diffs = 0

    func controllerWillChangeContent(_ controller: FetchedResultsController<some ManagedObject>) {
        diffs += 1
        say("diff after \(step):")
    }
    func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange section: FetchedResultsSection,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        say("  section \(type) [\(sectionIndex)] \(section.name)")
    }
    func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange object: ManagedObject,
                    at indexPath: ResultIndexPath?, for type: FetchedResultsChangeType, newIndexPath: ResultIndexPath?) {
        let name = type == .delete ? names[ObjectIdentifier(object)] ?? "?" : lastName(object)
        names[ObjectIdentifier(object)] = name
        let from = indexPath.map { "[\($0.section).\($0.item)]" } ?? ""
        let to = newIndexPath.map { "[\($0.section).\($0.item)]" } ?? ""
        say("  \(type) \(name) \(from)\(from.isEmpty || to.isEmpty ? "" : " -> ")\(to)")
    }
}

func show(_ list: FetchedResultsController<some ManagedObject>) -> String {
    (list.sections ?? []).map { section in
        "\(section.name): " + section.objects.map(lastName).joined(separator: ", ")
    }.joined(separator: " | ")
}

let givenPath = arguments.first { !$0.hasPrefix("--") }
let url = givenPath.map { URL(fileURLWithPath: $0) }
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("strata-staff-\(UUID().uuidString).strata")
if FileManager.default.fileExists(atPath: url.path) {
    guard arguments.contains("--force") else { fail("\(url.path) already exists; pass --force to replace it.") }
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}

var watching = options()
watching.configuration.watchesForRemoteChanges = true   // other processes' saves arrive on their own
watching.configuration.remoteChangePollInterval = 0.05
let container = try PersistentContainer(name: "Staff", model: model, url: url, options: watching)
let view = container.viewContext
do {
    let engineering = try view.insertObject(forEntityName: "Department")
    try engineering.setValue("Engineering", forKey: "name")
    let sales = try view.insertObject(forEntityName: "Department")
    try sales.setValue("Sales", forKey: "name")
    try hire("Ada", "Lovelace", salary: 120_000, in: engineering, view)
    try hire("Grace", "Hopper", salary: 130_000, in: sales, view)
    try view.save()
}

let request = FetchRequest(entityName: "Employee",
                           sortDescriptors: [FetchSortDescriptor("department.name"), FetchSortDescriptor("lastName")])
let list = FetchedResultsController(fetchRequest: request, managedObjectContext: view, sectionNameKeyPath: "department.name")
let printer = DiffPrinter()
list.delegate = printer
try list.performFetch()
printer.remember(list.fetchedObjects ?? [])
say("list: \(show(list))")

// 1. A background context imports a batch: a new department and three employees.
printer.step = "the background import"
try await container.performBackgroundTask { context in
    let research = try context.insertObject(forEntityName: "Department")
    try research.setValue("Research", forKey: "name")
    try hire("Charles", "Babbage", salary: 90_000, in: research, context)
    try hire("Alan", "Turing", salary: 110_000, in: research, context)
    try hire("Edsger", "Dijkstra", salary: 100_000, in: try department(named: "Engineering", in: context), context)
    try context.save()
}
// The confinement view context takes the import in at its next operation.
_ = try view.count(for: request)
say("list: \(show(list))")

// 2. Another process edits the same document.
printer.step = "the other process's save"
let other = Process()
other.executableURL = Bundle.main.executableURL
other.arguments = ["--edit", url.path]
try other.run()
other.waitUntilExit()
guard other.terminationStatus == 0 else { fail("the editing process failed") }
// The store's watcher notices the save and hands it to the view context, which (confined to
// this program's one thread) merges it at its next operation: wait for the diff.
let diffsBefore = printer.diffs
let deadline = Date().addingTimeInterval(60)
while printer.diffs == diffsBefore {
    guard Date() < deadline else { fail("the other process's save did not arrive within 60 s") }
    try await Task.sleep(for: .milliseconds(20))
    _ = try view.count(for: request)
}
say("list: \(show(list))")

// 3. An edit sheet: a child context of the view context. Nothing shows until it saves.
printer.step = "the edit sheet's save"
let sheet = ManagedObjectContext(parent: view)
try employee(named: "Lovelace", in: sheet).setValue(.integer(150_000), forKey: "salary")
try hire("Barbara", "Liskov", salary: 140_000, in: try department(named: "Field Sales", in: sheet), sheet)
try employee(named: "Turing", in: sheet).setObject(try department(named: "Engineering", in: sheet), forKey: "department")
sheet.undoManager?.setActionName("Edit Staff")
try sheet.save()                       // into the view context, not to disk
say("list: \(show(list))")
say("undo in the view context: \(view.undoManager?.undoMenuItemTitle ?? "-")")
printer.step = "the view context's save (new objects get permanent IDs)"
try view.save()                        // now on disk

// The document, reopened, holds what the list shows.
let shown = show(list)
try container.close()
let reopened = try PersistentContainer(name: "Staff", model: model, url: url, options: options())
let check = FetchedResultsController(fetchRequest: request, managedObjectContext: reopened.viewContext, sectionNameKeyPath: "department.name")
try check.performFetch()
guard show(check) == shown else { fail("the reopened document shows \(show(check)), the list showed \(shown)") }
say("reopened: \(show(check))")
try reopened.close()
if givenPath == nil { try? FileManager.default.removeItem(at: url) }
