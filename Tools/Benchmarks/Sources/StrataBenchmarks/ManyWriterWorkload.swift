import Foundation
import Strata
#if STRATA_BENCH_POSTGRES
import StrataPostgres
#endif

/// W11 many writers, one PostgreSQL document: 8 writer processes on this machine
/// (``ManyWriterProcess``) save into one document through PostgresDocumentStore at once,
/// every save changing one record they all change. Uses the server at
/// `STRATA_POSTGRES_URL`, else starts a throwaway one with Tools/postgres-server (and
/// stops it). Saves per writer: 15 (quick tier), 100 (full).
///
/// Figures: `W11.saves_per_s` (all saves / from the go to the last save's return),
/// `W11.saves_per_s_per_writer` (median of each writer's own rate), `W11.conflicts` (saves
/// that met a conflict under `.error` and were retried under object trump),
/// `W11.conflict_percent`, `W11.reach_median_ms` and `W11.reach_p99_ms` (from a save's
/// return in its writer to another writer's store announcing it, over every pair),
/// `W11.failed`, `W11.unseen` (arrivals not announced before the writers stopped waiting:
/// expected 0), `W11.writers`, `W11.saves`, `W11.followers` (``followers``), and with
/// `replica=` items in the URL `W11.writer_replica_share_percent` and
/// `W11.follower_replica_share_percent` (the segment reads their replicas served).
enum ManyWriterWorkload {
    static let writers = 8

    /// Followers: stores that open the document and only take in the writers' saves, as
    /// people watching a document do (`STRATA_W11_FOLLOWERS`, default 0; Tools/network-bench
    /// adds 8 on its replica runs, since a writer's own saves read what it must see from
    /// the primary and only a follower's catch-ups show what replicas take off it).
    static var followers: Int {
        ProcessInfo.processInfo.environment["STRATA_W11_FOLLOWERS"].flatMap { Int($0) }.map { max(0, min($0, 64)) } ?? 0
    }

    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        #if !STRATA_BENCH_POSTGRES
        throw BenchFailure("W11 needs PostgreSQL: build the benchmarks with STRATA_POSTGRES=1 (Tools/Benchmarks/run does; docs/POSTGRES.md)")
        #else
        let saves = ["smoke": 3, "quick": 15][env.tier.name] ?? 100
        let given = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        let url = try given ?? startServer()
        defer { if given == nil { stopServer(url) } }

        let document = "w11-\(UUID().uuidString.prefix(8))"
        let model = BenchData.model()
        do {
            let store = try PostgresDocumentStore(url: url, document: document, model: model, createIfMissing: true)
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addStore(store)
            let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
            try context.insertObject(forEntityName: "Department").setValue(.string("Shared"), forKey: "name")
            try context.save()
            try store.close()
        }
        let directory = env.dataDirectory.appendingPathComponent(document)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let outputs = Locked<[Int: String]>([:])
        let followers = Self.followers
        let processes = try (0..<(writers + followers)).map { index -> Process in
            let process = Process()
            process.executableURL = ChildProcess.executable
            let (name, own) = index < writers ? ("W\(index)", saves) : ("F\(index - writers)", 0)
            process.arguments = ["--w11-writer", url, document, name, String(own), String(writers * saves), directory.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.standardError
            try process.run()
            // Read on a thread of its own: a full pipe would stop the writer.
            Thread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                outputs.withLock { $0[index] = String(decoding: data, as: UTF8.self) }
            }.start()
            return process
        }
        // Go once every writer has opened the document (the limit bounds a hang).
        let limit = Date().addingTimeInterval(120)
        while (try? FileManager.default.contentsOfDirectory(atPath: directory.path).count) ?? 0 < processes.count {
            guard Date() < limit, processes.allSatisfy(\.isRunning) else {
                processes.forEach { $0.terminate() }
                throw BenchFailure("W11: the writers did not all open the document")
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("go").path, contents: nil)
        let go = Date().timeIntervalSince1970
        for process in processes { process.waitUntilExit() }
        while outputs.withLock({ $0.count }) < processes.count { Thread.sleep(forTimeInterval: 0.005) }
        for (index, process) in processes.enumerated() where process.terminationStatus != 0 {
            throw BenchFailure("W11: writer \(index) exited with status \(process.terminationStatus)")
        }
        return try figures(outputs.withLock { $0 }, saves: saves, followers: followers, go: go)
        #endif
    }

