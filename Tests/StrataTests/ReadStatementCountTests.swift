import Foundation
import Testing
@testable import Strata

/// docs/ARCHITECTURE.md, "Reads: one pass from SQL to objects": a fetch reads its
/// records' IDs and values in one statement, and each to-many relationship's members in one
/// statement for the whole batch — O(1 + T) statements, never O(N). Counted with SQLite's
/// statement trace, so a read that goes back to a statement per record fails here.
@Suite struct ReadStatementCountTests {
    /// Employee's persistent to-many relationships: `directReports` and `projects`.
    private let employeeToManys = 2

    @Test func aFetchWithoutFaultsRunsOneStatementPlusOnePerToMany() throws {
        for count in [10, 40] {
            let fixture = try ReadPathFixture(employeeCount: count)
            let context = try fixture.freshContext()
            let request = fixture.employeesByLastName()
            request.returnsObjectsAsFaults = false
            let (employees, statements) = try fixture.statements { try context.fetch(request) }
            #expect(employees.count == count)
            #expect(employees.allSatisfy { !$0.isFault })
            #expect(statements.count == 1 + employeeToManys, "\(count) employees: \(statements)")
            // The values are those the single-record read gives.
            for employee in employees {
                #expect(employee.storage.array == (try fixture.storedValues(employee.objectID)))
            }
            #expect(try employees.map { try $0.string("lastName") } == (0..<count).map(ReadPathFixture.lastName))
        }
    }

    @Test func touchingWhatAFetchLoadedRunsNothing() throws {
        let fixture = try ReadPathFixture()
        let context = try fixture.freshContext()
        let request = fixture.employeesByLastName()
        request.returnsObjectsAsFaults = false
        let employees = try context.fetch(request)
        let (salaries, statements) = try fixture.statements {
            try employees.map { try $0.int("salary") }
        }
        #expect(salaries == (0..<40).map { Int64(1000 * $0) })
        #expect(statements.isEmpty, "\(statements)")
    }

    @Test func aFetchedRowFillsTheRowCacheAFaultFiresFrom() throws {
        let fixture = try ReadPathFixture()
        let context = try fixture.freshContext()
        let request = fixture.employeesByLastName()
        request.returnsObjectsAsFaults = false
        let employees = try context.fetch(request)
        context.refresh(employees[7], mergeChanges: false)
        #expect(employees[7].isFault)
        // Faults and fetches share one row path: the fetched row is in the coordinator's
        // cache, which the default (negative) staleness interval takes.
        let (name, statements) = try fixture.statements { try employees[7].string("lastName") }
        #expect(name == ReadPathFixture.lastName(7))
        #expect(statements.isEmpty, "\(statements)")
    }

    @Test func aDictionaryFetchRunsOneStatementPlusOnePerToManyAndKeyPath() throws {
        let fixture = try ReadPathFixture()
        let context = try fixture.freshContext()
        let request = fixture.employeesByLastName()
        request.propertiesToFetch = ["lastName", "salary", "department", "department.name"]
        let (rows, statements) = try fixture.statements { try context.fetchDictionaries(request) }
        #expect(rows.count == 40)
        #expect(rows[3]["lastName"] == .string("L003") && rows[3]["salary"] == .integer(3000))
        #expect(rows[3]["department"] == .object(fixture.departments[0]) && rows[3]["department.name"] == .string("D0"))
        // The departments the `department` key path reaches (it gives a destination that
        // exists): one batch, not a read per employee.
        #expect(statements.count == 1 + employeeToManys + 1 + 1, "\(statements)")
    }

    @Test func aFetchWithAResidualStillReadsInOnePass() throws {
        for count in [10, 40] {
            let fixture = try ReadPathFixture(employeeCount: count)
            let context = try fixture.freshContext()
            // A to-many's [FIRST] has no SQL (docs/SQL.md §5): it is evaluated in memory, on
            // the rows read, to-many members included.
            let request = FetchRequest(entityName: "Employee",
                                       predicate: try FetchPredicate(format: "projects[FIRST] == %@", .value(.object(fixture.projects[0]))),
                                       sortDescriptors: [FetchSortDescriptor("lastName")])
            request.returnsObjectsAsFaults = false
            let (employees, statements) = try fixture.statements { try context.fetch(request) }
            #expect(try employees.map { try $0.int("salary") } == (0..<count).filter { $0 % 3 != 1 }.map { Int64(1000 * $0) })
            // The fetch; then the three projects the residual reaches, each read once (its
            // row and its members), whatever the number of employees.
            #expect(statements.count == 1 + employeeToManys + 3 * 2, "\(count) employees: \(statements)")
        }
    }

