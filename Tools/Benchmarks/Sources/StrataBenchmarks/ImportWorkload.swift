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
///
/// W8b is the plain case: the same CSV into a model and a table without indexes
/// (`W8b.import_s`, `W8b.peak_mib`), where nothing but the rows is written.
enum ImportWorkload {
    static let header = "firstName,lastName,salary,employeeID,startDate,email,active"

    /// The model of the Strata document: the CSV's columns, indexed like the peers' tables
    /// (W8b: none indexed).
    static func model(indexed: Bool = true) throws -> ManagedObjectModel {
        let employee = EntityDescription("Employee", attributes: [
            AttributeDescription("firstName", .string),
            AttributeDescription("lastName", .string, isIndexed: indexed),
            AttributeDescription("salary", .integer64, isIndexed: indexed),
            AttributeDescription("employeeID", .integer32, isIndexed: indexed),
            AttributeDescription("startDate", .date),
            AttributeDescription("email", .string),
            AttributeDescription("active", .boolean),
        ])
        return try ManagedObjectModel(entities: [employee], versionIdentifier: "bench-import-1")
    }

    static let table = """
        CREATE TABLE Employee (firstName TEXT, lastName TEXT, salary INTEGER, employeeID INTEGER,
                               startDate TEXT, email TEXT, active TEXT);
        """
    static let schema = table + """

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
        let url = env.file("w8.strata")
        let count = env.tier.objects
        let imported = try importWithStrata(env, into: url)
        let fetched = try TimedProcess.run(try TimedProcess.strataTool(), ["fetch", url.path, "Employee", "--where", "employeeID == \(probe(count))",
                                                                          "--format", "json"], expecting: "e\(probe(count))@example.com")
        return figures(imported.seconds, fetched.seconds, peak: max(imported.peakMiB, fetched.peakMiB))
    }

    /// W8b: `strata import` into a document whose model has no index.
    static func runStrataPlain(_ env: BenchEnvironment) throws -> [String: Double] {
        let imported = try importWithStrata(env, into: env.file("w8b.strata"), indexed: false)
        return ["W8b.import_s": imported.seconds, "W8b.peak_mib": imported.peakMiB]
    }

    /// W8b's peer: the shell's `.import` into a table without indexes.
    static func runSQLiteShellPlain(_ env: BenchEnvironment) throws -> [String: Double] {
        let imported = try importWithShell(env, into: env.file("w8b-shell.sqlite"), schema: table)
        return ["W8b.import_s": imported.seconds, "W8b.peak_mib": imported.peakMiB]
    }

    /// A new document at `url` (not timed) and `strata import` of the CSV into it (W8b,
    /// W13 and W14 start from it).
    @discardableResult
    static func importWithStrata(_ env: BenchEnvironment, into url: URL, indexed: Bool = true) throws -> TimedProcess.Outcome {
        let csv = try ensureCSV(env)
        let store = try DocumentStore(creatingAt: url, model: try model(indexed: indexed), overwrite: true)
        try store.close()
        return try TimedProcess.run(try TimedProcess.strataTool(), ["import", url.path, csv.path, "--entity", "Employee"])
    }

    /// A new database at `url` with `schema` (not timed), with Strata's durability
    /// settings, and the shell's `.import` of the CSV into it.
    @discardableResult
    static func importWithShell(_ env: BenchEnvironment, into url: URL, schema: String) throws -> TimedProcess.Outcome {
        let csv = try ensureCSV(env)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        try TimedProcess.run("/usr/bin/env", ["sqlite3", url.path, "PRAGMA journal_mode=WAL;", schema])
        return try TimedProcess.run("/usr/bin/env", ["sqlite3", url.path, "PRAGMA synchronous=FULL;", ".mode csv",
                                                     ".import --skip 1 \(csv.path) Employee"])
    }

    static func runSQLiteShell(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = env.file("w8-shell.sqlite")
        let count = env.tier.objects
        let imported = try importWithShell(env, into: url, schema: schema)
        let fetched = try TimedProcess.run("/usr/bin/env", ["sqlite3", url.path, "SELECT * FROM Employee WHERE employeeID = \(probe(count));"],
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
}
