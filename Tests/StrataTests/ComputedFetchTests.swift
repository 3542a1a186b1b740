import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// A document with three departments (one without employees) and employees with and
/// without salaries and departments, saved and compacted so the snapshot tables hold it.
struct ComputedFetchFixture {
    let stack: DocumentStack
    var context: ManagedObjectContext { stack.context }
    var departments: [String: ManagedObject] = [:]

    init() throws {
        stack = try DocumentStack()
        for name in ["R&D", "Sales", "Legal"] {
            let department = try stack.context.insertObject(forEntityName: "Department")
            try department.setValue(.string(name), forKey: "name")
            departments[name] = department
        }
        let staff: [(String, Int64?, String?)] = [
            ("Lovelace", 120_000, "R&D"), ("Turing", 90_000, "R&D"), ("Hopper", 150_000, "Sales"),
            ("Liskov", 70_000, nil), ("Dijkstra", nil, "Sales"), ("Knuth", 80_000, "Sales"),
        ]
        for (name, salary, department) in staff { try insert(name, salary, department) }
        try stack.context.save()
        try stack.store.compact()
    }

    @discardableResult
    func insert(_ name: String, _ salary: Int64?, _ department: String?) throws -> ManagedObject {
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue(.string(name), forKey: "firstName")
        try employee.setValue(.string(name), forKey: "lastName")
        try employee.setValue(salary.map(PropertyValue.integer) ?? .null, forKey: "salary")
        if let department { try employee.setObject(departments[department], forKey: "department") }
        return employee
    }

    func employee(_ name: String) throws -> ManagedObject {
        let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "lastName == %@", .value(.string(name))))
        return try #require(try context.fetch(request).first)
    }

    /// `WHERE` text selecting employees in the raw SQL.
    var employeeFilter: String {
        let indexes = stack.model.entitiesByName["Employee"]!.selfAndDescendants.map { String($0.index) }
        return "p._entity IN (\(indexes.joined(separator: ", ")))"
    }

    /// Raw SQL over the snapshot tables, on the document file opened read-only.
    func sql(_ text: String) throws -> [[SQLiteValue]] { try sqlRows(stack.url, text) }
}

/// Result dictionaries as SQL rows in the given key order (a missing key is NULL).
func asSQLRows(_ rows: [[String: PropertyValue]], _ keys: [String]) -> [[SQLiteValue]] {
    rows.map { row in
        keys.map { key in
            switch row[key] ?? .null {
            case .integer(let value): return .integer(value)
            case .double(let value): return .real(value)
            case .string(let value): return .text(value)
            case .boolean(let value): return .integer(value ? 1 : 0)
            default: return .null
            }
        }
    }
}

func expression(_ name: String, _ expression: FetchExpression, _ type: AttributeType = .integer64) -> FetchProperty {
    .expression(ExpressionDescription(name: name, expression: expression, resultType: type))
}

/// The grouped request every test starts from: per department name, the total, the
/// number of salaries, the largest and the average.
func departmentTotals() -> FetchRequest<ManagedObject> {
    let request = FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("department.name")])
    request.resultType = .dictionary
    request.propertiesToFetch = [
        "department.name",
        expression("total", .function(.sum, [.key("salary")])),
        expression("staff", .function(.count, [.key("salary")])),
        expression("top", .function(.max, [.key("salary")])),
        expression("mean", .function(.average, [.key("salary")]), .double),
    ]
    request.propertiesToGroupBy = ["department.name"]
    return request
}

let departmentTotalsSQL = """
    SELECT d.name, coalesce(sum(p.salary), 0), count(p.salary), max(p.salary), avg(p.salary)
    FROM Person AS p LEFT JOIN Department AS d ON d._pk = p.department
    WHERE %FILTER% GROUP BY d.name ORDER BY d.name
    """

@Suite struct ComputedFetchTests {
    let keys = ["department.name", "total", "staff", "top", "mean"]

    @Test func groupedAggregatesEqualTheSameQueryInRawSQL() throws {
        let fixture = try ComputedFetchFixture()
        let rows = try fixture.context.fetchDictionaries(departmentTotals())
        let expected = try fixture.sql(departmentTotalsSQL.replacingOccurrences(of: "%FILTER%", with: fixture.employeeFilter))
        #expect(asSQLRows(rows, keys) == expected)
        #expect(rows.count == 3)
        #expect(rows[1] == ["department.name": "R&D", "total": 210_000, "staff": 2, "top": 120_000, "mean": 105_000.0])
        // The employee without a department is its own group, whose name is NULL (left out).
        #expect(rows[0] == ["total": 70_000, "staff": 1, "top": 70_000, "mean": 70_000.0])
    }

