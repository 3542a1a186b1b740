import Foundation

/// W1's rows as the raw-SQLite peers write them (W1's peer and W4x's database): the same
/// ids and values as ``BenchData`` gives Strata, one prepared statement per table.
extension RawSQLite {
    /// Inserts W1's departments, ids 1 to ``BenchData/departments``.
    func insertW1Departments() throws {
        let departments = try prepare("INSERT INTO Department (id, name) VALUES (?, ?)")
        for index in 0..<BenchData.departments {
            departments.bind(1, Int64(index + 1))
            departments.bind(2, BenchData.departmentName(index))
            try departments.step()
            departments.reset()
        }
    }

    /// The statement ``insertW1Employee(_:index:count:)`` runs.
    func prepareW1EmployeeInsert() throws -> Statement {
        try prepare("""
            INSERT INTO Employee (id, firstName, lastName, salary, employeeID, startDate, department)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
    }

    /// Inserts employee `index` (id `index + 1`) of a document of `count` with `statement`.
    @inline(__always)
    func insertW1Employee(_ statement: Statement, index: Int, count: Int) throws {
        statement.bind(1, Int64(index + 1))
        statement.bind(2, BenchData.firstName(index))
        statement.bind(3, BenchData.lastName(index, count: count))
        statement.bind(4, BenchData.salary(index))
        statement.bind(5, Int64(index))
        statement.bind(6, BenchData.startDate(index))
        statement.bind(7, Int64(BenchData.department(index) + 1))
        try statement.step()
        statement.reset()
    }
}
