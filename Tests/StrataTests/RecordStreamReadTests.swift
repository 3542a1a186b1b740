import Foundation
import Testing
@testable import Strata

/// `ManagedObjectContext.forEachStoredRecord` (what `strata fetch` and `strata export`
/// stream) reads each record's values in the cursor's statement and its to-many members
/// one statement per relationship for each batch of records (docs/ARCHITECTURE.md, "Reads:
/// one pass from SQL to objects"): never a statement per record. The values are those the
/// single-record read gives, the overlay of uncompacted saves winning as it does there.
@Suite struct RecordStreamReadTests {
    /// Employee's persistent to-many relationships: `directReports` and `projects`.
    private let employeeToManys = 2

    /// Every record the stream hands on, with its values.
    private func streamed(_ request: FetchRequest<ManagedObject>, _ context: ManagedObjectContext) throws
        -> [(id: ManagedObjectID, values: [PropertyValue])] {
        var records: [(id: ManagedObjectID, values: [PropertyValue])] = []
        try context.forEachStoredRecord(matching: request) { records.append(($0, $1)) }
        return records
    }

    @Test func batchesOfRecordsRunOneStatementPerToManyEach() throws {
        // More than two batches, the last one partial.
        let count = 2 * DocumentFetch.streamBatchSize + 76
        let fixture = try ReadPathFixture(employeeCount: count)
        let context = try fixture.freshContext()
        let (records, statements) = try fixture.statements { try streamed(fixture.employeesByLastName(), context) }
        // In the fetch's order (last names past L999 sort among the others).
        let fetched = try context.fetch(fixture.employeesByLastName()).map(\.objectID)
        #expect(fetched.count == count)
        #expect(records.map(\.id) == fetched)
        let batches = (count + DocumentFetch.streamBatchSize - 1) / DocumentFetch.streamBatchSize
        #expect(statements.count == 1 + batches * employeeToManys, "\(statements.count) statements")
        for record in records {
            #expect(record.values == (try fixture.store.values(for: record.id)), "\(record.id)")
        }
        // Departments: one to-many (`employees`), three records — one batch.
        let departments = FetchRequest(entityName: "Department", sortDescriptors: [FetchSortDescriptor("name")])
        let (rows, departmentStatements) = try fixture.statements { try streamed(departments, context) }
        #expect(rows.map(\.id) == fixture.departments)
        #expect(departmentStatements.count == 2, "\(departmentStatements)")
        for row in rows { #expect(row.values == (try fixture.store.values(for: row.id))) }
    }

    @Test func anEntityWithoutToManysRunsOneStatement() throws {
        let model = try ManagedObjectModel(entities: [EntityDescription("Row", attributes: [
            AttributeDescription("name", .string), AttributeDescription("size", .integer64, isOptional: true),
            AttributeDescription("at", .date, isOptional: true),
        ])])
        let stack = try DocumentStack(model: model, configuration: manualCompaction())
        for index in 0..<1_200 {
            let row = try stack.context.insertObject(forEntityName: "Row")
            try row.setValue(.string("r\(index)"), forKey: "name")
            if index % 5 != 0 { try row.setValue(.integer(Int64(index)), forKey: "size") }
        }
        try stack.context.save()
        try stack.store.compact()
        let log = Locked<[String]>([])
        try stack.store.traceStatements { sql in log.withLock { $0.append(sql) } }
        var rows: [(ManagedObjectID, [PropertyValue])] = []
        try stack.context.forEachStoredRecord(matching: FetchRequest(entityName: "Row")) { rows.append(($0, $1)) }
        try stack.store.traceStatements(nil)
        #expect(rows.count == 1_200)
        #expect(log.withLock { $0.count } == 1, "\(log.withLock { $0 })")
        for (id, values) in rows { #expect(values == (try stack.store.values(for: id))) }
    }

    @Test func theOverlayWinsOverTheRowsTheCursorRead() throws {
        let fixture = try ReadPathFixture(employeeCount: DocumentFetch.streamBatchSize + 100)
        let context = fixture.stack.context
        // Uncompacted: one salary changed, one employee deleted (a direct report of
        // employee 300 and a member of two projects), one added under employee 3.
        try context.existingObject(with: fixture.employees[4]).setValue(.integer(999_999), forKey: "salary")
        context.delete(try context.existingObject(with: fixture.employees[600]))
        let added = try context.insertObject(forEntityName: "Employee")
        try added.setValue(.string("New"), forKey: "firstName")
        try added.setValue(.string("L999"), forKey: "lastName")
        try added.setObject(try context.existingObject(with: fixture.employees[3]), forKey: "manager")
        try context.save()
        let reader = try fixture.freshContext()
        let records = try streamed(fixture.employeesByLastName(), reader)
        let expected = fixture.employees.enumerated().filter { $0.offset != 600 }.map(\.element) + [added.objectID]
        #expect(records.map(\.id) == expected)
        for record in records {
            #expect(record.values == (try fixture.store.values(for: record.id)), "\(record.id)")
        }
        let manager = try #require(records.first { $0.id == fixture.employees[300] })
        let reportsSlot = try #require(manager.id.entity.slotNames.firstIndex(of: "directReports"))
        #expect(manager.values[reportsSlot].objectIDs == [fixture.employees[601]])
    }

    @Test func predicatesSortsAndWindowsGiveTheFetchsRecords() throws {
        let fixture = try ReadPathFixture(employeeCount: DocumentFetch.streamBatchSize + 40)
        let context = fixture.stack.context
        context.delete(try context.existingObject(with: fixture.employees[9]))
        try context.existingObject(with: fixture.employees[20]).setValue(.integer(5), forKey: "salary")
        try context.save()
        let reader = try fixture.freshContext()
        let requests: [(String?, [FetchSortDescriptor], Int, Int)] = [
            (nil, [FetchSortDescriptor("salary", ascending: false)], 0, 0),
            ("salary < 300000", [FetchSortDescriptor("lastName")], 50, 10),
            // A to-many's [FIRST] has no SQL: a residual, evaluated on the rows read.
            ("directReports.@count == 2 AND projects[FIRST] != nil", [], 0, 0),
            ("directReports.@count >= 1", [FetchSortDescriptor("salary")], 30, 100),
        ]
        for (format, sort, limit, offset) in requests {
            let request = FetchRequest(entityName: "Employee", predicate: try format.map { try FetchPredicate(format: $0) },
                                       sortDescriptors: sort)
            request.fetchLimit = limit
            request.fetchOffset = offset
            let records = try streamed(request, reader)
            #expect(records.map(\.id) == (try reader.fetch(request).map(\.objectID)), "\(format ?? "all")")
            #expect(!records.isEmpty, "\(format ?? "all")")
            for record in records {
                #expect(record.values == (try fixture.store.values(for: record.id)), "\(record.id)")
            }
        }
    }
}
