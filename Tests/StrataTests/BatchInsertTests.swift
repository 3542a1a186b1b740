import Foundation
import Testing
@testable import Strata

/// An employee row for a batch insert.
func employeeRow(_ first: String, salary: Int64? = nil, _ extra: [String: PropertyValue] = [:]) -> [String: PropertyValue] {
    var row: [String: PropertyValue] = ["firstName": .string(first), "lastName": .string(first + "son")]
    if let salary { row["salary"] = .integer(salary) }
    return row.merging(extra) { _, new in new }
}

/// The employees named `first` in the store, by a fetch of a fresh context.
func employeeIDs(named first: String, in context: ManagedObjectContext) throws -> [ManagedObjectID] {
    try context.fetch(FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == %@", .value(.string(first)))))
        .map(\.objectID)
}

@Suite struct BatchInsertTests {
    @Test(arguments: BatchStoreKind.allCases)
    func everyAttributeTypeRoundTripsWithDefaultsAndNullsKeptApart(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind, model: allTypesModel)
        let stack = fixture.keepAlive as? DocumentStack
        let samples = [("full", DocumentRoundTrip.fullValues), ("zero", DocumentRoundTrip.zeroValues),
                       ("other", DocumentRoundTrip.otherValues), ("null", [:])]
        let request = BatchInsertRequest(entityName: "Sample", objects: samples.map { label, values in
            values.merging(["label": .string(label)]) { _, new in new }
        })
        request.resultType = .objectIDs
        let result = try fixture.context.executeBatch(request)
        #expect(result.count == 4)
        #expect(result.objectIDs.count == 4)
        #expect(result.changes.inserted == Set(result.objectIDs))
        #expect(fixture.context.registeredObjects.isEmpty)

        func check(_ store: any PersistentStore, _ phase: String) throws {
            for ((label, values), id) in zip(samples, result.objectIDs) {
                let row = try #require(try store.values(for: id), "\(phase) \(label)")
                #expect(row[try #require(id.entity.slot(forKey: "label"))] == .string(label))
                for type in AttributeType.allCases {
                    let expected = values[type.rawValue] ?? .null
                    let actual = row[try #require(id.entity.slot(forKey: type.rawValue))]
                    #expect(actual == expected, "\(phase) \(label).\(type.rawValue): \(actual) != \(expected)")
                }
            }
        }
        try check(fixture.store, "stored")
        if let stack {
            try stack.reopen()
            try check(stack.store, "reopened")
            try stack.store.compact()
            try check(stack.store, "compacted")
        }
    }

    @Test(arguments: BatchStoreKind.allCases)
    func missingValuesTakeTheModelsDefaultsAndNumbersAreCoercedAsInABatchUpdate(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let request = BatchInsertRequest(entityName: "Employee", objects: [
            employeeRow("Ada", ["rating": 4, "bonus": 2, "employeeID": 7.0, "badge": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"]),
        ])
        request.resultType = .objectIDs
        let id = try #require(try fixture.context.executeBatch(request).objectIDs.first)
        #expect(try storedValue(id, "active", in: fixture.store) == .boolean(true))   // the default
        #expect(try storedValue(id, "salary", in: fixture.store) == .null)
        #expect(try storedValue(id, "rating", in: fixture.store) == .double(4))
        #expect(try storedValue(id, "bonus", in: fixture.store) == .decimal(2))
        #expect(try storedValue(id, "employeeID", in: fixture.store) == .integer(7))
        #expect(try storedValue(id, "badge", in: fixture.store) == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(try storedValue(id, "directReports", in: fixture.store) == .objects([]))
        let ada = try fixture.fresh().existingObject(with: id)
        #expect(try ada.string("firstName") == "Ada")
    }

    @Test(arguments: BatchStoreKind.allCases)
    func handlersFillOneRowAtATimeUntilTheySayStop(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        var next = 0
        let byDictionary = BatchInsertRequest(entityName: "Employee") { row in
            guard next < 5 else { return true }
            next += 1
            row = employeeRow("Dict\(next)", salary: Int64(next * 1_000))
            return false
        }
        #expect(try fixture.context.executeBatch(byDictionary).count == 5)
        var made = 0
        let byObject = BatchInsertRequest(entityName: "Employee") { object in
            guard made < 3 else { return true }
            made += 1
            // The object is reset between rows: only the first sets a salary.
            #expect(try object.value(forKey: "salary") == .null)
            #expect(try object.value(forKey: "active") == .boolean(true))
            try object.setValue(.string("Obj\(made)"), forKey: "firstName")
            try object.setValue("Objson", forKey: "lastName")
            if made == 1 { try object.setValue(.integer(42), forKey: "salary") }
            return false
        }
        byObject.resultType = .objectIDs
        let result = try fixture.context.executeBatch(byObject)
        #expect(result.count == 3)
        #expect(fixture.context.registeredObjects.isEmpty)
        let context = fixture.fresh()
        #expect(try context.count(for: FetchRequest(entityName: "Employee")) == 8)
        #expect(try storedValue(result.objectIDs[0], "salary", in: fixture.store) == .integer(42))
        #expect(try storedValue(result.objectIDs[1], "salary", in: fixture.store) == .null)
        #expect(try employeeIDs(named: "Dict5", in: context).count == 1)
        #expect(try employeeIDs(named: "Obj3", in: context) == [result.objectIDs[2]])
    }

    @Test(arguments: BatchStoreKind.allCases)
    func theResultTypesReportStatusCountOrIDsAndAnEmptyRequestWritesNothing(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        for type in BatchResultType.allCases {
            let request = BatchInsertRequest(entityName: "Department", objects: [["name": .string("\(type)")], ["name": .string("\(type)2")]])
            request.resultType = type
            let result = try fixture.context.executeBatch(request)
            #expect(result.status)
            #expect(result.count == 2)
            #expect(result.objectIDs.count == (type == .objectIDs ? 2 : 0))
            // A status result collects no IDs (Core Data's): nothing to merge, the count kept.
            #expect(result.changes.inserted.count == (type == .statusOnly ? 0 : 2))
            #expect(result.remoteChanges[ManagedObjectContext.insertedObjectsKey]?.count == (type == .statusOnly ? 0 : 2))
        }
        let empty = try fixture.context.executeBatch(BatchInsertRequest(entityName: "Department", objects: []))
        #expect(empty.count == 0 && empty.changes.isEmpty)
        #expect(try fixture.fresh().count(for: FetchRequest(entityName: "Department")) == 6)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aBadRowFailsWithItsNumberAndKeyAndNothingIsWritten(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let goner = try fixture.fresh().executeBatch(BatchInsertRequest(entityName: "Project", objects: [["name": "Gone"]]))
        let gone = try #require(goner.changes.inserted.first)
        _ = try fixture.fresh().executeBatch(BatchDeleteRequest(entityName: "Project", predicate: try FetchPredicate(format: "name == 'Gone'")))
        let before = try fixture.fresh().count(for: FetchRequest(entityName: "Employee"))
        let segments = try (fixture.store as? DocumentStore)?.segmentRecords().count
        let cases: [(PropertyValue?, String, StrataError.Code, String)] = [
            (.string("lots"), "salary", .typeMismatch, "salary"),
            (.integer(-1), "salary", .validation, "salary"),
            (.string("not-an-email"), "email", .validation, "email"),
            (.string(""), "firstName", .validation, "firstName"),
            (nil, "firstName", .validation, "firstName"),
            (.integer(1), "wage", .unknownKey, "wage"),
            (.string("x"), "fullName", .invalidArgument, "fullName"),
            (.object(graph.projects["Engine"]!), "department", .typeMismatch, "department"),
            (.objects([graph.departments["R&D"]!]), "department", .typeMismatch, "department"),
            (.objects([gone]), "projects", .validation, "projects"),
        ]
        for (value, key, code, named) in cases {
            var rows = (1...4).map { employeeRow("Row\($0)") }
            rows[2][key] = value ?? .null
            if value == nil { rows[2][key] = nil }
            let error = strataError { _ = try fixture.context.executeBatch(BatchInsertRequest(entityName: "Employee", objects: rows)) }
            #expect(error?.code == code, "\(key) = \(String(describing: value))")
            #expect(error?.context.row == 3, "\(key): \(error?.message ?? "no error")")
            #expect(error?.context.key == named)
            #expect(error?.message.contains("Row 3") == true)
        }
        // A handler's bad row after a full chunk (a document writes 10,000 rows per segment).
        var number = 0
        let late = BatchInsertRequest(entityName: "Employee") { row in
            number += 1
            row = employeeRow("Late", salary: number == 12_345 ? -5 : 1)
            return number > 12_400
        }
        let error = strataError { _ = try fixture.context.executeBatch(late) }
        #expect(error?.code == .validation)
        #expect(error?.context.row == 12345)
        #expect(try fixture.fresh().count(for: FetchRequest(entityName: "Employee")) == before)
        #expect(try (fixture.store as? DocumentStore)?.segmentRecords().count == segments)
        #expect(strataError { _ = try fixture.context.executeBatch(BatchInsertRequest(entityName: "Person", objects: [[:]])) }?.code == .invalidArgument)
        #expect(strataError { _ = try fixture.context.executeBatch(BatchInsertRequest(entityName: "Nobody", objects: [[:]])) }?.code == .unknownKey)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func relationshipsByObjectIDKeepBothSidesOfTheGraph(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let rd = graph.departments["R&D"]!
        let engine = graph.projects["Engine"]!
        let request = BatchInsertRequest(entityName: "Employee", objects: [
            employeeRow("Kay", ["department": .object(rd), "projects": .objects([engine]), "manager": .object(graph.employee("Ada"))]),
            employeeRow("Lin", ["department": .object(rd), "directReports": .objects([graph.employee("Alan")])]),
        ])
        request.resultType = .objectIDs
        let result = try fixture.context.executeBatch(request)
        let (kay, lin) = (result.objectIDs[0], result.objectIDs[1])
        #expect(result.changes.updated == [rd, engine, graph.employee("Ada"), graph.employee("Alan")])
        let store = fixture.store
        #expect(try storedValue(rd, "employees", in: store)?.objectIDs.contains(kay) == true)
        #expect(try storedValue(rd, "employees", in: store)?.objectIDs.contains(lin) == true)
        #expect(try storedValue(engine, "members", in: store)?.objectIDs.contains(kay) == true)
        #expect(try storedValue(graph.employee("Ada"), "directReports", in: store)?.objectIDs.contains(kay) == true)
        // Lin took Alan from Ada, as a context save would have.
        #expect(try storedValue(graph.employee("Alan"), "manager", in: store) == .object(lin))
        #expect(try storedValue(graph.employee("Ada"), "directReports", in: store)?.objectIDs.contains(graph.employee("Alan")) == false)
        let context = fixture.fresh()
        let department = try context.existingObject(with: rd)
        #expect(try department.relatedSet("employees").map(\.objectID).contains(kay))

        // Two rows cannot both take a record whose inverse is a to-one.
        let clash = strataError {
            _ = try fixture.context.executeBatch(BatchInsertRequest(entityName: "Employee", objects: [
                employeeRow("Mo", ["directReports": .objects([graph.employee("Grace")])]),
                employeeRow("Ned", ["directReports": .objects([graph.employee("Grace")])]),
            ]))
        }
        #expect(clash?.code == .validation)
        #expect(clash?.context.row == 2)
        #expect(try storedValue(graph.employee("Grace"), "manager", in: store) == .object(graph.employee("Ada")))
    }

    @Test func aDocumentWritesALargeHandlerInsertAsChunksOfOneGroupThatHistoryAndReopenSeeAsOne() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let graph = try BatchGraph(in: stack.context)
        let before = try stack.store.segmentRecords().count
        var number = 0
        let request = BatchInsertRequest(entityName: "Employee") { row in
            number += 1
            row = employeeRow("Bulk", salary: Int64(number), ["department": .object(graph.departments["Sales"]!)])
            return number > 25_000
        }
        let result = try stack.newContext().executeBatch(request)
        #expect(result.count == 25_000)
        let records = try stack.store.segmentRecords()
        #expect(records.count == before + 3)
        let groups = try records.suffix(3).map { try #require(try stack.store.decode($0).groups.first) }
        #expect(Set(groups.map(\.id)).count == 1)
        #expect(groups.allSatisfy { $0.kind == .batch && $0.actionName == "Batch Insert Employee" })
        #expect(groups.map { $0.operations.count } == [10_001, 10_001, 5_001])   // each with Sales' relate
        #expect(try stack.store.groupRecords().filter { $0.info.actionName == "Batch Insert Employee" }.count == 3)
        let sales = try #require(try storedValue(graph.departments["Sales"]!, "employees", in: stack.store))
        #expect(sales.objectIDs.count == 25_002)
        try stack.reopen()
        let context = stack.newContext()
        #expect(try context.count(for: FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "department.name == 'Sales'"))) == 25_002)
        // Not undoable: the restored stack does not hold it.
        try stack.context.restoreUndoHistory()
        #expect(stack.undo.undoActionName != "Batch Insert Employee")
    }

    @Test func aBatchInsertIsReplayedByTimeTravelAndByReopeningWithoutCompaction() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        let graph = try BatchGraph(in: stack.context)
        let request = BatchInsertRequest(entityName: "Employee", objects: (1...50).map {
            employeeRow("Replayed", salary: Int64($0), ["projects": .objects([graph.projects["Apollo"]!])])
        })
        _ = try stack.context.executeBatch(request)
        let last = try #require(try stack.store.segmentRecords().last?.sequence)
        try stack.store.close()
        let copy = directory.file("replayed.strata")
        try DocumentReplay.replay(url, through: last, to: copy)
        let replayed = try DocumentStack.open(copy)
        let context = replayed.newContext()
        #expect(try employeeIDs(named: "Replayed", in: context).count == 50)
        let apollo = try context.existingObject(with: try #require(try context.fetch(
            FetchRequest(entityName: "Project", predicate: try FetchPredicate(format: "name == 'Apollo'"))).first?.objectID))
        #expect(try apollo.relatedSet("members").count == 52)
        #expect(try replayed.store.historyGroups().last?.actionName == "Batch Insert Employee")
        try replayed.store.close()
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aContextHoldingObjectsOfTheEntitySeesTheNewRecordsOnceItMerges(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let context = fixture.fresh()
        let ada = try context.existingObject(with: graph.employee("Ada"))
        try ada.setValue(.integer(1), forKey: "salary")   // pending, must survive the merge
        let research = try context.existingObject(with: graph.departments["R&D"]!)
        #expect(try research.relatedSet("employees").count == 2)
        let watcher = fixture.fresh()
        watcher.automaticallyMergesChangesFromParent = true
        let watched = try watcher.existingObject(with: graph.departments["R&D"]!)
        #expect(try watched.relatedSet("employees").count == 2)

        let request = BatchInsertRequest(entityName: "Employee", objects: (1...3).map { employeeRow("New\($0)", ["department": .object(graph.departments["R&D"]!)]) })
        let result = try fixture.context.executeBatch(request)
        try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context])
        #expect(try context.count(for: FetchRequest(entityName: "Employee")) == 8)
        #expect(try research.relatedSet("employees").count == 5)
        #expect(try ada.int("salary") == 1)
        #expect(ada.hasChanges)
        #expect(try context.fetch(FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName BEGINSWITH 'New'"))).count == 3)
        _ = try watcher.fetch(FetchRequest(entityName: "Department"))   // takes in what arrived
        #expect(try watched.relatedSet("employees").count == 5)
        #expect(try watcher.count(for: FetchRequest(entityName: "Employee")) == 8)
    }
}
