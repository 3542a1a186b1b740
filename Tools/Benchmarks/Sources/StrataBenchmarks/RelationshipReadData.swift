import Foundation
import Strata

/// W4x's documents: W1's employees and departments (BenchData's values), each employee
/// with three skills — a to-many `skills` whose inverse is the skill's to-one `employee`.
///
/// W4x has documents of its own so that W1–W4 keep theirs: an inverse to-many on W1's
/// Department would change W1's model (its hash, the inverse maintained on every insert)
/// and would reach every employee of a department. Each document is built once per tier
/// and size and kept in the data directory, as W1's are: the Strata document
/// (`w4x.strata`, compacted: all of it in the snapshot tables, as W4's is) and one SQLite
/// database of the same tables and indexes, read by both peers (`w4x-peers.sqlite`).
enum RelationshipReadData {
    static let skillsPerEmployee = 3
    static let skillNames = 500

    /// W1's model with `Employee.skills` (to-many, inverse `employee`) and `Skill`.
    static func model() -> ManagedObjectModel {
        let employee = EntityDescription("Employee", attributes: BenchData.employeeAttributes(), relationships: [
            RelationshipDescription("department", to: "Department"),
            RelationshipDescription("skills", to: "Skill", toMany: true, inverse: "employee", deleteRule: .cascade),
        ])
        let department = BenchData.departmentEntity()
        let skill = EntityDescription("Skill", attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("level", .integer16),
        ], relationships: [
            RelationshipDescription("employee", to: "Employee", inverse: "skills"),
        ])
        do {
            return try ManagedObjectModel(entities: [employee, department, skill], versionIdentifier: "bench-w4x-1")
        } catch {
            preconditionFailure("the W4x benchmark model is invalid: \(error)")
        }
    }

    /// Skill `number` (0, 1, 2) of employee `index`.
    static func skillName(_ index: Int, _ number: Int) -> String { "Skill \((index &* 7 &+ number &* 131) % skillNames)" }
    static func skillLevel(_ index: Int, _ number: Int) -> Int64 { Int64((index &+ number) % 10 + 1) }

    static func strataDocumentURL(_ env: BenchEnvironment) -> URL { env.file("w4x.strata") }
    static func peerDatabaseURL(_ env: BenchEnvironment) -> URL { env.file("w4x-peers.sqlite") }

    /// The compacted Strata document, built now when an earlier unit has not left one.
    /// Built under a temporary name and renamed, so an interrupted build leaves none.
    static func ensureStrataDocument(_ env: BenchEnvironment) throws -> URL {
        let url = strataDocumentURL(env)
        guard !FileManager.default.fileExists(atPath: url.path) else { return url }
        note("building the \(env.tier.objects)-employee W4x Strata document")
        let building = URL(fileURLWithPath: url.path + ".building")
        let count = env.tier.objects
        let model = model()
        let store = try DocumentStore(creatingAt: building, model: model, overwrite: true, configuration: BulkCreateWorkload.configuration())
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        let employees = try BenchData.employeeBatch(count: count, in: context)
        employees.resultType = .objectIDs
        let ids = try context.executeBatch(employees).objectIDs
        guard ids.count == count else {
            throw RawSQLite.Failure(description: "W4x: the batch insert gave \(ids.count) employee IDs for \(count) rows")
        }
        var next = 0
        let skills = BatchInsertRequest(entityName: "Skill") { row in
            guard next < count * skillsPerEmployee else { return true }
            let (index, number) = next.quotientAndRemainder(dividingBy: skillsPerEmployee)
            row["name"] = .string(skillName(index, number))
            row["level"] = .integer(skillLevel(index, number))
            row["employee"] = .object(ids[index])
            next += 1
            return false
        }
        skills.resultType = .statusOnly
        _ = try context.executeBatch(skills)
        try store.compact(retention: .none)
        try store.close()
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: building.path + suffix) }
        try FileManager.default.moveItem(at: building, to: url)
        return url
    }

    /// W1's raw SQLite tables and indexes, and Skill with its foreign-key index (as Strata
    /// indexes a to-one's key and GRDB's `belongsTo` wants one).
    static let peerSchema = RawSQLitePeer.schema + """

        CREATE TABLE Skill (id INTEGER PRIMARY KEY, name TEXT, level INTEGER, employee INTEGER);
        CREATE INDEX Skill_employee ON Skill (employee);
        """

    /// The peers' database (one transaction of prepared inserts), built now when an
    /// earlier unit has not left one.
    static func ensurePeerDatabase(_ env: BenchEnvironment) throws -> URL {
        let url = peerDatabaseURL(env)
        guard !FileManager.default.fileExists(atPath: url.path) else { return url }
        note("building the \(env.tier.objects)-employee W4x SQLite database")
        let building = URL(fileURLWithPath: url.path + ".building")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: building.path + suffix) }
        let count = env.tier.objects
        do {
            let db = try RawSQLite(path: building.path)
            try db.useDocumentDurability()
            try db.execute(peerSchema)
            try db.execute("BEGIN")
            try db.insertW1Departments()
            let employee = try db.prepareW1EmployeeInsert()
            let skill = try db.prepare("INSERT INTO Skill (id, name, level, employee) VALUES (?, ?, ?, ?)")
            for index in 0..<count {
                try db.insertW1Employee(employee, index: index, count: count)
                for number in 0..<skillsPerEmployee {
                    skill.bind(1, Int64(index * skillsPerEmployee + number + 1))
                    skill.bind(2, skillName(index, number))
                    skill.bind(3, skillLevel(index, number))
                    skill.bind(4, Int64(index + 1))
                    try skill.step()
                    skill.reset()
                }
            }
            try db.execute("COMMIT")
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: building.path + suffix) }
        try FileManager.default.moveItem(at: building, to: url)
        return url
    }
}