    @Test func aBatchOfFaultsIsFilledByOneReadWhenTheFirstIsTouched() throws {
        let fixture = try ReadPathFixture()
        let context = try fixture.freshContext()
        let request = fixture.employeesByLastName()
        request.fetchBatchSize = 10
        let (employees, fetchStatements) = try fixture.statements { try context.fetch(request) }
        // The IDs, then the first batch: one read of its rows, one per to-many.
        #expect(fetchStatements.count == 1 + 1 + employeeToManys, "\(fetchStatements)")
        #expect(employees.map(\.isFault) == Array(repeating: false, count: 10) + Array(repeating: true, count: 30))
        let (name, statements) = try fixture.statements { try employees[15].string("lastName") }
        #expect(name == "L015")
        #expect(statements.count == 1 + employeeToManys, "\(statements)")
        #expect(employees[10..<20].allSatisfy { !$0.isFault })
        #expect(employees[20...].allSatisfy { $0.isFault })
        for employee in employees[10..<20] {
            #expect(employee.storage.array == (try fixture.storedValues(employee.objectID)))
        }
        // The rest of the batch is loaded: touching it runs nothing.
        let (_, more) = try fixture.statements { try employees[10..<20].map { try $0.int("salary") } }
        #expect(more.isEmpty, "\(more)")
    }

    @Test func prefetchingReadsEachKeyPathWithOneBatch() throws {
        for count in [10, 40] {
            let fixture = try ReadPathFixture(employeeCount: count)
            let context = try fixture.freshContext()
            let request = fixture.employeesByLastName()
            request.relationshipKeyPathsForPrefetching = ["department", "projects", "manager.department"]
            let (employees, statements) = try fixture.statements { try context.fetch(request) }
            // The fetch (1 + 2); departments (1 + employees); projects (1 + members). The
            // managers are fetched employees and their departments loaded: nothing more.
            #expect(statements.count == (1 + employeeToManys) + 2 + 2, "\(count) employees: \(statements)")
            let (names, touched) = try fixture.statements {
                try employees.map { employee in
                    [try employee.related("department")?.string("name"),
                     try employee.related("manager")?.related("department")?.string("name")]
                        + (try employee.objects(forKey: "projects").map { try $0.string("name") })
                }
            }
            #expect(names.count == count)
            #expect(names[4] == ["D1", "D2", "P1", "P2"])
            #expect(touched.isEmpty, "\(touched)")
        }
    }

    /// W4x's shape (docs/BENCHMARKS.md): a to-many read through its inverse's foreign key.
    @Test func prefetchingAToManyHeldByItsInverseReadsItsMembersInOneBatch() throws {
        let fixture = try ReadPathFixture()
        let context = try fixture.freshContext()
        // Employees 0…19: their reports are 1…39, of which 20…39 are not fetched.
        let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary < 20000"),
                                   sortDescriptors: [FetchSortDescriptor("lastName")])
        request.relationshipKeyPathsForPrefetching = ["directReports"]
        let (employees, statements) = try fixture.statements { try context.fetch(request) }
        #expect(employees.count == 20)
        // The fetch (1 + 2, the reports' IDs among them); the reports not fetched (1 + 2).
        #expect(statements.count == 2 * (1 + employeeToManys), "\(statements)")
        let (names, touched) = try fixture.statements {
            try employees.map { try $0.objects(forKey: "directReports").map { try $0.string("lastName") ?? "no name" }.sorted() }
        }
        #expect(names == (0..<20).map { index in [2 * index, 2 * index + 1].filter { $0 > 0 }.map(ReadPathFixture.lastName) })
        #expect(touched.isEmpty, "\(touched)")
    }

    @Test func aNestedKeyPathIsPrefetchedOneBatchPerLevel() throws {
        let fixture = try ReadPathFixture()
        let context = try fixture.freshContext()
        // Employees 20…39: their managers (10…19) are not among them.
        let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary >= 20000"),
                                   sortDescriptors: [FetchSortDescriptor("lastName")])
        request.relationshipKeyPathsForPrefetching = ["manager.department"]
        let (employees, statements) = try fixture.statements { try context.fetch(request) }
        #expect(employees.count == 20)
        // The fetch (1 + 2); the managers (1 + 2); their departments (1 + employees).
        #expect(statements.count == 3 * (1 + employeeToManys) - 1, "\(statements)")
        let (names, touched) = try fixture.statements {
            try employees.map { try $0.related("manager")?.related("department")?.string("name") }
        }
        #expect(names == (20..<40).map { "D\(($0 / 2) % 3)" })
        #expect(touched.isEmpty, "\(touched)")
    }

    @Test func firingFaultsOneByOneReusesOneStatementPerShape() throws {
        let fixture = try ReadPathFixture()
        let context = try fixture.freshContext()
        let employees = fixture.employees.map { context.object(with: $0) }
        let (_, statements) = try fixture.statements { try employees.map { try $0.string("lastName") } }
        // One row statement and one per to-many, per fault: the same texts each time.
        #expect(statements.count == 40 * (1 + employeeToManys))
        #expect(Set(statements).count == 1 + employeeToManys, "\(Set(statements))")
    }
}
