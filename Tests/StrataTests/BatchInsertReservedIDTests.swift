import Foundation
import Testing
@testable import Strata

/// Rows of one batch insert that name each other through reserved IDs.
@Suite struct BatchInsertReservedIDTests {
    private func idRow(_ id: ManagedObjectID, _ first: String, _ extra: [String: PropertyValue] = [:]) -> [String: PropertyValue] {
        employeeRow(first, extra).merging([BatchInsertRequest.objectIDKey: .object(id)]) { _, new in new }
    }

    @Test(arguments: BatchStoreKind.allCases)
    func rowsNameEachOtherBackwardAndForwardAndBothSidesAreWritten(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let ids = try fixture.context.reserveObjectIDs(forEntityName: "Employee", count: 4)
        #expect(Set(ids).count == 4 && ids.allSatisfy { !$0.isTemporaryID })
        let request = BatchInsertRequest(entityName: "Employee", objects: [
            idRow(ids[0], "Boss", ["manager": .object(graph.employee("Ada"))]),
            idRow(ids[1], "Early", ["manager": .object(ids[3])]),    // names a later row
            employeeRow("Plain", ["manager": .object(ids[0])]),      // a row without a reserved ID
            idRow(ids[3], "Late", ["manager": .object(ids[0]), "directReports": .objects([ids[1]])]),
        ])
        request.resultType = .objectIDs
        let result = try fixture.context.executeBatch(request)
        #expect(result.objectIDs[0] == ids[0] && result.objectIDs[1] == ids[1] && result.objectIDs[3] == ids[3])
        let plain = result.objectIDs[2]
        let store = fixture.store
        let bossReports = try #require(try storedValue(ids[0], "directReports", in: store))
        #expect(Set(bossReports.objectIDs) == [plain, ids[3]])
        #expect(try storedValue(ids[3], "directReports", in: store)?.objectIDs == [ids[1]])
        #expect(try storedValue(ids[1], "manager", in: store) == .object(ids[3]))
        #expect(try storedValue(graph.employee("Ada"), "directReports", in: store)?.objectIDs.contains(ids[0]) == true)
        let context = fixture.fresh()
        let boss = try context.existingObject(with: ids[0])
        #expect(try Set(boss.relatedSet("directReports").map { try $0.string("firstName") ?? "" }) == ["Plain", "Late"])
        // The reserved keys are not handed out again.
        let next = try fixture.context.executeBatch(BatchInsertRequest(entityName: "Employee", objects: [employeeRow("After")]))
        #expect(next.changes.inserted.allSatisfy { !ids.contains($0) })
    }

    @Test func aLargeRequestWhoseRowsNameRowsOfOtherChunksKeepsTheGraphWhole() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let context = stack.context
        let count = 25_000
        let ids = try context.reserveObjectIDs(forEntityName: "Employee", count: count)
        var index = 0
        let request = BatchInsertRequest(entityName: "Employee") { row in
            guard index < count else { return true }
            // Each row's manager is 15,000 rows on (a later chunk, or an earlier one after wrapping).
            row = employeeRow("E\(index)", salary: Int64(index), [
                BatchInsertRequest.objectIDKey: .object(ids[index]), "manager": .object(ids[(index + 15_000) % count]),
            ])
            index += 1
            return false
        }
        #expect(try context.executeBatch(request).count == count)
        for probe in [0, 9_999, 10_000, 14_999, 24_999] {
            let report = ids[(probe + count - 15_000) % count]
            #expect(try storedValue(ids[probe], "directReports", in: stack.store)?.objectIDs == [report], "row \(probe)")
            #expect(try storedValue(ids[probe], "manager", in: stack.store) == .object(ids[(probe + 15_000) % count]))
        }
        try stack.reopen()
        let reader = stack.newContext()
        let sample = try reader.existingObject(with: ids[12_345])
        #expect(try sample.relatedSet("directReports").map(\.objectID) == [ids[(12_345 + count - 15_000) % count]])
    }

    @Test(arguments: BatchStoreKind.allCases)
    func badReservedIDsAreErrorsNamingTheRowAndNothingIsWritten(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let ids = try fixture.context.reserveObjectIDs(forEntityName: "Employee", count: 3)
        let before = try fixture.fresh().count(for: FetchRequest(entityName: "Employee"))
        let cases: [(rows: [[String: PropertyValue]], row: Int, key: String)] = [
            ([idRow(ids[0], "A"), idRow(ids[0], "B")], 2, BatchInsertRequest.objectIDKey),
            ([idRow(graph.employee("Ada"), "A")], 1, BatchInsertRequest.objectIDKey),
            ([idRow(graph.departments["R&D"]!, "A")], 1, BatchInsertRequest.objectIDKey),
            ([employeeRow("A", [BatchInsertRequest.objectIDKey: "p1"])], 1, BatchInsertRequest.objectIDKey),
            ([employeeRow("A"), employeeRow("B", ["manager": .object(ids[2])])], 2, "manager"),   // no row took it
            // A to-one of a row of the request holds one record: row 1 makes A B's manager.
            ([idRow(ids[0], "A", ["directReports": .objects([ids[1]])]), idRow(ids[1], "B", ["manager": .object(ids[2])]),
              idRow(ids[2], "C")], 1, "manager"),
        ]
        for (rows, row, key) in cases {
            let error = strataError { _ = try fixture.context.executeBatch(BatchInsertRequest(entityName: "Employee", objects: rows)) }
            #expect(error != nil, "\(rows)")
            #expect(error?.context.row == row, "\(error?.message ?? "no error")")
            #expect(error?.context.key == key, "\(error?.message ?? "no error")")
        }
        #expect(try fixture.fresh().count(for: FetchRequest(entityName: "Employee")) == before)
        #expect(strataError { _ = try fixture.context.reserveObjectIDs(forEntityName: "Person", count: 1) }?.code == .invalidArgument)
        #expect(try fixture.context.reserveObjectIDs(forEntityName: "Employee", count: 0).isEmpty)
    }
}
