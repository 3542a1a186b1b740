import Foundation
import Strata
#if STRATA_BENCH_POSTGRES
import StrataPostgres
#endif

/// W16 opening a long shared document: a PostgreSQL document of many small saves (100,000
/// in the full tier, 10,000 quick, 200 smoke; `STRATA_W16_SAVES` overrides), each inserting one employee and renaming the
/// department every save shares, opened by a new store and its first fetch answered (the
/// employees counted) — what a user on another machine waits for before they see the
/// document. Two documents: one never compacted (the open replays every segment) and one
/// written with the stores' default server compaction (every 1,000 segments: the open
/// reads the server's snapshot and replays at most the last thousand). Both are built once
/// per server and kept (a later run finds them by name and length).
///
/// Uses the server at `STRATA_POSTGRES_URL` (with its `replica=` items: the open then reads
/// from the replica, docs/POSTGRES.md), else starts a throwaway one. Tools/network-bench
/// runs it across a network namespace with a round trip added; `STRATA_POSTGRES_BUILD_URL`
/// (the same server without the added round trip) builds the documents faster.
///
/// Figures: `W16.open_log_s`, `W16.open_snapshot_s` (store opened, first fetch answered),
/// `W16.saves` (the documents' length), `W16.build_saves_per_s` (one writer's rate while
/// building, when this run built them); when the URL names a replica,
/// `W16.log_replica_share_percent` and `W16.snapshot_replica_share_percent` (the open's
/// segments read from a replica) and `W16.snapshot_from_replica` (1: the snapshot too).
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
        let buildURL = environment["STRATA_POSTGRES_BUILD_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? url

        var figures: [String: Double] = ["W16.saves": Double(saves)]
        var built = (saves: 0, seconds: 0.0)
        for (name, threshold) in [("log", 0), ("snapshot", 1_000)] {
            let document = "w16-\(name)-\(saves)"
            let written = try build(document, saves: saves, url: buildURL, compactionThreshold: threshold)
            built = (built.saves + written.saves, built.seconds + written.seconds)
            let (seconds, reads) = try open(document, url: url, saves: saves)
            figures["W16.open_\(name)_s"] = seconds
            if !(try PostgresLocation(url, document: document).replicas.isEmpty) {
                figures["W16.\(name)_replica_share_percent"] = 100 * reads.replicaShare
                if name == "snapshot" { figures["W16.snapshot_from_replica"] = Double(reads.snapshotsFromReplicas) }
            }
            note("W16 strata: \(document) (\(saves) saves) opened and counted in \(String(format: "%.3f", seconds)) s")
        }
        if built.saves > 0 { figures["W16.build_saves_per_s"] = Double(built.saves) / max(built.seconds, 1e-9) }
        return figures
        #endif
    }

    #if STRATA_BENCH_POSTGRES
    /// Appends to `document` until it holds `saves` saves (nothing when it does): each save
    /// one employee and the shared department renamed. Returns what it wrote and how long.
    private static func build(_ document: String, saves: Int, url: String, compactionThreshold: Int) throws -> (saves: Int, seconds: Double) {
        let remote = try PostgresSegmentRemote(url: url, document: document)
        let existing = try remote.document()?.lastSequence ?? 0
        remote.close()
        guard existing < Int64(saves) else { return (0, 0) }
        let model = BenchData.model()
        var configuration = PostgresDocumentStore.Configuration()
        configuration.createsDocument = true
        configuration.listensForRemoteChanges = false
        configuration.serverCompactionThreshold = compactionThreshold
        let store = try PostgresDocumentStore(location: PostgresLocation(url, document: document), model: model, configuration: configuration)
        defer { try? store.close() }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        var department: ManagedObject
        if let found = try context.fetch(FetchRequest(entityName: "Department")).first {
            department = found
        } else {
            department = try context.insertObject(forEntityName: "Department")
        }
        let start = Clock.now
        var lastNote = start
        let toWrite = saves - Int(existing)
        for number in 1...toWrite {
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
                    throw BenchFailure("W16: the department vanished from \(document)")
                }
                department = again
            }
            if Clock.seconds(since: lastNote) > 10 {
                lastNote = Clock.now
                let rate = Double(number) / Clock.seconds(since: start)
                note("W16: building \(document): \(number) of \(toWrite) saves, \(Int(rate))/s, about \(Int(Double(toWrite - number) / rate)) s left")
            }
        }
        return (toWrite, Clock.seconds(since: start))
    }

    /// Opens `document` with a new store (listening, as an application's would), counts its
    /// employees, and closes it; the time from the first connection to the count, and what
    /// the open read from replicas and from the primary.
    private static func open(_ document: String, url: String, saves: Int) throws -> (seconds: Double, reads: PostgresDocumentStore.ServerReads) {
        let model = BenchData.model()
        let start = Clock.now
        let store = try PostgresDocumentStore(location: PostgresLocation(url, document: document), model: model)
        defer { try? store.close() }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        let count = try context.count(for: FetchRequest(entityName: "Employee"))
        let seconds = Clock.seconds(since: start)
        guard count == saves else { throw BenchFailure("W16: \(document) holds \(count) employees, not \(saves)") }
        return (seconds, store.serverReads)
    }
    #endif
}
