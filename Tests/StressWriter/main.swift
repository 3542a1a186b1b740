import Foundation
import Strata
import StrataTestSupport

// strata-stress-writer: one of many processes writing one document at once, for the
// many-writer stress test (Tests/StrataTests/ManyWriterStressTests.swift). It uses the
// example model; the document must exist and hold the departments "D0"... and projects
// "P0"... the test made.
//
//   strata-stress-writer write FILE --name NAME --seed S --operations N
//       Makes N random changes to its own employees (firstName = NAME, employeeID = a
//       number it counts up), saving after each: inserts, salary updates, moves to another
//       department, joining or leaving a project, deletes, and undo and redo of its own
//       groups (its context's undo stack). Merge policy: object trump, so changes other
//       processes make to the shared departments and projects merge in.
//       After each save that succeeded it prints, for every employee it ever made, what
//       its context now holds:
//           ack ID present SALARY DEPARTMENT PROJECTS   (projects joined by ",", "-" for none)
//           ack ID absent
//       A save that fails prints "failed: ERROR" and rolls back (not acknowledged).
//   strata-stress-writer shared-undo FILE --name NAME --seed S --operations N
//       N random steps on the document's one shared undo history, each in a fresh context
//       as `strata` commands take it: insert a department named NAME-K ("inserted K"), or
//       undo or redo the document's last group inside one held write after catching up
//       ("undid ACTION", "redid ACTION", "nothing to undo", "nothing to redo"). A step
//       that fails prints "failed: ERROR".
//   strata-stress-writer compact FILE --seed S --operations N [--keep-history yes]
//       Compacts N times (retention: the last 2 segments, so other writers miss segments
//       that were dropped; every segment with --keep-history, so the log still replays
//       from empty), printing "compacted K".
//   strata-stress-writer insert-undo FILE --name NAME
//       Inserts a department and an employee named NAME in one group, saves, undoes that
//       group, saves, and prints "undid ACTION".
//
// Exit status: 0 when done, 1 on an error (printed to stderr), 2 on bad usage.

struct Options {
    var mode = ""
    var path = ""
    var name = "W"
    var seed: UInt64 = 1
    var operations = 20
    var keepsHistory = false

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        guard let mode = rest.popFirst(), let path = rest.popFirst() else {
            fail("usage: strata-stress-writer write|compact|insert-undo FILE [--name N] [--seed S] [--operations N]", status: 2)
        }
        self.mode = mode
        self.path = path
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { fail("\(flag) needs a value", status: 2) }
            switch flag {
            case "--name": name = value
            case "--seed": seed = UInt64(value) ?? 1
            case "--operations": operations = Int(value) ?? 20
            case "--keep-history": keepsHistory = value == "yes"
            default: fail("unknown option \(flag)", status: 2)
            }
        }
    }
}

/// One process's writer: its context and its own employees by number.
final class Writer {
    let context: ManagedObjectContext
    let name: String
    var random: SeededGenerator
    var employees: [Int: ManagedObjectID] = [:]
    var nextNumber = 1
    let departments: [ManagedObjectID]
    let projects: [ManagedObjectID]

    init(context: ManagedObjectContext, name: String, seed: UInt64) throws {
        self.context = context
        self.name = name
        random = SeededGenerator(seed: seed)
        departments = try context.fetchObjectIDs(FetchRequest(
            entityName: "Department", sortDescriptors: [FetchSortDescriptor("name")]))
        projects = try context.fetchObjectIDs(FetchRequest(
            entityName: "Project", sortDescriptors: [FetchSortDescriptor("name")]))
        guard !departments.isEmpty, !projects.isEmpty else { fail("the document has no departments or projects", status: 2) }
    }

    func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }

    /// One random change, not yet saved.
    func step() throws {
        let roll = random.next() % 100
        let live = employees.keys.sorted()
        if roll < 10, let undo = context.undoManager, undo.canUndo {
            try undo.undo()
            return
        }
        if roll < 15, let undo = context.undoManager, undo.canRedo {
            try undo.redo()
            return
        }
        if live.isEmpty || roll < 45 {
            let number = nextNumber
            nextNumber += 1
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string(name), forKey: "firstName")
            try employee.setValue(.string("N\(number)"), forKey: "lastName")
            try employee.setValue(.integer(Int64(number)), forKey: "employeeID")
            try employee.setValue(.integer(Int64(random.next() % 1000)), forKey: "salary")
            try employee.setObject(context.existingObject(with: pick(departments)), forKey: "department")
            context.undoManager?.setActionName("Insert \(name) \(number)")
            return
        }
        let number = pick(live)
        guard let id = employees[number], let employee = try? context.existingObject(with: id), !employee.isDeleted else { return }
        switch roll {
        case ..<65:
            try employee.setValue(.integer(Int64(random.next() % 1000)), forKey: "salary")
        case ..<75:
            try employee.setObject(context.existingObject(with: pick(departments)), forKey: "department")
        case ..<88:
            let project = try context.existingObject(with: pick(projects))
            let members = try employee.mutableSetValue(forKey: "projects")
            if try members.contains(project) { try members.remove(project) } else { try members.add(project) }
        default:
            context.delete(employee)
        }
        context.undoManager?.setActionName("Change \(name) \(number)")
    }

    /// What the context holds for every employee this writer ever made, one
    /// acknowledgement line each (an undo or redo may touch any of them).
    func acknowledgements() throws -> [String] {
        let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == %@", .value(.string(name))))
        var found: [Int: [ManagedObject]] = [:]
        for employee in try context.fetch(request) {
            guard case .integer(let number) = try employee.value(forKey: "employeeID") else { continue }
            found[Int(number), default: []].append(employee)
        }
        employees = [:]
        var lines: [String] = []
        for number in 1..<nextNumber {
            let matches = found[number] ?? []
            guard matches.count == 1, let employee = matches.first else {
                lines.append(matches.isEmpty ? "ack \(number) absent" : "ack \(number) duplicated \(matches.count)")
                continue
            }
            employees[number] = employee.objectID
            let salary = try plain(employee.value(forKey: "salary"))
            let department = try plain(employee.value(forKeyPath: "department.name").value ?? .null)
            let projects = try employee.value(forKey: "projects").objectIDs
                .map { try plain(context.existingObject(with: $0).value(forKey: "name")) }.sorted()
            lines.append("ack \(number) present \(salary) \(department) \(projects.isEmpty ? "-" : projects.joined(separator: ","))")
        }
        return lines
    }
}