    /// The figures from the writers' output lines.
    static func figures(_ outputs: [Int: String], saves: Int, followers: Int, go: Double) throws -> [String: Double] {
        var acknowledged: [Int64: Double] = [:]
        var conflicts = 0, failed = 0
        // Segment reads from replicas and from the primary: the writers', the followers'.
        var reads = [(replicas: 0, primary: 0), (replicas: 0, primary: 0)]
        var perWriter: [Double] = []
        var reach: [Double] = []
        var seen: [(Int64, Double)] = []
        for index in 0..<(writers + followers) {
            for line in (outputs[index] ?? "").split(separator: "\n") {
                let parts = line.split(separator: " ")
                switch parts.first {
                case "ack": acknowledged[Int64(parts[1]) ?? -1] = Double(parts[2]) ?? 0
                case "conflict": conflicts += 1
                case "failed": failed += 1
                case "seen": seen.append((Int64(parts[1]) ?? -1, Double(parts[2]) ?? 0))
                case "done" where index < writers: perWriter.append(Double(saves) / max(Double(parts[1]) ?? 0, 1e-9))
                case "reads" where parts.count == 3:
                    let kind = index < writers ? 0 : 1
                    reads[kind].replicas += Int(parts[1]) ?? 0
                    reads[kind].primary += Int(parts[2]) ?? 0
                default: break
                }
            }
        }
        for (key, time) in seen {
            guard let saved = acknowledged[key] else { continue }
            reach.append((time - saved) * 1000)
        }
        // Every save should reach the 7 other writers and every follower; what did not
        // within their wait is reported (W11.unseen), not hidden in the percentiles.
        let unseen = acknowledged.count * (writers - 1 + followers) - reach.count
        guard !reach.isEmpty else { throw BenchFailure("W11: no writer saw another's save") }
        let last = acknowledged.values.max() ?? go
        reach.sort()
        perWriter.sort()
        note("W11 strata: \(writers) writers × \(saves) saves, \(followers) followers, \(conflicts) conflicts, \(failed) failed, \(unseen) unseen; reach median \(reach[reach.count / 2]) ms")
        var figures = [
            "W11.saves_per_s": Double(acknowledged.count) / max(last - go, 1e-9),
            "W11.saves_per_s_per_writer": perWriter[perWriter.count / 2],
            "W11.conflicts": Double(conflicts),
            "W11.conflict_percent": 100 * Double(conflicts) / Double(max(acknowledged.count, 1)),
            "W11.reach_median_ms": reach[reach.count / 2],
            "W11.reach_p99_ms": reach[min(reach.count - 1, Int((Double(reach.count) * 0.99).rounded(.up)) - 1)],
            "W11.failed": Double(failed),
            "W11.unseen": Double(unseen),
            "W11.writers": Double(writers),
            "W11.saves": Double(acknowledged.count),
        ]
        if followers > 0 { figures["W11.followers"] = Double(followers) }
        // With replicas in the URL: the share of segment reads the replicas served — the
        // writers' (their catch-ups, and what saves read inside their transactions, which
        // is always the primary's) and the followers' (catch-ups only).
        for (kind, name) in [(0, "writer"), (1, "follower")] where reads[kind].replicas > 0 {
            figures["W11.\(name)_replica_share_percent"] = 100 * Double(reads[kind].replicas) / Double(reads[kind].replicas + reads[kind].primary)
        }
        return figures
    }

    /// Starts Tools/postgres-server (the run script works from the repository's root).
    static func startServer() throws -> String {
        let (status, output) = shell(["bash", "Tools/postgres-server"])
        let url = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, url.hasPrefix("postgres://") else {
            throw BenchFailure("W11: Tools/postgres-server failed (status \(status)); install PostgreSQL "
                               + "(bash Tools/install-deps.sh postgresql) or set STRATA_POSTGRES_URL. \(output)")
        }
        return url
    }

    static func stopServer(_ url: String) {
        _ = shell(["bash", "Tools/postgres-server", "stop", url])
    }

    /// Runs a shell command through popen: Foundation's Process did not see the script
    /// exit in this child process (it stayed a zombie), so the wait is libc's.
    private static func shell(_ arguments: [String]) -> (Int32, String) {
        guard let pipe = popen(arguments.map { "'\($0)'" }.joined(separator: " "), "r") else { return (-1, "popen failed") }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        let status = pclose(pipe)
        return (status == 0 ? 0 : max(1, status >> 8), String(decoding: output, as: UTF8.self))
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
