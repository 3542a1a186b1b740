import Foundation
import Strata
import StrataTestSupport

// strata-crash-writer: a child process for the document store's crash and cross-process
// tests (Tests/StrataTests/DocumentCrashTests.swift). It uses the example model.
//
//   strata-crash-writer save FILE [--batch N] [--limit K] [--synchronous FULL|NORMAL]
//       Opens (or creates) FILE and saves in a loop. Save number K inserts N employees
//       with employeeID = K and salary = 0..<N, sets the "progress" department's budget to
//       K, raises the rating of a few earlier employees, and names its undo group
//       "Save K". After each save it writes "saved K" to stdout (unbuffered).
//   strata-crash-writer compact FILE [--batch N] [--limit K]
//       The same saves, with a compaction (retention: the last 4 segments) after every
//       other save, reported as "compacted K".
//   strata-crash-writer undo FILE
//       Restores the undo history, undoes the last group, saves, prints "undid NAME".
//
// --synchronous sets the document's SQLite synchronous mode (default FULL; NORMAL also
// survives process kills, which is what the crash test does, and saves faster).
//
// Exit status: 0 when done, 1 on an error (printed to stderr), 2 on bad usage.

struct Options {
    var mode = ""
    var path = ""
    var batch = 3
    var limit = Int.max
    var synchronous = "FULL"

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        guard let mode = rest.popFirst(), let path = rest.popFirst() else {
            fail("usage: strata-crash-writer save|compact|undo FILE [--batch N] [--limit K]", status: 2)
        }
        self.mode = mode
        self.path = path
        while let flag = rest.popFirst() {
            if flag == "--synchronous", let mode = rest.popFirst(), ["FULL", "NORMAL"].contains(mode) {
                synchronous = mode
                continue
            }
            guard let text = rest.popFirst(), let value = Int(text), value > 0 else { fail("\(flag) needs a positive number", status: 2) }
            switch flag {
            case "--batch": batch = value
            case "--limit": limit = value
            default: fail("unknown option \(flag)", status: 2)
            }
        }
    }
}

/// The "progress" department and the last save number it records (0 for a new document).
func progress(in context: ManagedObjectContext, store: DocumentStore, model: ManagedObjectModel) throws -> (ManagedObject?, Int) {
    let departmentEntity = try model.entity(named: "Department")
    for id in try store.objectIDs(for: departmentEntity, includingSubentities: false) {
        let department = try context.existingObject(with: id)
        guard case .string("progress") = try department.value(forKey: "name") else { continue }
        if case .decimal(let budget) = try department.value(forKey: "budget") {
            return (department, NSDecimalNumber(decimal: budget).intValue)
        }
        return (department, 0)
    }
    return (nil, 0)
}

func run(_ options: Options) throws {
    let model = ManagedObjectModel.employeesExample()
    let url = URL(fileURLWithPath: options.path)
    var configuration = DocumentStore.Configuration()
    configuration.compactsOnClose = false
    configuration.synchronous = DocumentStore.Configuration.Synchronous(rawValue: options.synchronous) ?? .full
    if options.mode == "compact" {
        configuration.turnOffAutomaticCompaction()
        configuration.retention = .last(4)
    }
    let store = FileManager.default.fileExists(atPath: url.path)
        ? try DocumentStore(openingAt: url, model: model, configuration: configuration)
        : try DocumentStore(creatingAt: url, model: model, configuration: configuration)
    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addStore(store)
    let context = ManagedObjectContext(coordinator: coordinator)

    switch options.mode {
    case "undo":
        try context.restoreUndoHistory()
        guard let undo = context.undoManager, undo.canUndo else { fail("nothing to undo", status: 1) }
        let name = undo.undoActionName
        try undo.undo()
        try context.save()
        try store.close()
        say("undid \(name)")
    case "save", "compact":
        var (department, last) = try progress(in: context, store: store, model: model)
        var earlier = try store.objectIDs(for: model.entity(named: "Employee"), includingSubentities: false)
        var generator = SystemRandomNumberGenerator()
        var done = 0
        while done < options.limit {
            let number = last + 1
            if department == nil {
                let created = try context.insertObject(forEntityName: "Department")
                try created.setValue("progress", forKey: "name")
                department = created
            }
            try department?.setValue(.decimal(Decimal(number)), forKey: "budget")
            for index in 0..<options.batch {
                let employee = try context.insertObject(forEntityName: "Employee")
                try employee.setValue(.string("S\(number)"), forKey: "firstName")
                try employee.setValue(.string("N\(index)"), forKey: "lastName")
                try employee.setValue(.integer(Int64(number)), forKey: "employeeID")
                try employee.setValue(.integer(Int64(index)), forKey: "salary")
            }
            for _ in 0..<min(2, earlier.count) {
                let id = earlier[Int.random(in: 0..<earlier.count, using: &generator)]
                try context.existingObject(with: id).setValue(.double(Double(number)), forKey: "rating")
            }
            context.undoManager?.setActionName("Save \(number)")
            let inserted = context.insertedObjects.filter { $0.entity.name == "Employee" }
            try context.save()
            say("saved \(number)")
            earlier += inserted.map(\.objectID)
            if earlier.count > 64 { earlier.removeFirst(earlier.count - 64) }
            context.undoManager?.removeAllActions()
            if options.mode == "compact", number % 2 == 0 {
                try store.compact()
                say("compacted \(number)")
            }
            last = number
            done += 1
        }
        try store.close()
    default:
        fail("unknown mode \(options.mode)", status: 2)
    }
}

do {
    try run(Options(CommandLine.arguments))
} catch {
    fail("strata-crash-writer: \(error)", status: 1)
}