/// A value as the test reads it back: strings bare, numbers in decimal, "null".
func plain(_ value: PropertyValue) -> String {
    switch value {
    case .string(let text): return text
    case .integer(let number): return String(number)
    default: return "null"
    }
}

func open(_ path: String) throws -> (DocumentStore, ManagedObjectContext) {
    var configuration = DocumentStore.Configuration()
    configuration.compactsOnClose = false
    configuration.busyTimeout = 60
    let model = ManagedObjectModel.employeesExample()
    let store = try DocumentStore(openingAt: URL(fileURLWithPath: path), model: model, configuration: configuration)
    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addStore(store)
    let context = ManagedObjectContext(coordinator: coordinator)
    context.mergePolicy = .mergeByPropertyObjectTrump
    return (store, context)
}

func run(_ options: Options) throws {
    switch options.mode {
    case "write":
        let (store, context) = try open(options.path)
        let writer = try Writer(context: context, name: options.name, seed: options.seed)
        for _ in 0..<options.operations {
            try writer.step()
            do {
                try context.save()
                for line in try writer.acknowledgements() { say(line) }
            } catch {
                say("failed: \(error)")
                context.rollback()
            }
        }
        try store.close()
    case "compact":
        let (store, _) = try open(options.path)
        var random = SeededGenerator(seed: options.seed)
        for number in 1...max(options.operations, 1) {
            try store.compact(retention: options.keepsHistory ? .all : .last(2))
            say("compacted \(number)")
            usleep(useconds_t(5_000 + random.next() % 20_000))
        }
        try store.close()
    case "shared-undo":
        let (store, _) = try open(options.path)
        var random = SeededGenerator(seed: options.seed)
        for number in 1...max(options.operations, 1) {
            do {
                say(try sharedUndoStep(store, name: "\(options.name)-\(number)", roll: random.next() % 100))
            } catch {
                say("failed: \(error)")
            }
        }
        try store.close()
    case "insert-undo":
        let (store, context) = try open(options.path)
        let department = try context.insertObject(forEntityName: "Department")
        try department.setValue(.string(options.name), forKey: "name")
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue(.string(options.name), forKey: "firstName")
        try employee.setValue(.string(options.name), forKey: "lastName")
        try employee.setObject(department, forKey: "department")
        context.undoManager?.setActionName("Hire \(options.name)")
        try context.save()
        guard let undo = context.undoManager else { fail("no undo manager", status: 1) }
        let action = undo.undoActionName
        try undo.undo()
        try context.save()
        try store.close()
        say("undid \(action)")
    default:
        fail("unknown mode \(options.mode)", status: 2)
    }
}

/// One step on the document's shared undo history, in a fresh context (as one `strata`
/// command): an insert, or an undo or redo chosen inside the held write after catching up.
func sharedUndoStep(_ store: DocumentStore, name: String, roll: UInt64) throws -> String {
    let coordinator = PersistentStoreCoordinator(model: store.model)
    try coordinator.addStore(store)
    defer { coordinator.removeStore(store) }
    let context = ManagedObjectContext(coordinator: coordinator)
    if roll < 40 {
        try context.insertObject(forEntityName: "Department").setValue(.string(name), forKey: "name")
        context.undoManager?.setActionName("Insert \(name)")
        try context.save()
        return "inserted \(name)"
    }
    let redo = roll >= 75
    return try store.performWrite {
        try context.restoreUndoHistory()
        guard let undo = context.undoManager, redo ? undo.canRedo : undo.canUndo else { return redo ? "nothing to redo" : "nothing to undo" }
        let action = redo ? undo.redoActionName : undo.undoActionName
        if redo { try undo.redo() } else { try undo.undo() }
        try context.save()
        return "\(redo ? "redid" : "undid") \(action)"
    }
}

do {
    try run(Options(CommandLine.arguments))
} catch {
    fail("strata-stress-writer: \(error)", status: 1)
}
