import Foundation
import Strata

/// W4x, W4 extended: the 100 results of W4's second query (`lastName BEGINSWITH[c] 'q' AND
/// salary > 50000`, sorted by lastName) in W4x's document, every attribute read, then the
/// to-one `department` (its name) and the to-many `skills` (each skill's name and level).
///
/// Strata twice, each in its own process: with `relationshipKeyPathsForPrefetching`
/// `["department", "skills"]`, and without (each fault fired as it is touched). Peers read
/// the same rows from the same tables (RelationshipReadPeers).
///
/// Each unit opens the document afresh for each of `rounds` rounds (the open is not timed)
/// and reports the median round: `W4x.read_s` (the fetch and everything read from it) and
/// `W4x.read_cpu_s` (the same round's processor time, every thread of the process: on a
/// shared host the wall time of a few milliseconds is mostly waiting for a core),
/// `W4x.objects` (employees + departments reached + skills read: the same for every
/// subject), `W4x.statements` (SQL statements run, counted in one more round, untimed,
/// as the store's statement trace slows what it counts) and `W4x.peak_mib` (from the
/// documents' existence on: the first unit builds them, `ProcessMemory.resetPeak()`).
enum RelationshipReadWorkload {
    static let rounds = 11
    static let attributes = ["firstName", "lastName", "salary", "employeeID", "startDate"]
    static let prefetchingKeyPaths = ["department", "skills"]

    /// The objects read in one round, and a sum of their values that no optimizer can drop.
    struct Tally {
        var employees = 0
        var departments: Set<String> = []
        var skills = 0
        var checksum = 0

        var objects: Int { employees + departments.count + skills }

        mutating func add(_ value: PropertyValue) {
            switch value {
            case .string(let text): checksum &+= text.utf8.count
            case .integer(let number): checksum &+= Int(truncatingIfNeeded: number)
            case .date(let date): checksum &+= Int(date.timeIntervalSinceReferenceDate)
            default: checksum &+= 1
            }
        }
    }

    /// Counts the statements the store's trace reports (called inside the store's lock).
    final class StatementCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }

    static func request(prefetching: Bool) throws -> FetchRequest<ManagedObject> {
        let request = FetchRequest(
            entityName: "Employee", predicate: try FetchPredicate(format: "lastName BEGINSWITH[c] 'q' AND salary > 50000"),
            sortDescriptors: [FetchSortDescriptor("lastName")])
        request.fetchLimit = 100
        if prefetching { request.relationshipKeyPathsForPrefetching = prefetchingKeyPaths }
        return request
    }

    static func runStrata(_ env: BenchEnvironment, prefetching: Bool) throws -> [String: Double] {
        let url = try RelationshipReadData.ensureStrataDocument(env)
        ProcessMemory.resetPeak()   // the first unit builds the documents: not the read's memory
        let model = RelationshipReadData.model()
        var configuration = DocumentStore.Configuration()
        configuration.synchronous = .full
        var times: [Double] = []
        var processorTimes: [Double] = []
        var tally = Tally()
        var statements = 0
        for round in 0...rounds {
            let counted = round == rounds
            let store = try DocumentStore(openingAt: url, model: model, configuration: configuration)
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addStore(store)
            let context = ManagedObjectContext(coordinator: coordinator)
            let request = try request(prefetching: prefetching)
            let counter = StatementCounter()
            let start = Clock.now
            if counted { try store.traceStatements { _ in counter.increment() } }
            let processorStart = Clock.processorNow
            tally = Tally()
            for employee in try context.fetch(request) {
                tally.employees += 1
                for key in attributes { tally.add(try employee.value(forKey: key)) }
                if let department = try employee.object(forKey: "department") {
                    let name = try department.value(forKey: "name")
                    tally.add(name)
                    if case .string(let text) = name { tally.departments.insert(text) }
                }
                for skill in try employee.objects(forKey: "skills") {
                    tally.add(try skill.value(forKey: "name"))
                    tally.add(try skill.value(forKey: "level"))
                    tally.skills += 1
                }
            }
            let seconds = Clock.seconds(since: start)
            let processorSeconds = Clock.processorSeconds(since: processorStart)
            if counted {
                try store.traceStatements(nil)
                statements = counter.count
            } else {
                times.append(seconds)
                processorTimes.append(processorSeconds)
            }
            try store.close()
        }
        blackHole(tally.checksum)
        note("W4x strata (\(prefetching ? "prefetching" : "faults")): \(tally.employees) employees, "
             + "\(tally.departments.count) departments, \(tally.skills) skills, \(statements) statements")
        return figures(times: times, processorTimes: processorTimes, tally: tally, statements: statements)
    }

    /// W4x's figures of one subject: the medians of its timed rounds, what it read, the
    /// statements of its counted round, and the process's peak memory.
    static func figures(times: [Double], processorTimes: [Double], tally: Tally, statements: Int) -> [String: Double] {
        ["W4x.read_s": median(times), "W4x.read_cpu_s": median(processorTimes), "W4x.objects": Double(tally.objects),
         "W4x.statements": Double(statements), "W4x.peak_mib": peakMemoryMiB()]
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
