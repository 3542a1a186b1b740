import Foundation
import GRDB
import Strata

/// W8 import: a CSV of `objects` rows with seven columns (Employee-like: lastName, salary
/// and employeeID indexed) turned into a queryable document — the import, whatever folding
/// it needs, and the first indexed fetch — by Strata's `strata import` (the release tool,
/// its path in `STRATA_BENCH_STRATA`), the `sqlite3` shell's `.import` into a table created
/// first with the same indexes, and GRDB inserting the same rows with one prepared statement.
///
/// Figures: `W8.import_s` (the import command, or GRDB's read + insert + commit),
/// `W8.fetch_s` (the first indexed fetch, a new process for the tools), `W8.total_s`, and
/// `W8.peak_mib` (the largest child process's peak for the tools; GRDB's own process).
enum ImportWorkload {
    static let header = "firstName,lastName,salary,employeeID,startDate,email,active"

    /// The model of the Strata document: the CSV's columns, indexed like the peers' tables.
    static func model() throws -> ManagedObjectModel {
        let employee = EntityDescription("Employee", attributes: [
            AttributeDescription("firstName", .string),
            AttributeDescription("lastName", .string, isIndexed: true),
            AttributeDescription("salary", .integer64, isIndexed: true),
            AttributeDescription("employeeID", .integer32, isIndexed: true),
            AttributeDescription("startDate", .date),
            AttributeDescription("email", .string),
            AttributeDescription("active", .boolean),
        ])
        return try ManagedObjectModel(entities: [employee], versionIdentifier: "bench-import-1")
    }

    static let schema = """
        CREATE TABLE Employee (firstName TEXT, lastName TEXT, salary INTEGER, employeeID INTEGER,
                               startDate TEXT, email TEXT, active TEXT);
        CREATE INDEX Employee_lastName ON Employee (lastName);
        CREATE INDEX Employee_salary ON Employee (salary);
        CREATE INDEX Employee_employeeID ON Employee (employeeID);
        """

    /// The probe of the first indexed fetch: the employee in the middle.
    static func probe(_ count: Int) -> Int { count / 2 }

