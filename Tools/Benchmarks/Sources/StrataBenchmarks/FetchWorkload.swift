import Foundation
import Strata

/// Issue 4: fetches on a document of 1,000,000 employees (`StrataBenchmarks fetch
/// [--objects N] [--path FILE] [--rebuild]`).
///
/// Builds the document once (saves of 100,000 inserts, then a compaction) and reuses it
/// when it already holds the requested number of employees. Then, each with a fresh
/// context so that nothing is cached:
/// - an indexed equality fetch (`lastName == %@`, limit 20), many different names;
/// - `lastName BEGINSWITH[c] 'q' AND salary > 50000` sorted by salary, limit 100;
/// - counts (the same predicate; every employee);
/// - the peak resident memory of the process (`VmHWM`, see `ProcessMemory`).
struct FetchWorkload {
    var objects = 1_000_000
    var path = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("strata-fetch-benchmark.strata")
    var rebuild = false
    static let chunk = 100_000

    static func runFromCommandLine() throws {
        var workload = FetchWorkload()
        var arguments = CommandLine.arguments.dropFirst(2).makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--objects": workload.objects = arguments.next().flatMap { Int($0) } ?? workload.objects
            case "--path": workload.path = URL(fileURLWithPath: arguments.next() ?? workload.path.path)
            case "--rebuild": workload.rebuild = true
            case "--quick": workload.objects = 100_000
            default: break
            }
        }
        try workload.run()
    }

    /// A last name for employee `index`: 50,000 distinct names (about 20 employees each),
    /// a twenty-sixth of them starting with Q or q.
    static func lastName(_ index: Int) -> String {
        let name = index % 50_000
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let initial = String(letters[name % 26])
        return (name % 2 == 0 ? initial : initial.lowercased()) + "name\(name)"
    }

    func run() throws {
        let model = ManagedObjectModel.employeesExample()
        let buildSeconds = try prepareDocument(model: model)
        let store = try DocumentStore(openingAt: path, model: model)
        defer { try? store.close() }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        func fresh() -> ManagedObjectContext { ManagedObjectContext(coordinator: coordinator, undoManager: nil) }

        print("fetch benchmark: \(objects) employees in \(path.path)" + (buildSeconds.map { String(format: " (built in %.1f s)", $0) } ?? " (reused)"))

        // 1. Indexed equality, limit 20.
        let names = (0..<200).map { Self.lastName($0 * 241 % 50_000) }
        var found = 0
        let equality = try measure(repetitions: names.count) { round in
            let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "lastName == %@", .value(.string(names[round]))))
            request.fetchLimit = 20
            found += try fresh().fetch(request).count
        }
        report("indexed equality, limit 20 (objects)", equality, note: "\(found / names.count) results each")
        let equalityIDs = try measure(repetitions: names.count) { round in
            let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "lastName == %@", .value(.string(names[round]))))
            request.fetchLimit = 20
            _ = try fresh().fetchObjectIDs(request)
        }
        report("indexed equality, limit 20 (IDs)", equalityIDs)

        // 2. Prefix with [c] and a range, sorted, limit 100.
        let prefix = try FetchPredicate(format: "lastName BEGINSWITH[c] 'q' AND salary > 50000")
        var sortedCount = 0
        let sorted = try measure(repetitions: 20) { _ in
            let request = FetchRequest(entityName: "Employee", predicate: prefix, sortDescriptors: [FetchSortDescriptor("salary")])
            request.fetchLimit = 100
            let objects = try fresh().fetch(request)
            sortedCount = objects.count
        }
        report("BEGINSWITH[c] 'q' AND salary > 50000, by salary, limit 100", sorted, note: "\(sortedCount) results")

        // 3. Counts.
        var matching = 0
        let count = try measure(repetitions: 5) { _ in
            matching = try fresh().count(for: FetchRequest(entityName: "Employee", predicate: prefix))
        }
        report("count, BEGINSWITH[c] 'q' AND salary > 50000", count, note: "\(matching) records")
        var all = 0
        let countAll = try measure(repetitions: 5) { _ in all = try fresh().count(for: FetchRequest(entityName: "Employee")) }
        report("count, every employee", countAll, note: "\(all) records")

        print(String(format: "peak memory (VmHWM): %.1f MiB", peakMemoryMiB()))
    }

    /// Creates the document unless a usable one exists; returns the build time when built.
    func prepareDocument(model: ManagedObjectModel) throws -> Double? {
        if !rebuild, FileManager.default.fileExists(atPath: path.path),
           let store = try? DocumentStore(openingAt: path, model: model) {
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addStore(store)
            let existing = try ManagedObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Employee"))
            try store.close()
            if existing == objects { return nil }
        }
        let start = Clock.now
        let store = try DocumentStore(creatingAt: path, model: model, overwrite: true)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        var random = SystemRandomNumberGenerator()
        var index = 0
        while index < objects {
            let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
            for _ in 0..<min(Self.chunk, objects - index) {
                let employee = try context.insertObject(forEntityName: "Employee")
                try employee.setValue(.string("First\(index % 1_000)"), forKey: "firstName")
                try employee.setValue(.string(Self.lastName(index)), forKey: "lastName")
                try employee.setValue(.integer(Int64.random(in: 20_000...200_000, using: &random)), forKey: "salary")
                try employee.setValue(.integer(Int64(index % 2_000_000_000)), forKey: "employeeID")
                index += 1
            }
            try context.save()
        }
        try store.compact()
        try store.close()
        return Clock.seconds(since: start)
    }

    /// Runs `body` `repetitions` times; returns the per-run times in seconds.
    func measure(repetitions: Int, _ body: (Int) throws -> Void) throws -> [Double] {
        var times: [Double] = []
        for round in 0..<repetitions {
            let start = Clock.now
            try body(round)
            times.append(Clock.seconds(since: start))
        }
        return times
    }

    func report(_ label: String, _ times: [Double], note: String = "") {
        let sorted = times.sorted()
        let median = sorted[sorted.count / 2]
        let mean = times.reduce(0, +) / Double(times.count)
        print(String(format: "%@: median %.3f ms, mean %.3f ms over %d runs%@", label, median * 1000, mean * 1000, times.count,
                     note.isEmpty ? "" : " (\(note))"))
    }
}
