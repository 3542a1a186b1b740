import Foundation
import GRDB
import Strata

/// W12 fetch everything: opens W1's document and fetches every employee (quick tier
/// 20,000; full 1,000,000) in ID order, reading every attribute of each — the ID and the six
/// columns (first and last name, salary, employee ID, start date, department). Issue 36's
/// read path (docs/ARCHITECTURE.md, "Reads: one pass from SQL to objects").
///
/// Subjects: Strata as objects (`returnsObjectsAsFaults = false`) and as dictionaries
/// (`fetchDictionaries`), GRDB as Codable records (`fetchAll`) and as rows (`Row.fetchAll`,
/// the GRDB statements column), raw SQLite stepping a prepared statement.
/// Figures: `W12.fetch_s` (open excluded), `W12.rows`, `W12.peak_mib`.
enum FetchAllWorkload {
    private static let keys = ["firstName", "lastName", "salary", "employeeID", "startDate", "department"]

    /// What the checksum adds for a value: what the GRDB and SQLite subjects add for the same
    /// column (a string's UTF-8 length, a number, a date's seconds, a to-one's key), so each
    /// subject does the same work per value read — not a hash of the value, which costs more
    /// than reading it.
    private static func weight(_ value: PropertyValue) -> Int {
        switch value {
        case .string(let text): return text.utf8.count
        case .integer(let number): return Int(truncatingIfNeeded: number)
        case .double(let number): return Int(number)
        case .date(let date): return Int(date.timeIntervalSinceReferenceDate)
        case .object(let id): return Int(truncatingIfNeeded: id.primaryKey)
        default: return value.isNull ? 0 : 1
        }
    }

    static func runStrataObjects(_ env: BenchEnvironment) throws -> [String: Double] {
        try runStrata(env) { context in
            let request = FetchRequest(entityName: "Employee")
            request.returnsObjectsAsFaults = false
            let objects = try context.fetch(request)
            var checksum = 0
            for object in objects {
                checksum &+= Int(object.objectID.primaryKey)
                for key in keys { checksum &+= weight(try object.value(forKey: key)) }
            }
            blackHole(checksum)
            return objects.count
        }
    }

    static func runStrataDictionaries(_ env: BenchEnvironment) throws -> [String: Double] {
        try runStrata(env) { context in
            let request = FetchRequest(entityName: "Employee")
            request.resultType = .dictionary
            let rows = try context.fetchDictionaries(request)
            var checksum = 0
            for row in rows {
                for key in keys { checksum &+= row[key].map(weight) ?? 0 }
            }
            blackHole(checksum)
            return rows.count
        }
    }

    private static func runStrata(_ env: BenchEnvironment, _ fetch: (ManagedObjectContext) throws -> Int) throws -> [String: Double] {
        let url = try BulkCreateWorkload.ensureStrataDocument(env)
        let model = BenchData.model()
        let store = try DocumentStore(openingAt: url, model: model)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        let (count, seconds) = try Clock.measure { try fetch(context) }
        note("W12 strata: \(count) employees")
        let peak = peakMemoryMiB()
        try store.close()
        return ["W12.fetch_s": seconds, "W12.rows": Double(count), "W12.peak_mib": peak]
    }

    static func runGRDBRecords(_ env: BenchEnvironment) throws -> [String: Double] {
        let pool = try GRDBPeer.open(try GRDBPeer.ensureDocument(env))
        let (count, seconds) = try Clock.measure { () -> Int in
            let employees = try pool.read { db in try GRDBPeer.Employee.order(Column("id")).fetchAll(db) }
            var checksum = 0
            for employee in employees {
                checksum &+= Int(employee.id) &+ employee.firstName.utf8.count &+ employee.lastName.utf8.count
                checksum &+= Int(employee.salary) &+ Int(employee.employeeID) &+ Int(employee.startDate) &+ Int(employee.department)
            }
            blackHole(checksum)
            return employees.count
        }
        note("W12 grdb records: \(count) rows")
        return ["W12.fetch_s": seconds, "W12.rows": Double(count), "W12.peak_mib": peakMemoryMiB()]
    }

    static func runGRDBRows(_ env: BenchEnvironment) throws -> [String: Double] {
        let pool = try GRDBPeer.open(try GRDBPeer.ensureDocument(env))
        let (count, seconds) = try Clock.measure { () -> Int in
            let rows = try pool.read { db in
                try Row.fetchAll(db, sql: "SELECT id, firstName, lastName, salary, employeeID, startDate, department FROM Employee ORDER BY id")
            }
            var checksum = 0
            for row in rows {
                let first: String = row[1]
                let last: String = row[2]
                let salary: Int64 = row[3]
                let number: Int64 = row[4]
                let start: Double = row[5]
                let department: Int64 = row[6]
                checksum &+= Int(row[0] as Int64) &+ first.utf8.count &+ last.utf8.count
                checksum &+= Int(salary) &+ Int(number) &+ Int(start) &+ Int(department)
            }
            blackHole(checksum)
            return rows.count
        }
        note("W12 grdb rows: \(count) rows")
        return ["W12.fetch_s": seconds, "W12.rows": Double(count), "W12.peak_mib": peakMemoryMiB()]
    }

    static func runSQLite(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = try RawSQLitePeer.ensureDocument(env)
        let db = try RawSQLite(path: url.path)
        try db.useDocumentDurability()
        let (count, seconds) = try Clock.measure { () -> Int in
            try RawSQLitePeer.readRows(db.prepare("SELECT id, firstName, lastName, salary, employeeID, startDate, department FROM Employee ORDER BY id"))
        }
        note("W12 sqlite: \(count) rows")
        return ["W12.fetch_s": seconds, "W12.rows": Double(count), "W12.peak_mib": peakMemoryMiB()]
    }
}
