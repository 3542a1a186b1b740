import Foundation

/// The raw SQLite peer: the same tables and indexes as Strata's snapshot (Employee with
/// indexes on lastName, salary, employeeID and the department foreign key — Strata indexes
/// to-one keys, as GRDB's `belongsTo` does; Department), prepared statements, one
/// transaction, WAL + synchronous=FULL.
enum RawSQLitePeer {
    static let schema = """
        CREATE TABLE Department (id INTEGER PRIMARY KEY, name TEXT);
        CREATE INDEX Department_name ON Department (name);
        CREATE TABLE Employee (id INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT, salary INTEGER,
                               employeeID INTEGER, startDate REAL, department INTEGER);
        CREATE INDEX Employee_lastName ON Employee (lastName);
        CREATE INDEX Employee_salary ON Employee (salary);
        CREATE INDEX Employee_employeeID ON Employee (employeeID);
        CREATE INDEX Employee_department ON Employee (department);
        """

    static func documentURL(_ env: BenchEnvironment) -> URL { env.file("w1-raw.sqlite") }

    /// W1: `W1.insert_s` (the insert loop), `W1.commit_s`, `W1.insert_save_s` (both),
    /// `W5.rows_per_s` (rows written per second, commit included),
    /// `W7.snapshot_bytes_per_object` (vacuumed file / employees).
    static func bulkCreate(_ env: BenchEnvironment) throws -> [String: Double] {
        let count = env.tier.objects
        let url = documentURL(env)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        var figures: [String: Double] = [:]
        do {
            let db = try RawSQLite(path: url.path)
            try db.useDocumentDurability()
            try db.execute(schema)
            let start = Clock.now
            try db.execute("BEGIN")
            try db.insertW1Departments()
            let insert = try db.prepareW1EmployeeInsert()
            for index in 0..<count { try db.insertW1Employee(insert, index: index, count: count) }
            let insertSeconds = Clock.seconds(since: start)
            let (_, commitSeconds) = try Clock.measure { try db.execute("COMMIT") }
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            figures["W1.insert_s"] = insertSeconds
            figures["W1.commit_s"] = commitSeconds
            figures["W1.insert_save_s"] = insertSeconds + commitSeconds
            figures["W5.rows_per_s"] = Double(count) / (insertSeconds + commitSeconds)
            figures["W1.peak_mib"] = peakMemoryMiB()
        }
        figures.merge(try RawSQLite.sizeFigures(of: url, copy: env.file("w7-raw-size.sqlite"), count: count)) { $1 }
        return figures
    }

    static func ensureDocument(_ env: BenchEnvironment) throws -> URL {
        let url = documentURL(env)
        if !FileManager.default.fileExists(atPath: url.path) { _ = try bulkCreate(env) }
        return url
    }

    /// W3: one row update committed per save (autocommit, WAL + FULL), on a copy of the
    /// W1 database.
    static func smallSave(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = env.file("w3-raw.sqlite")
        try SmallSaveWorkload.copyDatabase(try ensureDocument(env), to: url)
        let db = try RawSQLite(path: url.path)
        try db.useDocumentDurability()
        let update = try db.prepare("UPDATE Employee SET salary = ? WHERE id = ?")
        var times: [Double] = []
        for save in 0..<env.tier.smallSaves {
            let start = Clock.now
            update.bind(1, Int64(30_000 + save))
            update.bind(2, Int64(env.tier.objects / 2 + 1))
            try update.step()
            update.reset()
            times.append(Clock.seconds(since: start))
        }
        return SmallSaveWorkload.figures(times)
    }

    /// W4: open, then the equality fetch (20 rows) and the prefix + range fetch (100 rows,
    /// sorted), reading every column of each row.
    static func openRead(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = try ensureDocument(env)
        let probe = BenchData.probeLastName(count: env.tier.objects)
        let start = Clock.now
        let db = try RawSQLite(path: url.path)
        try db.useDocumentDurability()
        let openSeconds = Clock.seconds(since: start)
        let columns = "id, firstName, lastName, salary, employeeID, startDate, department"
        let equal = try db.prepare("SELECT \(columns) FROM Employee WHERE lastName = ? ORDER BY id")
        equal.bind(1, probe)
        let first = try readRows(equal)
        let firstSeconds = Clock.seconds(since: start)
        let prefixStart = Clock.now
        let prefix = try db.prepare("""
            SELECT \(columns) FROM Employee WHERE lastName LIKE 'q%' AND salary > 50000
            ORDER BY lastName, id LIMIT 100
            """)
        let second = try readRows(prefix)
        let prefixSeconds = Clock.seconds(since: prefixStart)
        note("W4 sqlite: \(first) and \(second) rows")
        return ["W4.open_s": openSeconds, "W4.first_result_s": firstSeconds, "W4.equality_s": firstSeconds - openSeconds,
                "W4.prefix_s": prefixSeconds, "W4.rows": Double(first + second), "W4.peak_mib": peakMemoryMiB()]
    }

    /// Steps an employee query (W4, W12) to its end, reading every column; the rows read.
    static func readRows(_ statement: RawSQLite.Statement) throws -> Int {
        var rows = 0
        var checksum = 0
        while try statement.step() {
            checksum &+= Int(statement.int64(0)) &+ statement.text(1).utf8.count &+ statement.text(2).utf8.count
            checksum &+= Int(statement.int64(3)) &+ Int(statement.int64(4)) &+ Int(statement.double(5)) &+ Int(statement.int64(6))
            rows += 1
        }
        blackHole(checksum)
        return rows
    }
}

/// Keeps a value alive so the optimizer cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