    @Test func pendingChangesGiveWhatTheSavedDocumentWillGive() throws {
        let fixture = try ComputedFetchFixture()
        try fixture.insert("Johnson", 200_000, "Legal")
        try fixture.employee("Turing").setValue(.integer(95_000), forKey: "salary")
        fixture.context.delete(try fixture.employee("Hopper"))
        try fixture.employee("Liskov").setObject(fixture.departments["R&D"], forKey: "department")
        try fixture.departments["Sales"]!.setValue(.string("Marketing"), forKey: "name")
        let pending = try fixture.context.fetchDictionaries(departmentTotals())
        #expect(pending.map { $0["department.name"] } == ["Legal", "Marketing", "R&D"])
        #expect(pending[2]["total"] == .integer(285_000))

        let storeOnly = departmentTotals()
        storeOnly.includesPendingChanges = false
        let before = try fixture.context.fetchDictionaries(storeOnly)
        #expect(before.map { $0["department.name"] } == [nil, "R&D", "Sales"])

        try fixture.context.save()
        try fixture.stack.store.compact()
        let expected = try fixture.sql(departmentTotalsSQL.replacingOccurrences(of: "%FILTER%", with: fixture.employeeFilter))
        #expect(asSQLRows(pending, keys) == expected)
        #expect(try fixture.context.fetchDictionaries(departmentTotals()) == pending)
    }

    @Test func havingKeepsTheGroupsItAcceptsByNameOrByAggregate() throws {
        let fixture = try ComputedFetchFixture()
        let request = departmentTotals()
        request.havingPredicate = try FetchPredicate(format: "total > 100000")
        let byName = try fixture.context.fetchDictionaries(request)
        #expect(byName.map { $0["department.name"] } == ["R&D", "Sales"])
        request.havingPredicate = .comparison(FetchComparison(.function(.count, [.key("lastName")]), .greaterThanOrEqualTo, .constant(3)))
        #expect(try fixture.context.fetchDictionaries(request).map { $0["department.name"] } == ["Sales"])
        let expected = try fixture.sql("""
            SELECT d.name FROM Person AS p LEFT JOIN Department AS d ON d._pk = p.department
            WHERE \(fixture.employeeFilter) GROUP BY d.name HAVING count(p.lastName) >= 3 ORDER BY d.name
            """)
        #expect(expected == [[.text("Sales")]])
    }

    @Test func sortingByAnAggregateWithAWindow() throws {
        let fixture = try ComputedFetchFixture()
        let request = departmentTotals()
        request.sortDescriptors = [FetchSortDescriptor("total", ascending: false)]
        let rows = try fixture.context.fetchDictionaries(request)
        #expect(rows.map { $0["total"] } == [230_000, 210_000, 70_000])
        request.fetchOffset = 1
        request.fetchLimit = 1
        #expect(try fixture.context.fetchDictionaries(request).map { $0["department.name"] } == ["R&D"])
        let expected = try fixture.sql("""
            SELECT d.name FROM Person AS p LEFT JOIN Department AS d ON d._pk = p.department
            WHERE \(fixture.employeeFilter) GROUP BY d.name ORDER BY sum(p.salary) DESC LIMIT 1 OFFSET 1
            """)
        #expect(expected == [[.text("R&D")]])
    }

