import Foundation
import Testing
@testable import Strata

/// Which store a batch test runs against.
enum BatchStoreKind: String, CaseIterable, Sendable {
    case memory, document
}

/// A context over a store of `kind`; `keepAlive` owns the document's directory.
struct BatchFixture {
    let context: ManagedObjectContext
    let store: any PersistentStore
    let keepAlive: AnyObject?

    init(_ kind: BatchStoreKind, model: ManagedObjectModel = sharedExampleModel) throws {
        switch kind {
        case .memory:
            let stack = Stack(model: model)
            (context, store, keepAlive) = (stack.context, stack.store, nil)
        case .document:
            let stack = try DocumentStack(model: model, configuration: manualCompaction())
            (context, store, keepAlive) = (stack.context, stack.store, stack)
        }
    }

    func fresh() -> ManagedObjectContext { ManagedObjectContext(coordinator: context.coordinator) }
}

@Suite struct BatchUpdateTests {
    @Test(arguments: BatchStoreKind.allCases)
    func aBatchUpdateChangesTheMatchingRecordsInTheStoreWithoutLoadingObjects(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let context = fixture.fresh()
        let request = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary >= %d", 100_000),
                                         propertiesToUpdate: ["salary": 99_000, "rating": 4])
        let result = try context.executeBatch(request)
        #expect(result.count == 2)
        #expect(result.objectIDs.isEmpty)
        #expect(result.changes.updated == [graph.employee("Ada"), graph.employee("Grace")])
        #expect(result.changes.deleted.isEmpty)
        #expect(context.registeredObjects.isEmpty)
        #expect(try storedValue(graph.employee("Ada"), "salary", in: fixture.store) == .integer(99_000))
        #expect(try storedValue(graph.employee("Ada"), "rating", in: fixture.store) == .double(4))
        #expect(try storedValue(graph.employee("Alan"), "salary", in: fixture.store) == .integer(90_000))
        #expect(try storedValue(graph.employee("Edsger"), "rating", in: fixture.store) == .null)
        let count = try fixture.fresh().count(for: FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary == 99000")))
        #expect(count == 2)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func theObjectIDsResultListsTheMatchedRecordsAndUnchangedRecordsAreCountedButNotWritten(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let request = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "department.name == 'R&D'"),
                                         propertiesToUpdate: ["salary": 90_000])
        request.resultType = .objectIDs
        let result = try fixture.fresh().executeBatch(request)
        #expect(Set(result.objectIDs) == [graph.employee("Ada"), graph.employee("Alan")])
        #expect(result.count == 2)
        #expect(result.changes.updated == [graph.employee("Ada")])   // Alan already earned 90000
        #expect(result.status)
    }

    @Test func wrongKeysAndValuesAreErrorsThatNameTheKey() throws {
        let fixture = try BatchFixture(.memory)
        _ = try BatchGraph(in: fixture.context)
        let context = fixture.fresh()
        func failure(_ values: [String: PropertyValue], entity: String = "Employee") -> StrataError? {
            strataError { _ = try context.executeBatch(BatchUpdateRequest(entityName: entity, propertiesToUpdate: values)) }
        }
        #expect(failure(["wage": 1])?.code == .unknownKey)
        #expect(failure(["wage": 1])?.context.key == "wage")
        #expect(failure(["salary": "lots"])?.code == .typeMismatch)
        #expect(failure(["salary": "lots"])?.message.contains("salary") == true)
        #expect(failure(["salary": 1.5])?.code == .typeMismatch)
        #expect(failure(["department": nil])?.code == .invalidArgument)
        #expect(failure(["fullName": "x"])?.code == .invalidArgument)
        #expect(failure(["salary": -5])?.code == .validation)
        #expect(failure(["lastName": nil])?.code == .validation)
        #expect(failure(["lastName": nil])?.problems.first?.key == "lastName")
        #expect(failure(["name": "x"], entity: "Nobody")?.code == .unknownKey)
        #expect(failure([:])?.code == .invalidArgument)
        // Nothing was written by the failed requests.
        #expect(try fixture.fresh().count(for: FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary < 0"))) == 0)
    }

    @Test func valuesAreCoercedToTheAttributeType() throws {
        let fixture = try BatchFixture(.memory)
        let graph = try BatchGraph(in: fixture.context)
        let badge = UUID()
        _ = try fixture.fresh().executeBatch(BatchUpdateRequest(
            entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Ada'"),
            propertiesToUpdate: ["salary": 5000.0, "rating": 3, "bonus": 2, "badge": .string(badge.uuidString), "active": 0]))
        let id = graph.employee("Ada")
        #expect(try storedValue(id, "salary", in: fixture.store) == .integer(5000))
        #expect(try storedValue(id, "rating", in: fixture.store) == .double(3))
        #expect(try storedValue(id, "bonus", in: fixture.store) == .decimal(2))
        #expect(try storedValue(id, "badge", in: fixture.store) == .uuid(badge))
        #expect(try storedValue(id, "active", in: fixture.store) == .boolean(false))
    }

    @Test func aDocumentRecordsTheBatchAsOneSegmentWithABatchGroupThatSurvivesCompactionAndReopening() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let graph = try BatchGraph(in: stack.context)
        let before = try stack.store.segmentRecords().count
        let request = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary < 100000"),
                                         propertiesToUpdate: ["salary": 100_000])
        _ = try stack.newContext().executeBatch(request)
        let records = try stack.store.segmentRecords()
        #expect(records.count == before + 1)
        let segment = try stack.store.decode(try #require(records.last))
        #expect(segment.groups.count == 1)
        let group = try #require(segment.groups.first)
        #expect(group.kind == .batch)
        #expect(group.actionName == "Batch Update Employee")
        let salary = try #require(graph.employee("Alan").entity.slot(forKey: "salary"))
        #expect(group.operations.contains(.update(graph.employee("Alan"), changes: [SlotChange(slot: salary, old: 90_000, new: 100_000)])))
        #expect(group.operations.count == 2)   // Alan and Barbara; Edsger's NULL does not match
        #expect(try stack.store.groupRecords().last?.info.kind == .batch)

        try stack.store.compact()
        #expect(try storedValue(graph.employee("Barbara"), "salary", in: stack.store) == .integer(100_000))
        try stack.reopen()
        #expect(try storedValue(graph.employee("Alan"), "salary", in: stack.store) == .integer(100_000))
        // The batch group is history, not something a restored undo stack reverts.
        try stack.context.restoreUndoHistory()
        #expect(stack.context.undoManager?.undoActionName != "Batch Update Employee")
    }
}

