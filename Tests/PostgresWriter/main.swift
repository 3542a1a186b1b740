import Foundation
import Strata
import StrataPostgres
import StrataTestSupport

// strata-postgres-writer: one of the processes of the many-writer PostgreSQL test
// (Tests/StrataPostgresTests/PostgresManyWriterTests.swift). Uses the example model; the
// document must exist and hold the department "Shared".
//
//   strata-postgres-writer URL DOCUMENT NAME SAVES TOTAL
//       Saves SAVES times: each save inserts one employee (firstName NAME, employeeID 1,
//       2, …) into the department "Shared" — so every save also changes the department
//       every other process changes (merge policy: object trump). After each save that
//       succeeded it prints "ack ID PRIMARYKEY". Then it waits (without saving) until its
//       store has taken in TOTAL employees through LISTEN/NOTIFY, and prints
//       "saw COUNT NAMES" (the first names it sees, sorted, with how many each).
//       A failed save prints "failed: ERROR" (not acknowledged). STRATA_WRITER_PAUSE_MS
//       waits that long after each save, so that a test can break the server meanwhile;
//       with STRATA_WRITER_RETRY set, a failed save is saved again until it succeeds.
//
// Exit status: 0 when done, 1 on an error, 2 on bad usage.

let arguments = CommandLine.arguments
guard arguments.count == 6, let saves = Int(arguments[4]), let total = Int(arguments[5]) else {
    fail("usage: strata-postgres-writer URL DOCUMENT NAME SAVES TOTAL", status: 2)
}
let (url, document, name) = (arguments[1], arguments[2], arguments[3])
let model = sharedExampleModel
let environment = ProcessInfo.processInfo.environment
let pause = environment["STRATA_WRITER_PAUSE_MS"].flatMap(Double.init).map { $0 / 1000 } ?? 0
let retries = environment["STRATA_WRITER_RETRY"] != nil

do {
    let store = try PostgresDocumentStore(url: url, document: document, model: model)
    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addStore(store)
    let context = ManagedObjectContext(coordinator: coordinator)
    context.mergePolicy = .mergeByPropertyObjectTrump
    context.automaticallyMergesChangesFromParent = true
    let departmentRequest = FetchRequest(entityName: "Department", predicate: try FetchPredicate(format: "name == 'Shared'"))
    guard let shared = try context.fetch(departmentRequest).first else { fail("no department Shared", status: 1) }
    for number in 1...saves {
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue(.string(name), forKey: "firstName")
        try employee.setValue(.string("Writer"), forKey: "lastName")
        try employee.setValue(.integer(Int64(number)), forKey: "employeeID")
        try employee.setObject(shared, forKey: "department")
        // With STRATA_WRITER_RETRY a failed save is saved again (its changes kept) until it
        // succeeds or a minute has passed: what an editor does after "did not happen".
        let retryUntil = retries ? Date().addingTimeInterval(60) : Date.distantPast
        while true {
            do {
                try context.save()
                say("ack \(number) \(employee.objectID.primaryKey)")
                break
            } catch {
                say("failed: \(error)")
                guard Date() < retryUntil else {
                    context.rollback()
                    break
                }
                Thread.sleep(forTimeInterval: max(pause, 0.05))
            }
        }
        Thread.sleep(forTimeInterval: pause)
    }
    // Every other process's saves reach this one through NOTIFY; the deadline bounds a
    // hang, it measures nothing.
    let deadline = Date().addingTimeInterval(120)
    var seen: [String] = []
    repeat {
        seen = try context.fetch(FetchRequest(entityName: "Employee")).map { object in
            if case .string(let first) = try object.value(forKey: "firstName") { first } else { "?" }
        }
        if seen.count >= total { break }
        Thread.sleep(forTimeInterval: 0.05)
    } while Date() < deadline
    let counts = Dictionary(grouping: seen, by: { $0 }).mapValues(\.count)
    say("saw \(seen.count) " + counts.keys.sorted().map { "\($0)=\(counts[$0]!)" }.joined(separator: ","))
    try store.close()
} catch {
    fail("\(error)", status: 1)
}