    @Test func aggregatesWithoutGroupingGiveOneDictionaryEvenForNoRecords() throws {
        let fixture = try ComputedFetchFixture()
        let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary > 100000"))
        request.resultType = .dictionary
        request.propertiesToFetch = [
            expression("total", .function(.sum, [.key("salary")])),
            expression("staff", .function(.count, [.key("salary")])),
            expression("mean", .function(.average, [.key("salary")]), .double),
        ]
        #expect(try fixture.context.fetchDictionaries(request) == [["total": 270_000, "staff": 2, "mean": 135_000.0]])
        request.predicate = try FetchPredicate(format: "salary > 1000000")
        #expect(try fixture.context.fetchDictionaries(request) == [["total": 0, "staff": 0]])
        #expect(try fixture.sql("SELECT coalesce(sum(salary), 0), count(salary), avg(salary) FROM Person WHERE salary > 1000000")
            == [[.integer(0), .integer(0), .null]])
    }

    @Test func distinctPerRecordExpressions() throws {
        let fixture = try ComputedFetchFixture()
        let request = FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("place")])
        request.resultType = .dictionary
        request.propertiesToFetch = [expression("place", .key("department.name"), .string)]
        request.returnsDistinctResults = true
        #expect(try fixture.context.fetchDictionaries(request) == [[:], ["place": "R&D"], ["place": "Sales"]])
        let expected = try fixture.sql("""
            SELECT DISTINCT d.name FROM Person AS p LEFT JOIN Department AS d ON d._pk = p.department
            WHERE \(fixture.employeeFilter) ORDER BY d.name
            """)
        #expect(expected == [[.null], [.text("R&D")], [.text("Sales")]])
    }

    @Test func aggregatesOfACollectionTheRecordHoldsAreTheRecordsOwn() throws {
        let fixture = try ComputedFetchFixture()
        let request = FetchRequest(entityName: "Department", sortDescriptors: [FetchSortDescriptor("name")])
        request.resultType = .dictionary
        request.propertiesToFetch = ["name", expression("payroll", .function(.sum, [.key("employees.salary")]))]
        #expect(try fixture.context.fetchDictionaries(request) == [
            ["name": "Legal", "payroll": 0], ["name": "R&D", "payroll": 210_000], ["name": "Sales", "payroll": 230_000],
        ])
    }

    @Test func resultTypesConvertNumbers() throws {
        let fixture = try ComputedFetchFixture()
        let request = departmentTotals()
        request.propertiesToFetch = ["department.name", expression("mean", .function(.average, [.key("salary")]), .integer64),
                                     expression("total", .function(.sum, [.key("salary")]), .double)]
        let rows = try fixture.context.fetchDictionaries(request)
        #expect(rows[1] == ["department.name": "R&D", "mean": 105_000, "total": 210_000.0])
        request.propertiesToFetch = ["department.name", expression("total", .function(.sum, [.key("salary")]), .string)]
        #expect {
            try fixture.context.fetchDictionaries(request)
        } throws: { error in
            (error as? StrataError)?.code == .typeMismatch && (error as? StrataError)?.context.key == "total"
        }
    }

    @Test(arguments: [
        ("resultType", "needs resultType .dictionary"),
        ("lastName", "neither an aggregate nor in propertiesToGroupBy"),
        ("havingPredicate", "needs propertiesToGroupBy"),
        ("total", "two properties named 'total'"),
        ("bad", "applies an aggregate"),
        ("nope", "not a property of entity"),
    ])
    func malformedGroupedRequestsAreRefusedNamingWhat(key: String, message: String) throws {
        let fixture = try ComputedFetchFixture()
        let request = departmentTotals()
        switch key {
        case "resultType": request.resultType = .managedObject
        case "lastName": request.propertiesToFetch! += ["lastName"]
        case "havingPredicate":
            request.propertiesToGroupBy = nil
            request.propertiesToFetch = [expression("total", .function(.sum, [.key("salary")]))]
            request.havingPredicate = try FetchPredicate(format: "total > 5")
        case "total": request.propertiesToFetch! += [expression("total", .key("salary"))]
        case "bad": request.propertiesToGroupBy! += [expression("bad", .function(.max, [.key("salary")]))]
        default: request.propertiesToGroupBy = ["nope"]
        }
        #expect {
            _ = try fixture.context.execute(request)
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.message.contains(message) && (error.context.key == key || error.context.key == "nope")
        }
    }

    @Test func anInMemoryStoreIsGroupedInMemory() throws {
        let fixture = try FetchFixture()
        let rows = try fixture.context.fetchDictionaries(departmentTotals())
        #expect(rows.map { $0["total"] } == [70_000, 210_000, 150_000])
        #expect(rows.map { $0["department.name"] } == [nil, "R&D", "Sales"])
    }

    @Test func theSnapshotIsComputedBySQLiteAndUncompactedChangesInMemory() throws {
        let fixture = try ComputedFetchFixture()
        let store = fixture.stack.store
        let grouped = try #require(try store.computedFetchQuery(departmentTotals()))
        #expect(grouped.contains("GROUP BY") && grouped.contains("sum(") && grouped.contains("avg("))
        let having = departmentTotals()
        having.havingPredicate = try FetchPredicate(format: "total > 100000")
        having.sortDescriptors = [FetchSortDescriptor("total", ascending: false)]
        #expect(try store.computedFetchQuery(having)?.contains("HAVING") == true)
        // median: is not an SQLite aggregate: the fetch is computed in memory.
        let median = departmentTotals()
        median.propertiesToFetch! += [expression("middle", .function(.median, [.key("salary")]), .double)]
        #expect(try store.computedFetchQuery(median) == nil)
        #expect(try fixture.context.fetchDictionaries(median)[2]["middle"] == .double(115_000))
        // Saved but not compacted: the snapshot is behind, so memory answers, as SQL will.
        try fixture.insert("Johnson", 200_000, "Legal")
        try fixture.context.save()
        #expect(try store.computedFetchQuery(departmentTotals()) == nil)
        let fromMemory = try fixture.context.fetchDictionaries(departmentTotals())
        #expect(fromMemory[1]["department.name"] == "Legal" && fromMemory[1]["total"] == .integer(200_000))
        try store.compact()
        #expect(try store.computedFetchQuery(departmentTotals()) != nil)
        #expect(try fixture.context.fetchDictionaries(departmentTotals()) == fromMemory)
    }

    @Test func sqlAndMemoryGiveTheSameAnswers() throws {
        let fixture = try ComputedFetchFixture()
        var requests: [FetchRequest<ManagedObject>] = [departmentTotals()]
        let having = departmentTotals()
        having.havingPredicate = try FetchPredicate(format: "total > 100000 OR department.name == 'Legal'")
        having.sortDescriptors = [FetchSortDescriptor("staff"), FetchSortDescriptor("mean", ascending: false)]
        requests.append(having)
        let windowed = departmentTotals()
        (windowed.fetchOffset, windowed.fetchLimit) = (1, 5)
        windowed.predicate = try FetchPredicate(format: "salary >= 80000 OR salary == nil")
        requests.append(windowed)
        let whole = FetchRequest(entityName: "Employee")
        whole.resultType = .dictionary
        whole.propertiesToFetch = [expression("low", .function(.min, [.key("salary")])), expression("n", .function(.count, [.evaluatedObject]))]
        requests.append(whole)
        let distinct = FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("place", ascending: false)])
        distinct.resultType = .dictionary
        distinct.propertiesToFetch = [expression("place", .key("department.name"), .string)]
        distinct.returnsDistinctResults = true
        requests.append(distinct)
        let perRecord = FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("lastName", comparison: .caseInsensitive)])
        perRecord.resultType = .dictionary
        perRecord.propertiesToFetch = ["lastName", expression("pay", .key("salary"), .double)]
        requests.append(perRecord)
        for request in requests {
            #expect(try fixture.stack.store.computedFetchQuery(request) != nil, "\(request)")
            let bySQL = try fixture.context.fetchDictionaries(request)
            // An unrelated pending insertion sends the fetch to memory.
            _ = try fixture.context.insertObject(forEntityName: "Project")
            let inMemory = try fixture.context.fetchDictionaries(request)
            fixture.context.rollback()
            #expect(bySQL == inMemory, "\(request)")
            #expect(!bySQL.isEmpty)
        }
    }

    @Test func groupsTellStringsApartAsSQLiteDoes() throws {
        let fixture = try ComputedFetchFixture()
        try fixture.insert("Jos\u{E9}", 10, nil)
        try fixture.insert("Jose\u{301}", 20, nil)
        try fixture.context.save()
        try fixture.stack.store.compact()
        let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "lastName BEGINSWITH 'Jos'"))
        request.resultType = .dictionary
        request.propertiesToFetch = ["lastName", expression("total", .function(.sum, [.key("salary")]))]
        request.propertiesToGroupBy = ["lastName"]
        let bySQL = try fixture.context.fetchDictionaries(request)
        _ = try fixture.context.insertObject(forEntityName: "Project")
        let inMemory = try fixture.context.fetchDictionaries(request)
        #expect(bySQL.map { $0["total"] } == [10, 20])
        #expect(inMemory.map { $0["total"] } == [10, 20])
        request.propertiesToFetch = [expression("name", .key("lastName"), .string)]
        request.propertiesToGroupBy = nil
        request.returnsDistinctResults = true
        #expect(try fixture.context.fetchDictionaries(request).count == 2)
    }
}