@Suite struct BatchDeleteTests {
    @Test(arguments: BatchStoreKind.allCases)
    func aBatchDeleteNullifiesInversesOfTheSurvivingRecords(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let request = BatchDeleteRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Ada'"))
        request.resultType = .objectIDs
        let result = try fixture.fresh().executeBatch(request)
        let ada = graph.employee("Ada")
        #expect(result.objectIDs == [ada])
        #expect(result.changes.deleted == [ada])
        #expect(result.changes.updated == [graph.departments["R&D"]!, graph.projects["Engine"]!, graph.projects["Apollo"]!,
                                           graph.employee("Alan"), graph.employee("Grace")])
        #expect(try fixture.store.values(for: ada) == nil)
        #expect(try storedValue(graph.employee("Alan"), "manager", in: fixture.store) == .null)
        #expect(try storedValue(graph.employee("Grace"), "manager", in: fixture.store) == .null)
        #expect(try storedValue(graph.departments["R&D"]!, "employees", in: fixture.store) == .objects([graph.employee("Alan")]))
        #expect(try storedValue(graph.projects["Apollo"]!, "members", in: fixture.store) == .objects([graph.employee("Grace")]))
        let reader = fixture.fresh()
        let loaded = try reader.existingObject(with: graph.departments["R&D"]!)
        #expect(try loaded.objects(forKey: "employees").map(\.objectID) == [graph.employee("Alan")])
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aBatchDeleteCascadesThroughCascadeRules(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let result = try fixture.fresh().executeBatch(BatchDeleteRequest(entityName: "Department",
                                                                        predicate: try FetchPredicate(format: "name == 'R&D'")))
        #expect(result.count == 1)
        #expect(result.changes.deleted == [graph.departments["R&D"]!, graph.employee("Ada"), graph.employee("Alan")])
        // Grace loses her manager, the projects lose their members.
        #expect(result.changes.updated == [graph.employee("Grace"), graph.projects["Engine"]!, graph.projects["Apollo"]!])
        #expect(try storedValue(graph.projects["Engine"]!, "members", in: fixture.store) == .objects([]))
        #expect(try fixture.fresh().count(for: FetchRequest(entityName: "Employee")) == 3)
        #expect(try storedValue(graph.employee("Grace"), "manager", in: fixture.store) == .null)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aDenyRuleWithASurvivingDestinationRefusesTheWholeRequestAndNamesTheRecord(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind, model: denyAndNoActionModel)
        let context = fixture.context
        let owner = try insertNamed("Owner", "Olga", in: context)
        let lonely = try insertNamed("Owner", "Lone", in: context)
        let pet = try insertNamed("Pet", "Rex", in: context)
        try pet.setObject(owner, forKey: "owner")
        try context.save()
        let error = strataError { _ = try fixture.fresh().executeBatch(BatchDeleteRequest(entityName: "Owner")) }
        #expect(error?.code == .validation)
        #expect(error?.context.object == owner.objectID.description)
        #expect(error?.context.key == "pets")
        #expect(try fixture.fresh().count(for: FetchRequest(entityName: "Owner")) == 2)
        // Without the pet, or deleting only the owner without pets, it goes through.
        let result = try fixture.fresh().executeBatch(BatchDeleteRequest(entityName: "Owner", predicate: try FetchPredicate(format: "name == 'Lone'")))
        #expect(result.changes.deleted == [lonely.objectID])
    }

    @Test func noActionLeavesTheDestinationsReferencesAlone() throws {
        let fixture = try BatchFixture(.memory, model: denyAndNoActionModel)
        let keeper = try insertNamed("Keeper", "Kim", in: fixture.context)
        let animal = try insertNamed("Animal", "Leo", in: fixture.context)
        try animal.setObject(keeper, forKey: "keeper")
        try fixture.context.save()
        let result = try fixture.fresh().executeBatch(BatchDeleteRequest(entityName: "Keeper"))
        #expect(result.changes.updated.isEmpty)
        #expect(try storedValue(animal.objectID, "keeper", in: fixture.store) == .object(keeper.objectID))
    }

    @Test func aFetchRequestBasedDeleteHonoursItsOrderAndLimit() throws {
        let fixture = try BatchFixture(.document)
        let graph = try BatchGraph(in: fixture.context)
        let fetch = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary != nil"),
                                 sortDescriptors: [FetchSortDescriptor("salary", ascending: false)])
        fetch.fetchLimit = 2
        let request = BatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .objectIDs
        let result = try fixture.fresh().executeBatch(request)
        #expect(result.objectIDs == [graph.employee("Grace"), graph.employee("Ada")])
        #expect(request.description == "BatchDeleteRequest(Employee where salary != NULL limit 2)")
    }

    @Test func aDocumentRecordsTheDeletesWithFullValuesAndReplaysThemAfterReopening() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let graph = try BatchGraph(in: stack.context)
        let ada = try #require(try stack.store.values(for: graph.employee("Ada")))
        _ = try stack.newContext().executeBatch(BatchDeleteRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Ada'")))
        let segment = try stack.store.decode(try #require(try stack.store.segmentRecords().last))
        let group = try #require(segment.groups.first)
        #expect(group.kind == .batch)
        #expect(group.actionName == "Batch Delete Employee")
        let deletes = group.operations.compactMap { operation -> [PropertyValue]? in
            if case .delete(_, let values) = operation { return values }
            return nil
        }
        #expect(deletes.count == 1)
        let firstName = try #require(graph.employee("Ada").entity.slot(forKey: "firstName"))
        #expect(deletes.first?[firstName] == .string("Ada"))
        #expect(deletes.first?.count == ada.count)
        // Reopened without compaction (overlay replay), then compacted.
        try stack.reopen(configuration: manualCompaction())
        #expect(try stack.store.values(for: graph.employee("Ada")) == nil)
        #expect(try storedValue(graph.employee("Alan"), "manager", in: stack.store) == .null)
        try stack.store.compact()
        #expect(try stack.store.values(for: graph.employee("Ada")) == nil)
        #expect(try storedValue(graph.departments["R&D"]!, "employees", in: stack.store) == .objects([graph.employee("Alan")]))
    }

    @Test func aStoreWithoutBatchSupportRunsTheRequestThroughItsRequirements() throws {
        let model = sharedExampleModel
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = CountingStore(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        let graph = try BatchGraph(in: context)
        let result = try ManagedObjectContext(coordinator: coordinator).executeBatch(
            BatchDeleteRequest(entityName: "Project", predicate: try FetchPredicate(format: "name == 'Engine'")))
        #expect(result.changes.deleted == [graph.projects["Engine"]!])
        #expect(try storedValue(graph.employee("Ada"), "projects", in: store) == .objects([graph.projects["Apollo"]!]))
    }
}
