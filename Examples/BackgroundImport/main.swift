import Foundation
import Strata

// Several contexts over one document: a private-queue importer saves batches while an
// editor context, which merges others' saves on its own, edits the same records. Usage:
//   background-import-example [DOCUMENT] [--employees N] [--force]
// An existing DOCUMENT is kept (the program refuses to start) unless --force replaces it.
// It prints what each context saw and exits 1 if the document is not as expected.

let arguments = Array(CommandLine.arguments.dropFirst())
let count = arguments.firstIndex(of: "--employees").flatMap { Int(arguments[safe: $0 + 1] ?? "") } ?? 1_000
let givenPath = arguments.first { !$0.hasPrefix("--") && Int($0) == nil }
let url = givenPath.map { URL(fileURLWithPath: $0) }
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("strata-import-\(UUID().uuidString).strata")
if FileManager.default.fileExists(atPath: url.path) {
    guard arguments.contains("--force") else {
        FileHandle.standardError.write(Data("background-import-example: error: \(url.path) already exists; pass --force to replace it.\n".utf8))
        exit(1)
    }
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}

let model = ManagedObjectModel.employeesExample()
let store = try DocumentStore(creatingAt: url, model: model)
let coordinator = PersistentStoreCoordinator(model: model)
try coordinator.addStore(store)

// The editor: a department everyone joins, edited while the import runs.
let editor = ManagedObjectContext(coordinator: coordinator, concurrencyType: .privateQueue)
editor.automaticallyMergesChangesFromParent = true
editor.mergePolicy = .mergeByPropertyStoreTrump   // the import's members win where both changed
editor.retainsRegisteredObjects = true
let departmentID = try await editor.perform {
    let research = try editor.insertObject(forEntityName: "Department")
    try research.setValue("Research", forKey: "name")
    try editor.save()
    return research.objectID
}

// The importer: adds employees to the department in batches. The department record
// changes with every batch (its members), and the editor changes it too: the importer's
// policy merges its additions into whatever the store has.
let importer = ManagedObjectContext(coordinator: coordinator, concurrencyType: .privateQueue)
importer.mergePolicy = .mergeByPropertyObjectTrump
importer.undoManager = nil   // an import is not undoable: no undo memory
let batch = 100
let importTask = Task {
    var saved = 0
    while saved < count {
        let size = min(batch, count - saved)
        let first = saved
        try await importer.perform {
            let research = try importer.existingObject(with: departmentID)
            for index in first..<(first + size) {
                let employee = try importer.insertObject(forEntityName: "Employee")
                try employee.setValue(.string("Employee\(index)"), forKey: "firstName")
                try employee.setValue(.string("Imported"), forKey: "lastName")
                try employee.setValue(.integer(Int64(40_000 + index)), forKey: "salary")
                try employee.setObject(research, forKey: "department")
            }
            try importer.save()
        }
        saved += size
    }
    return saved
}

// Meanwhile the editor renames the department and sets its budget, a few times.
for round in 1...5 {
    try await editor.perform {
        let research = try editor.existingObject(with: departmentID)
        try research.setValue(.string("Research \(round)"), forKey: "name")
        try research.setValue(.decimal(Decimal(round * 1_000)), forKey: "budget")
        try editor.save()
    }
    try await Task.sleep(for: .milliseconds(2))
}

let imported = try await importTask.value
let (name, members) = try await editor.perform {
    let research = try editor.existingObject(with: departmentID)
    return (try research.value(forKey: "name"), try research.value(forKey: "employees").objectIDs.count)
}
let reader = ManagedObjectContext(coordinator: coordinator)
let stored = try reader.count(for: FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "department.name == 'Research 5'")))
print("imported \(imported) employees in batches of \(batch)")
print("editor sees: \(name), \(members) members (merged automatically)")
print("store holds: \(stored) employees in 'Research 5'")
try store.close()
if givenPath != nil { print("document: \(url.path)") } else { try? FileManager.default.removeItem(at: url) }
guard members == count, stored == count, name == .string("Research 5") else {
    FileHandle.standardError.write(Data("expected \(count) members of 'Research 5'\n".utf8))
    exit(1)
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
