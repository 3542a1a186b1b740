import Foundation
import Strata
#if STRATA_BENCH_POSTGRES
import StrataPostgres
#endif

/// W16 opening a long shared document: a PostgreSQL document of many small saves (100,000
/// in the full tier, 10,000 quick, 200 smoke; `STRATA_W16_SAVES` overrides), each
/// inserting one employee and renaming the department every save shares, opened by a new
/// store and its first fetch answered (the employees counted) — what a user on another
/// machine waits for before they see the document. Two documents: one never compacted
/// (the open replays every segment) and one compacted on the server and then saved into
/// 500 more times by a store (the open reads the server's snapshot tables and replays the
/// 500; the stores' default compaction every 1,000 segments leaves up to 999). Both are
/// built once per server and kept (a later run finds them by name): their saves are made
/// in a local file and pushed (``build(_:saves:url:compacted:scratch:)``), since one store
/// saving 100,000 times through a server takes minutes.
///
/// Uses the server at `STRATA_POSTGRES_URL` (with its `replica=` items: the open then reads
/// from the replica, docs/POSTGRES.md), else starts a throwaway one. Tools/network-bench
/// runs it across a network namespace with a round trip added, after a first run next to
/// the server has built the documents.
///
/// Figures: `W16.open_log_s`, `W16.open_snapshot_s` (store opened, first fetch answered),
/// `W16.saves`, `W16.build_s` (when this run built the documents); when the URL names a
/// replica, `W16.log_replica_share_percent` and `W16.snapshot_replica_share_percent` (the
/// open's segments read from a replica) and `W16.snapshot_from_replica` (1: the snapshot
/// too).
enum RemoteOpenWorkload {
    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        #if !STRATA_BENCH_POSTGRES
        throw BenchFailure("W16 needs PostgreSQL: build the benchmarks with STRATA_POSTGRES=1 (docs/POSTGRES.md)")
        #else
        let environment = ProcessInfo.processInfo.environment
        let saves = environment["STRATA_W16_SAVES"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
            ?? ["smoke": 200, "quick": 10_000][env.tier.name] ?? 100_000
        let given = environment["STRATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        let url = try given ?? ManyWriterWorkload.startServer()
        defer { if given == nil { ManyWriterWorkload.stopServer(url) } }

        var figures: [String: Double] = ["W16.saves": Double(saves)]
        var built = (saves: 0, seconds: 0.0)
        for (name, compacted) in [("log", false), ("snapshot", true)] {
            let document = "w16-\(name)-\(saves)"
            let made = try build(document, saves: saves, url: url, compacted: compacted, scratch: env.dataDirectory)
            built = (built.saves + made.made, built.seconds + made.seconds)
            let (seconds, reads) = try open(document, url: url, employees: made.employees)
            figures["W16.open_\(name)_s"] = seconds
            if !(try PostgresLocation(url, document: document).replicas.isEmpty) {
                figures["W16.\(name)_replica_share_percent"] = 100 * reads.replicaShare
                if name == "snapshot" { figures["W16.snapshot_from_replica"] = Double(reads.snapshotsFromReplicas) }
            }
            note("W16 strata: \(document) (\(saves) saves) opened and counted in \(String(format: "%.3f", seconds)) s")
        }
        if built.saves > 0 { figures["W16.build_s"] = built.seconds }
        return figures
        #endif
    }

    #if STRATA_BENCH_POSTGRES
    /// How many saves the compacted document gets after its snapshot, through a store.
    static let savesAfterSnapshot = 500

    /// Makes `document` unless the server holds it whole: `saves` saves (each one employee
    /// inserted and the shared department renamed) made in a local document file and
    /// pushed (`DocumentSync`, as `strata push` does: the same segments a store's saves
    /// append, sent in pages instead of one transaction each); for `compacted`, then a
    /// server compaction and ``savesAfterSnapshot`` more saves through a store. Returns the
    /// employees it holds and, when this call made it, the saves it made and how long.
    private static func build(_ document: String, saves: Int, url: String, compacted: Bool,
                              scratch: URL) throws -> (employees: Int, made: Int, seconds: Double) {
        let employees = saves + (compacted ? savesAfterSnapshot : 0)
        let remote = try PostgresSegmentRemote(url: url, document: document)
        defer { remote.close() }
        if let existing = try remote.document() {
            guard existing.lastSequence >= Int64(employees) else {
                throw BenchFailure("W16: \(document) on the server is incomplete (an earlier build was interrupted): drop it or use another server")
            }
            return (employees, 0, 0)
        }
        let start = Clock.now
        let model = BenchData.model()
        // A push attaches the file to the remote: each document pushes a copy of the saves.
        let source = try sourceFile(saves: saves, scratch: scratch)
        let file = scratch.appendingPathComponent("\(document).strata")
        try? FileManager.default.removeItem(at: file)
        try FileManager.default.copyItem(at: source, to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            let store = try DocumentStore(openingAt: file, model: model, configuration: localConfiguration)
            defer { try? store.close() }
            try DocumentSync(store: store, remote: remote).push()
        }
        if compacted {
            var live = PostgresDocumentStore.Configuration()
            live.listensForRemoteChanges = false
            let shared = try PostgresDocumentStore(location: PostgresLocation(url, document: document), model: model, configuration: live)
            defer { try? shared.close() }
            try shared.compact()
            let sharedCoordinator = PersistentStoreCoordinator(model: model)
            try sharedCoordinator.addStore(shared)
            try saveEmployees(savesAfterSnapshot, into: ManagedObjectContext(coordinator: sharedCoordinator, undoManager: nil))
        }
        return (employees, employees, Clock.seconds(since: start))
    }

    /// A local document of `saves` saves (automatic compaction off: one segment each), made
    /// once and kept in the scratch folder.
    private static func sourceFile(saves: Int, scratch: URL) throws -> URL {
        let file = scratch.appendingPathComponent("w16-source-\(saves).strata")
        if FileManager.default.fileExists(atPath: file.path) { return file }
        let building = scratch.appendingPathComponent("w16-source-\(saves)-building.strata")
        let model = BenchData.model()
        do {
            let store = try DocumentStore(creatingAt: building, model: model, overwrite: true, configuration: localConfiguration)
            defer { try? store.close() }
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addStore(store)
            try saveEmployees(saves, into: ManagedObjectContext(coordinator: coordinator, undoManager: nil))
        }
        try FileManager.default.moveItem(at: building, to: file)
        return file
    }

    /// One segment per save, kept: the file's log is what gets pushed.
    private static var localConfiguration: DocumentStore.Configuration {
        var configuration = DocumentStore.Configuration()
        configuration.turnOffAutomaticCompaction()
        configuration.compactsOnClose = false
        configuration.synchronous = .normal
        return configuration
    }

    /// Makes `count` saves in `context`, each one employee inserted and the (first)
    /// department renamed, with progress every 10 seconds.
    private static func saveEmployees(_ count: Int, into context: ManagedObjectContext) throws {
        var department = try context.fetch(FetchRequest(entityName: "Department")).first
            ?? context.insertObject(forEntityName: "Department")
        let start = Clock.now
        var lastNote = start
        for number in 1...count {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("Writer"), forKey: "lastName")
            try employee.setValue(.integer(Int64(number)), forKey: "employeeID")
            try employee.setObject(department, forKey: "department")
            try department.setValue(.string("Shared \(number)"), forKey: "name")
            try context.save()
            // Saved objects are not needed again: keep the context's memory flat.
            if number % 1_000 == 0 {
                context.reset()
                guard let again = try context.fetch(FetchRequest(entityName: "Department")).first else {
                    throw BenchFailure("W16: the department vanished")
                }
                department = again
            }
            if Clock.seconds(since: lastNote) > 10 {
                lastNote = Clock.now
                let rate = Double(number) / Clock.seconds(since: start)
                note("W16: \(number) of \(count) saves, \(Int(rate))/s, about \(Int(Double(count - number) / rate)) s left")
            }
        }
    }

    /// Opens `document` with a new store (listening, as an application's would), counts its
    /// employees, and closes it; the time from the first connection to the count, and what
    /// the open read from replicas and from the primary.
    private static func open(_ document: String, url: String, employees: Int) throws -> (seconds: Double, reads: PostgresDocumentStore.ServerReads) {
        let model = BenchData.model()
        let start = Clock.now
        let store = try PostgresDocumentStore(location: PostgresLocation(url, document: document), model: model)
        defer { try? store.close() }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        let count = try context.count(for: FetchRequest(entityName: "Employee"))
        let seconds = Clock.seconds(since: start)
        guard count == employees else { throw BenchFailure("W16: \(document) holds \(count) employees, not \(employees)") }
        return (seconds, store.serverReads)
    }
    #endif
}
