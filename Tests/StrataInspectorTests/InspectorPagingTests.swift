import Foundation
import Strata
import StrataInspectorCore
import StrataTestSupport
import Testing

/// Pages sought by key (`after`) against the same rows read by offset, on a document whose
/// sort keys tie and hold NULLs, part in the snapshot and part in uncompacted segments.
@Suite struct InspectorPagingTests {
    let directory: TemporaryDirectory
    let url: URL
    static let employees = 120

    /// 120 employees: 5 last names, 7 salaries and every ninth without one; the first 80
    /// compacted into the snapshot, the last 40 and a change of 10 salaries in the log.
    init() throws {
        directory = try TemporaryDirectory()
        url = directory.file("paging.strata")
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        let context = stack.context
        let department = try context.insertObject(forEntityName: "Department")
        try department.setValue("Research", forKey: "name")
        var people: [ManagedObject] = []
        for index in 0..<Self.employees {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("First\(index)"), forKey: "firstName")
            try employee.setValue(.string(["Lee", "Kim", "Ng", "Diaz", "Berg"][index % 5]), forKey: "lastName")
            if index % 9 != 0 { try employee.setValue(.integer(Int64(1_000 * (index % 7))), forKey: "salary") }
            try employee.setObject(department, forKey: "department")
            people.append(employee)
            if index == 79 {
                try context.save()
                try stack.store.compact()
            }
        }
        try context.save()
        for employee in people.prefix(30) where people.firstIndex(of: employee)! % 3 == 0 {
            try employee.setValue(.integer(3_000), forKey: "salary")
        }
        try context.save()
        try stack.store.close()
    }

    /// Every row by walking `next`, 17 at a time.
    private func walk(_ api: InspectorAPI, _ parameters: [String: String]) throws -> (refs: [String], sought: Bool) {
        var refs: [String] = []
        var after: String?
        var sought = true
        for _ in 0..<20 {
            var query = parameters.merging(["limit": "17", "offset": "\(refs.count)"]) { $1 }
            if let after { query["after"] = after }
            let page = try api.get("/api/objects", query)
            #expect(page.status == 200, "\(page.error ?? "")")
            refs += try #require(page.json["rows"] as? [[String: Any]]).map { $0["ref"] as! String }
            if after != nil { sought = sought && page.json["sought"] as? Bool == true }
            guard let next = page.json["next"] as? String else { return (refs, sought) }
            after = next
        }
        Issue.record("paging did not end")
        return (refs, sought)
    }

    @Test(arguments: ["", "lastName", "salary:desc", "salary", "lastName,salary:desc", "lastName:desc,firstName"])
    func pagesSoughtByKeyAreThePagesReadByOffset(sort: String) throws {
        let document = try InspectorDocument(path: url.path)
        defer { document.close() }
        let api = InspectorAPI(document: document)
        for predicate in ["", "salary != 2000 OR salary == NIL"] {
            let parameters = ["entity": "Employee", "sort": sort, "where": predicate]
            let all = try api.get("/api/objects", parameters.merging(["limit": "500"]) { $1 })
            let expected = try #require(all.json["rows"] as? [[String: Any]]).map { $0["ref"] as! String }
            #expect(expected.count == all.json["total"] as? Int)
            #expect(expected.count > 100)
            let walked = try walk(api, parameters)
            #expect(walked.refs == expected, "sort \(sort), where \(predicate)")
            #expect(walked.sought)
        }
    }

    @Test func anAfterOfAnotherEntityOrAMissingObjectIsA4xx() throws {
        let document = try InspectorDocument(path: url.path)
        defer { document.close() }
        let api = InspectorAPI(document: document)
        let other = try api.get("/api/objects", ["entity": "Employee", "after": "Department/p1"])
        #expect(other.status == 400)
        #expect(other.error?.contains("Department/p1") == true)
        let missing = try api.get("/api/objects", ["entity": "Employee", "after": "Employee/p99999"])
        #expect(missing.status == 404)
        let malformed = try api.get("/api/objects", ["entity": "Employee", "after": "<script>"])
        #expect(malformed.status == 400 || malformed.status == 404)
    }

    @Test func theCountFollowsAnotherWritersSave() throws {
        let document = try InspectorDocument(path: url.path)
        defer { document.close() }
        let api = InspectorAPI(document: document)
        #expect(try api.get("/api/objects", ["entity": "Employee"]).json["total"] as? Int == Self.employees)
        let writer = try DocumentStack.open(url, configuration: manualCompaction())
        let employee = try writer.context.insertObject(forEntityName: "Employee")
        try employee.setValue("New", forKey: "firstName")
        try employee.setValue("Comer", forKey: "lastName")
        let department = try writer.context.insertObject(forEntityName: "Department")
        try department.setValue("Sales", forKey: "name")
        try employee.setObject(department, forKey: "department")
        try writer.context.save()
        try writer.store.close()
        #expect(try api.get("/api/objects", ["entity": "Employee"]).json["total"] as? Int == Self.employees + 1)
    }
}