    /// Writes the CSV once per tier size (the units share it).
    static func ensureCSV(_ env: BenchEnvironment) throws -> URL {
        let url = env.file("w8.csv")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        let count = env.tier.objects
        let partial = URL(fileURLWithPath: url.path + ".partial")
        _ = FileManager.default.createFile(atPath: partial.path, contents: nil)
        let handle = try FileHandle(forWritingTo: partial)
        var text = header + "\n"
        for index in 0..<count {
            let date = Date(timeIntervalSinceReferenceDate: BenchData.startDate(index)).formatted(.iso8601)
            text += "\(BenchData.firstName(index)),\(BenchData.lastName(index, count: count)),\(BenchData.salary(index)),"
                + "\(index),\(date),e\(index)@example.com,\(index % 3 != 0)\n"
            if text.utf8.count > 1 << 20 { try handle.write(contentsOf: Data(text.utf8)); text = "" }
        }
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
        try FileManager.default.moveItem(at: partial, to: url)
        return url
    }

    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        guard let tool = ProcessInfo.processInfo.environment["STRATA_BENCH_STRATA"] else {
            throw ChildProcess.Failure(description: "STRATA_BENCH_STRATA (the release `strata` tool) is not set")
        }
        let csv = try ensureCSV(env)
        let url = env.file("w8.strata")
        let store = try DocumentStore(creatingAt: url, model: try model(), overwrite: true)
        try store.close()
        let count = env.tier.objects
        let imported = try timedRun(tool, ["import", url.path, csv.path, "--entity", "Employee"])
        let fetched = try timedRun(tool, ["fetch", url.path, "Employee", "--where", "employeeID == \(probe(count))", "--format", "json"],
                                   expecting: "e\(probe(count))@example.com")
        return figures(imported.seconds, fetched.seconds, peak: max(imported.peakMiB, fetched.peakMiB))
    }

    static func runSQLiteShell(_ env: BenchEnvironment) throws -> [String: Double] {
        let csv = try ensureCSV(env)
        let url = env.file("w8-shell.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        // The table and its indexes first (not timed), with Strata's durability settings.
        _ = try timedRun("/usr/bin/env", ["sqlite3", url.path, "PRAGMA journal_mode=WAL;", schema])
        let count = env.tier.objects
        let imported = try timedRun("/usr/bin/env", ["sqlite3", url.path, "PRAGMA synchronous=FULL;", ".mode csv",
                                                     ".import --skip 1 \(csv.path) Employee"])
        let fetched = try timedRun("/usr/bin/env", ["sqlite3", url.path, "SELECT * FROM Employee WHERE employeeID = \(probe(count));"],
                                   expecting: "e\(probe(count))@example.com")
        return figures(imported.seconds, fetched.seconds, peak: max(imported.peakMiB, fetched.peakMiB))
    }

    static func runGRDB(_ env: BenchEnvironment) throws -> [String: Double] {
        let csv = try ensureCSV(env)
        let url = env.file("w8-grdb.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        let pool = try GRDBPeer.open(url)
        try pool.write { db in try db.execute(sql: schema) }
        let count = env.tier.objects
        let (_, importSeconds) = try Clock.measure {
            try pool.write { db in
                let insert = try db.makeStatement(sql: "INSERT INTO Employee VALUES (?, ?, ?, ?, ?, ?, ?)")
                try forEachLine(of: csv) { fields in
                    guard fields.count == 7, let salary = Int64(fields[2]), let id = Int64(fields[3]) else { return }
                    try insert.execute(arguments: [String(fields[0]), String(fields[1]), salary, id,
                                                   String(fields[4]), String(fields[5]), String(fields[6])])
                }
            }
        }
        let (rows, fetchSeconds) = try Clock.measure {
            try pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM Employee WHERE employeeID = ?", arguments: [probe(count)]) }
        }
        guard rows.count == 1 else { throw ChildProcess.Failure(description: "GRDB found \(rows.count) rows for the probe") }
        return figures(importSeconds, fetchSeconds, peak: peakMemoryMiB())
    }

    /// Calls `body` with the fields of every line after the header (the file has no quotes),
    /// reading 1 MiB at a time.
    private static func forEachLine(of url: URL, _ body: ([Substring]) throws -> Void) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var pending = ""
        var isHeader = true
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
            pending += String(decoding: data, as: UTF8.self)
            guard let last = pending.lastIndex(of: "\n") else { continue }
            for line in pending[..<last].split(separator: "\n") {
                if isHeader { isHeader = false; continue }
                try body(line.split(separator: ",", omittingEmptySubsequences: false))
            }
            pending = String(pending[pending.index(after: last)...])
        }
    }

    private static func figures(_ importSeconds: Double, _ fetchSeconds: Double, peak: Double) -> [String: Double] {
        ["W8.import_s": importSeconds, "W8.fetch_s": fetchSeconds, "W8.total_s": importSeconds + fetchSeconds, "W8.peak_mib": peak]
    }

    /// Runs a program to completion and returns its wall-clock seconds and its peak
    /// resident memory (its own `VmHWM`, read every 10 ms on another thread while it runs,
    /// so that the timing does not wait for a poll; ``ProcessMemory`` says why not
    /// `ru_maxrss`); fails on a non-zero status or when its output lacks `expecting`.
    @discardableResult
    private static func timedRun(_ program: String, _ arguments: [String],
                                 expecting: String? = nil) throws -> (seconds: Double, peakMiB: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        // The end is taken when Foundation sees the exit, not when `waitUntilExit` returns:
        // that wait returned tens of milliseconds late, most of a first fetch's time (the
        // shell's indexed fetch read 54 ms; it takes 11).
        let ended = EndTime()
        process.terminationHandler = { _ in ended.mark() }
        let start = Clock.now
        try process.run()
        // `/usr/bin/env` execs the program in the same process, so its pid is the program's.
        let watcher = ProcessMemory.PeakWatcher(pid: process.processIdentifier)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = ended.seconds(since: start)
        let peakKiB = watcher.stop()
        guard process.terminationStatus == 0 else {
            throw ChildProcess.Failure(description: "\(arguments.prefix(2).joined(separator: " ")): exit status \(process.terminationStatus)")
        }
        if let expecting, !String(decoding: data, as: UTF8.self).contains(expecting) {
            throw ChildProcess.Failure(description: "\(arguments.prefix(2).joined(separator: " ")): the result lacks \(expecting)")
        }
        return (seconds, Double(peakKiB) / 1024)
    }

    /// When a child's exit was seen (set on Foundation's monitoring thread).
    private final class EndTime: @unchecked Sendable {
        private let lock = NSLock()
        private var end: UInt64?

        func mark() { lock.withLock { end = Clock.now } }

        /// Seconds from `start` to the exit (to now, if the exit was not seen yet).
        func seconds(since start: UInt64) -> Double {
            let end = lock.withLock { self.end } ?? Clock.now
            return Double(end - start) / 1e9
        }
    }
}
