import Foundation
import GRDB

/// The GRDB.swift peer: a `DatabasePool` (WAL) with synchronous=FULL and Strata's page
/// cache size on every connection, the same tables
/// and indexes as the raw SQLite peer, written through Codable records (`insert(db)`) or
/// through raw prepared statements.
enum GRDBPeer {
    struct Employee: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "Employee"
        var id: Int64
        var firstName: String
        var lastName: String
        var salary: Int64
        var employeeID: Int64
        var startDate: Double
        var department: Int64
    }

    struct Department: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "Department"
        var id: Int64
        var name: String
    }

    static func documentURL(_ env: BenchEnvironment, records: Bool) -> URL {
        env.file(records ? "w1-grdb-records.sqlite" : "w1-grdb-statements.sqlite")
    }

    /// A pool whose writer uses synchronous=FULL (GRDB sets NORMAL when it enables WAL,
    /// after `prepareDatabase`, so the setting is made on the writer afterwards and checked).
    static func open(_ url: URL) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = \(RawSQLite.cacheSizePragma)") }
        let pool = try DatabasePool(path: url.path, configuration: configuration)
        let synchronous = try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            return try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        guard synchronous == 2 else { throw RawSQLite.Failure(description: "GRDB: synchronous is \(synchronous ?? -1), not FULL") }
        return pool
    }

    static func employee(_ index: Int, count: Int) -> Employee {
        Employee(id: Int64(index + 1), firstName: BenchData.firstName(index), lastName: BenchData.lastName(index, count: count),
                 salary: BenchData.salary(index), employeeID: Int64(index), startDate: BenchData.startDate(index),
                 department: Int64(BenchData.department(index) + 1))
    }

    /// W1 through records or statements: `W1.insert_save_s` (one write transaction,
    /// commit included), `W1.peak_mib`, and (records) `W7.snapshot_bytes_per_object`.
    static func bulkCreate(_ env: BenchEnvironment, records: Bool) throws -> [String: Double] {
        let count = env.tier.objects
        let url = documentURL(env, records: records)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        var figures: [String: Double] = [:]
        do {
            let pool = try open(url)
            try pool.write { db in try db.execute(sql: RawSQLitePeer.schema) }
            let (_, seconds) = try Clock.measure {
                try pool.write { db in
                    if records {
                        for index in 0..<BenchData.departments {
                            try Department(id: Int64(index + 1), name: BenchData.departmentName(index)).insert(db)
                        }
                        for index in 0..<count { try employee(index, count: count).insert(db) }
                    } else {
                        let departments = try db.makeStatement(sql: "INSERT INTO Department (id, name) VALUES (?, ?)")
                        for index in 0..<BenchData.departments {
                            try departments.execute(arguments: [index + 1, BenchData.departmentName(index)])
                        }
                        let insert = try db.makeStatement(sql: """
                            INSERT INTO Employee (id, firstName, lastName, salary, employeeID, startDate, department)
                            VALUES (?, ?, ?, ?, ?, ?, ?)
                            """)
                        for index in 0..<count {
                            try insert.execute(arguments: [
                                index + 1, BenchData.firstName(index), BenchData.lastName(index, count: count),
                                BenchData.salary(index), index, BenchData.startDate(index), BenchData.department(index) + 1,
                            ])
                        }
                    }
                }
            }
            figures["W1.insert_save_s"] = seconds
            figures["W5.rows_per_s"] = Double(count) / seconds
            figures["W1.peak_mib"] = peakMemoryMiB()
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        if records {
            figures.merge(try RawSQLite.sizeFigures(of: url, copy: env.file("w7-grdb-size.sqlite"), count: count)) { $1 }
        }
        return figures
    }

    static func ensureDocument(_ env: BenchEnvironment) throws -> URL {
        let url = documentURL(env, records: true)
        if !FileManager.default.fileExists(atPath: url.path) { _ = try bulkCreate(env, records: true) }
        return url
    }

    /// W3: one record changed and updated (`update(db)`) per write transaction.
    static func smallSave(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = env.file("w3-grdb.sqlite")
        try SmallSaveWorkload.copyDatabase(try ensureDocument(env), to: url)
        let pool = try open(url)
        guard var record = try pool.read({ db in try Employee.fetchOne(db, key: Int64(env.tier.objects / 2 + 1)) }) else {
            throw RawSQLite.Failure(description: "W3 GRDB: no employee \(env.tier.objects / 2 + 1)")
        }
        var times: [Double] = []
        for save in 0..<env.tier.smallSaves {
            record.salary = Int64(30_000 + save)
            let (_, seconds) = try Clock.measure { try pool.write { db in try record.update(db) } }
            times.append(seconds)
        }
        return SmallSaveWorkload.figures(times)
    }

    /// W4: open, then the two fetches as records.
    static func openRead(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = try ensureDocument(env)
        let probe = BenchData.probeLastName(count: env.tier.objects)
        let start = Clock.now
        let pool = try open(url)
        let openSeconds = Clock.seconds(since: start)
        let first = try pool.read { db in
            try Employee.filter(Column("lastName") == probe).order(Column("id")).fetchAll(db)
        }
        let firstSeconds = Clock.seconds(since: start)
        let prefixStart = Clock.now
        let second = try pool.read { db in
            try Employee.filter(sql: "lastName LIKE 'q%'").filter(Column("salary") > 50_000)
                .order(Column("lastName"), Column("id")).limit(100).fetchAll(db)
        }
        let prefixSeconds = Clock.seconds(since: prefixStart)
        note("W4 grdb: \(first.count) and \(second.count) rows")
        return ["W4.open_s": openSeconds, "W4.first_result_s": firstSeconds, "W4.equality_s": firstSeconds - openSeconds,
                "W4.prefix_s": prefixSeconds, "W4.rows": Double(first.count + second.count), "W4.peak_mib": peakMemoryMiB()]
    }
}
