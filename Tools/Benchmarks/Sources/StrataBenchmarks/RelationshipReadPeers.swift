import Foundation
import GRDB

/// W4x's peers (RelationshipReadWorkload): the same 100 employees, their departments and
/// skills, from the same tables (RelationshipReadData's SQLite database), each round on a
/// fresh connection, as Strata's opens its document afresh.
///
/// Raw SQLite reads as a hand-written app would: one statement joining each employee's
/// department, then one for the skills of all of them (`employee IN (?, …)`). GRDB uses
/// Codable records with associations: `including(required:)` the department (a join) and
/// `including(all:)` the skills (GRDB's second statement). Figures as Strata's.
///
/// The peers select the employees with the range `lastName >= 'Q' AND lastName < 'R'`, the
/// same rows as W4's `LIKE 'q%'` (every last name is capitalized, BenchData.lastName): a
/// case-insensitive LIKE cannot use the lastName index, so W4's peers scan the table (50 ms
/// at 1,000,000 rows), while the range walks the index in order and stops at 100, as
/// Strata's query does. W4x compares the relationships' reads, not that.
enum RelationshipReadPeers {
    // MARK: Raw SQLite

    static func runSQLite(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = try RelationshipReadData.ensurePeerDatabase(env)
        ProcessMemory.resetPeak()
        var times: [Double] = []
        var processorTimes: [Double] = []
        var tally = RelationshipReadWorkload.Tally()
        var statements = 0
        for _ in 0..<RelationshipReadWorkload.rounds {
            let db = try RawSQLite(path: url.path)
            try db.useDocumentDurability()
            let start = Clock.now
            let processorStart = Clock.processorNow
            (tally, statements) = try readSQLite(db)
            times.append(Clock.seconds(since: start))
            processorTimes.append(Clock.processorSeconds(since: processorStart))
        }
        blackHole(tally.checksum)
        note("W4x sqlite: \(tally.employees) employees, \(tally.departments.count) departments, \(tally.skills) skills")
        return RelationshipReadWorkload.figures(times: times, processorTimes: processorTimes, tally: tally, statements: statements)
    }

    /// One round: the employees with their departments' names, then their skills; the
    /// tally and the statements run.
    private static func readSQLite(_ db: RawSQLite) throws -> (RelationshipReadWorkload.Tally, Int) {
        var tally = RelationshipReadWorkload.Tally()
        let employees = try db.prepare("""
            SELECT e.id, e.firstName, e.lastName, e.salary, e.employeeID, e.startDate, d.name
            FROM Employee e LEFT JOIN Department d ON d.id = e.department
            WHERE e.lastName >= 'Q' AND e.lastName < 'R' AND e.salary > 50000
            ORDER BY e.lastName, e.id LIMIT 100
            """)
        var ids: [Int64] = []
        while try employees.step() {
            ids.append(employees.int64(0))
            tally.employees += 1
            tally.checksum &+= employees.text(1).utf8.count &+ employees.text(2).utf8.count
            tally.checksum &+= Int(employees.int64(3)) &+ Int(employees.int64(4)) &+ Int(employees.double(5))
            let department = employees.text(6)
            tally.checksum &+= department.utf8.count
            tally.departments.insert(department)
        }
        guard !ids.isEmpty else { return (tally, 1) }
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let skills = try db.prepare("SELECT employee, id, name, level FROM Skill WHERE employee IN (\(placeholders))")
        for (index, id) in ids.enumerated() { skills.bind(Int32(index + 1), id) }
        while try skills.step() {
            tally.checksum &+= skills.text(2).utf8.count &+ Int(skills.int64(3))
            tally.skills += 1
        }
        return (tally, 2)
    }

    // MARK: GRDB

    struct Skill: Codable, FetchableRecord, TableRecord {
        static let databaseTableName = "Skill"
        var id: Int64
        var name: String
        var level: Int64
        var employee: Int64
    }

    /// An employee with its department and skills, decoded from one association request.
    struct EmployeeInfo: Decodable, FetchableRecord {
        var employee: GRDBPeer.Employee
        var departmentRecord: GRDBPeer.Department
        var skillRecords: [Skill]
    }

    // The tables declare no foreign keys (W1's schema): the associations name their columns.
    static var department: BelongsToAssociation<GRDBPeer.Employee, GRDBPeer.Department> {
        GRDBPeer.Employee.belongsTo(GRDBPeer.Department.self, key: "departmentRecord", using: ForeignKey(["department"]))
    }
    static var skills: HasManyAssociation<GRDBPeer.Employee, Skill> {
        GRDBPeer.Employee.hasMany(Skill.self, key: "skillRecords", using: ForeignKey(["employee"]))
    }

    static func runGRDB(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = try RelationshipReadData.ensurePeerDatabase(env)
        ProcessMemory.resetPeak()
        var times: [Double] = []
        var processorTimes: [Double] = []
        var tally = RelationshipReadWorkload.Tally()
        var statements = 0
        for round in 0...RelationshipReadWorkload.rounds {
            let counted = round == RelationshipReadWorkload.rounds
            let pool = try GRDBPeer.open(url)
            let counter = RelationshipReadWorkload.StatementCounter()
            let start = Clock.now
            let processorStart = Clock.processorNow
            let infos = try pool.read { db in
                if counted { db.trace { _ in counter.increment() } }
                defer { if counted { db.trace(options: [], nil) } }
                return try GRDBPeer.Employee.filter(Column("lastName") >= "Q" && Column("lastName") < "R")
                    .filter(Column("salary") > 50_000)
                    .order(Column("lastName"), Column("id")).limit(100)
                    .including(required: department).including(all: skills)
                    .asRequest(of: EmployeeInfo.self).fetchAll(db)
            }
            tally = RelationshipReadWorkload.Tally()
            for info in infos {
                let employee = info.employee
                tally.employees += 1
                tally.checksum &+= employee.firstName.utf8.count &+ employee.lastName.utf8.count
                tally.checksum &+= Int(employee.salary) &+ Int(employee.employeeID) &+ Int(employee.startDate)
                tally.checksum &+= info.departmentRecord.name.utf8.count
                tally.departments.insert(info.departmentRecord.name)
                for skill in info.skillRecords {
                    tally.checksum &+= skill.name.utf8.count &+ Int(skill.level)
                    tally.skills += 1
                }
            }
            let seconds = Clock.seconds(since: start)
            let processorSeconds = Clock.processorSeconds(since: processorStart)
            if counted {
                statements = counter.count
            } else {
                times.append(seconds)
                processorTimes.append(processorSeconds)
            }
            try pool.close()
        }
        blackHole(tally.checksum)
        note("W4x grdb: \(tally.employees) employees, \(tally.departments.count) departments, \(tally.skills) skills, \(statements) statements")
        return RelationshipReadWorkload.figures(times: times, processorTimes: processorTimes, tally: tally, statements: statements)
    }
}
