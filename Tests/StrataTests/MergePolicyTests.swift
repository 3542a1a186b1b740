import Foundation
import Testing
@testable import Strata

/// Two contexts on one coordinator that both read the batch graph before either saves.
private struct TwoEditors {
    let fixture: BatchFixture
    let graph: BatchGraph
    let first: ManagedObjectContext
    let second: ManagedObjectContext

    init(_ kind: BatchStoreKind) throws {
        fixture = try BatchFixture(kind)
        graph = try BatchGraph(in: fixture.context)
        first = fixture.fresh()
        second = fixture.fresh()
    }

    var store: any PersistentStore { fixture.store }

    /// The employee's object in `context`, loaded.
    func employee(_ name: String, in context: ManagedObjectContext) throws -> ManagedObject {
        try context.existingObject(with: graph.employee(name))
    }

    func stored(_ name: String, _ key: String) throws -> PropertyValue? {
        try storedValue(graph.employee(name), key, in: store)
    }
}

@Suite struct OptimisticLocking {
    @Test(arguments: BatchStoreKind.allCases)
    func aSaveOverAnotherContextsSaveOfTheSameRecordIsRefusedWithEachConflict(kind: BatchStoreKind) throws {
        let editors = try TwoEditors(kind)
        let adaFirst = try editors.employee("Ada", in: editors.first)
        let adaSecond = try editors.employee("Ada", in: editors.second)
        try adaFirst.setValue(.integer(1), forKey: "salary")
        try editors.first.save()
        try adaSecond.setValue("Augusta", forKey: "firstName")

        let error = strataError { try editors.second.save() }
        #expect(error?.code == .mergeConflict, "\(String(describing: error))")
        let conflict = try #require(error?.mergeConflicts.first)
        #expect(error?.mergeConflicts.count == 1)
        #expect(conflict.objectID == adaSecond.objectID)
        #expect(conflict.storeChangedKeys == ["salary"])
        #expect(conflict.committedSnapshot["salary"] == .integer(120_000))
        #expect(conflict.persistedSnapshot?["salary"] == .integer(1))
        #expect(conflict.objectSnapshot?["firstName"] == .string("Augusta"))
        #expect(error?.description.contains("salary") == true)
        // Nothing written, and the context keeps its change for the application.
        #expect(try editors.stored("Ada", "firstName") == .string("Ada"))
        #expect(adaSecond.hasChanges)
        #expect(try adaSecond.string("firstName") == "Augusta")
        #expect(try adaSecond.int("salary") == 120_000)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func noConflictAfterMergingTheOtherSaveOrWhenTheRecordsDiffer(kind: BatchStoreKind) throws {
        let editors = try TwoEditors(kind)
        let adaFirst = try editors.employee("Ada", in: editors.first)
        let adaSecond = try editors.employee("Ada", in: editors.second)
        let alanSecond = try editors.employee("Alan", in: editors.second)
        try adaFirst.setValue(.integer(1), forKey: "salary")
        try editors.first.save()
        let saved = SaveChanges(updated: [adaFirst.objectID])

        try alanSecond.setValue(.integer(2), forKey: "salary")   // another record: no conflict
        try editors.second.save()
        #expect(try editors.stored("Alan", "salary") == .integer(2))

        editors.second.mergeChanges(fromContextDidSave: saved)
        try adaSecond.setValue("Augusta", forKey: "firstName")
        try editors.second.save()
        #expect(try editors.stored("Ada", "salary") == .integer(1))
        #expect(try editors.stored("Ada", "firstName") == .string("Augusta"))
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aRecordChangedAndChangedBackIsNoConflict(kind: BatchStoreKind) throws {
        let editors = try TwoEditors(kind)
        let adaFirst = try editors.employee("Ada", in: editors.first)
        let adaSecond = try editors.employee("Ada", in: editors.second)
        try adaFirst.setValue(.integer(1), forKey: "salary")
        try editors.first.save()
        try adaFirst.setValue(.integer(120_000), forKey: "salary")
        try editors.first.save()
        try adaSecond.setValue("Augusta", forKey: "firstName")
        try editors.second.save()
        #expect(try editors.stored("Ada", "firstName") == .string("Augusta"))
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aChangeUndoneBeforeSavingDoesNotWriteTheOldValueOverAnotherSave(kind: BatchStoreKind) throws {
        let editors = try TwoEditors(kind)
        let adaSecond = try editors.employee("Ada", in: editors.second)
        try adaSecond.setValue(.integer(5), forKey: "salary")
        editors.second.processPendingChanges()
        try adaSecond.setValue(.integer(120_000), forKey: "salary")   // back: logged twice, nothing to save
        editors.second.processPendingChanges()
        #expect(!adaSecond.hasChanges)
        let adaFirst = try editors.employee("Ada", in: editors.first)
        try adaFirst.setValue(.integer(1), forKey: "salary")
        try editors.first.save()

        #expect(strataError { try editors.second.save() }?.code == .mergeConflict)
        editors.second.mergePolicy = .mergeByPropertyObjectTrump
        try editors.second.save()
        #expect(try editors.stored("Ada", "salary") == .integer(1), "the first context's salary survives")
        #expect(try adaSecond.int("salary") == 1)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aBatchUpdateConflictsUntilItIsMerged(kind: BatchStoreKind) throws {
        let editors = try TwoEditors(kind)
        let adaSecond = try editors.employee("Ada", in: editors.second)
        let result = try editors.first.executeBatch(BatchUpdateRequest(
            entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Ada'"), propertiesToUpdate: ["salary": 7]))
        try adaSecond.setValue("Augusta", forKey: "firstName")
        #expect(strataError { try editors.second.save() }?.mergeConflicts.map(\.objectID) == [adaSecond.objectID])
        try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [editors.second])
        try editors.second.save()
        #expect(try editors.stored("Ada", "salary") == .integer(7))
        #expect(try editors.stored("Ada", "firstName") == .string("Augusta"))
    }
}

@Suite struct MergePolicies {
    /// What Ada's salary, firstName and lastName end as when the first context saves
    /// salary 1 and lastName "Byron" and the second then saves salary 2 and firstName
    /// "Augusta" under the policy (she started as 120000, "Ada", "Adason").
    static let bothEditAda: [(MergePolicy, [String: PropertyValue])] = [
        // Store trump: the store's value where both changed, the object's elsewhere.
        (.mergeByPropertyStoreTrump, ["salary": .integer(1), "firstName": .string("Augusta"), "lastName": .string("Byron")]),
        // Object trump: the object's changes, and the store's other changes.
        (.mergeByPropertyObjectTrump, ["salary": .integer(2), "firstName": .string("Augusta"), "lastName": .string("Byron")]),
        // Overwrite: every attribute as the object holds it.
        (.overwrite, ["salary": .integer(2), "firstName": .string("Augusta"), "lastName": .string("Adason")]),
        // Rollback: the conflicting object's changes are discarded.
        (.rollback, ["salary": .integer(1), "firstName": .string("Ada"), "lastName": .string("Byron")]),
    ]

    @Test(arguments: BatchStoreKind.allCases, bothEditAda.indices)
    func eachPolicyDecidesBothContextsChangesToOneRecord(kind: BatchStoreKind, index: Int) throws {
        let (policy, expected) = Self.bothEditAda[index]
        let editors = try TwoEditors(kind)
        let adaFirst = try editors.employee("Ada", in: editors.first)
        let ada = try editors.employee("Ada", in: editors.second)
        try adaFirst.setValue(.integer(1), forKey: "salary")
        try adaFirst.setValue("Byron", forKey: "lastName")
        try editors.first.save()
        try ada.setValue(.integer(2), forKey: "salary")
        try ada.setValue("Augusta", forKey: "firstName")
        editors.second.mergePolicy = policy
        let recorder = NotificationRecorder([ManagedObjectContext.objectsDidChangeNotification], object: editors.second)
        try editors.second.save()

        #expect(!ada.hasChanges, "\(policy): saved")
        for (key, value) in expected {
            #expect(try editors.stored("Ada", key) == value, "\(policy): \(key) in the store")
            #expect(try ada.value(forKey: key) == value, "\(policy): \(key) in the context")
        }
        let refreshed = recorder.userInfos.compactMap { $0[ManagedObjectContext.refreshedObjectsKey] }
        #expect(refreshed.contains([ada.objectID]), "\(policy): the resolution is announced as a refresh")
    }

    @Test(arguments: BatchStoreKind.allCases)
    func rollbackLeavesObjectsWithoutConflictsAlone(kind: BatchStoreKind) throws {
        let editors = try TwoEditors(kind)
        let adaSecond = try editors.employee("Ada", in: editors.second)   // read before the first saves
        try editors.employee("Ada", in: editors.first).setValue(.integer(1), forKey: "salary")
        try editors.first.save()
        try adaSecond.setValue(.integer(2), forKey: "salary")
        try editors.employee("Alan", in: editors.second).setValue(.integer(3), forKey: "salary")
        editors.second.mergePolicy = .rollback
        try editors.second.save()
        #expect(try editors.stored("Ada", "salary") == .integer(1))
        #expect(try editors.stored("Alan", "salary") == .integer(3))
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aRecordDeletedInTheStoreStaysDeletedAndItsChangesAreDropped(kind: BatchStoreKind) throws {
        let editors = try TwoEditors(kind)
        let barbara = try editors.employee("Barbara", in: editors.second)
        editors.first.delete(try editors.employee("Barbara", in: editors.first))
        try editors.first.save()
        try barbara.setValue(.integer(5), forKey: "salary")
        try editors.employee("Alan", in: editors.second).setValue(.integer(3), forKey: "salary")

        let error = strataError { try editors.second.save() }
        #expect(error?.code == .mergeConflict)
        #expect(error?.mergeConflicts.first?.persistedSnapshot == nil)
        #expect(error?.mergeConflicts.first?.description.contains("deleted in the store") == true)

        editors.second.mergePolicy = .mergeByPropertyObjectTrump
        try editors.second.save()
        #expect(barbara.isInvalid)
        #expect(try editors.store.values(for: editors.graph.employee("Barbara")) == nil)
        #expect(try editors.stored("Alan", "salary") == .integer(3))
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aDeleteInTheContextStandsOverAChangeInTheStore(kind: BatchStoreKind) throws {
        let editors = try TwoEditors(kind)
        let barbara = try editors.employee("Barbara", in: editors.second)
        try editors.employee("Barbara", in: editors.first).setValue(.integer(5), forKey: "salary")
        try editors.first.save()
        editors.second.delete(barbara)

        let error = strataError { try editors.second.save() }
        #expect(error?.mergeConflicts.first?.objectSnapshot == nil)
        #expect(error?.mergeConflicts.first?.persistedSnapshot?["salary"] == .integer(5))
        editors.second.mergePolicy = .mergeByPropertyStoreTrump
        try editors.second.save()
        #expect(try editors.store.values(for: editors.graph.employee("Barbara")) == nil)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func storeTrumpOnAToOneKeepsBothEndsConsistent(kind: BatchStoreKind) throws {
        let editors = try TwoEditors(kind)
        let sales = editors.graph.departments["Sales"]!
        let research = editors.graph.departments["R&D"]!
        let alanSecond = try editors.employee("Alan", in: editors.second)
        try editors.employee("Alan", in: editors.first).setObject(editors.first.existingObject(with: sales), forKey: "department")
        try editors.first.save()
        let ops = try editors.second.insertObject(forEntityName: "Department")
        try ops.setValue("Ops", forKey: "name")
        try alanSecond.setObject(ops, forKey: "department")
        editors.second.mergePolicy = .mergeByPropertyStoreTrump
        try editors.second.save()

        #expect(try alanSecond.related("department")?.objectID == sales)
        #expect(try ops.relatedSet("employees").isEmpty)
        let reader = editors.fixture.fresh()
        let alan = try reader.existingObject(with: editors.graph.employee("Alan"))
        #expect(try alan.related("department")?.objectID == sales)
        #expect(try reader.existingObject(with: sales).relatedSet("employees").contains(alan))
        #expect(try !reader.existingObject(with: research).relatedSet("employees").contains(alan))
        #expect(try reader.existingObject(with: ops.objectID).relatedSet("employees").isEmpty)
    }

    @Test(arguments: BatchStoreKind.allCases, [MergePolicy.mergeByPropertyObjectTrump, .overwrite])
    func objectTrumpOnAToOneTakesTheRecordOutOfTheStoresNewDestination(kind: BatchStoreKind, policy: MergePolicy) throws {
        let editors = try TwoEditors(kind)
        let sales = editors.graph.departments["Sales"]!
        let research = editors.graph.departments["R&D"]!
        let alanSecond = try editors.employee("Alan", in: editors.second)
        try editors.employee("Alan", in: editors.first).setObject(editors.first.existingObject(with: sales), forKey: "department")
        try editors.first.save()
        let ops = try editors.second.insertObject(forEntityName: "Department")
        try ops.setValue("Ops", forKey: "name")
        try alanSecond.setObject(ops, forKey: "department")
        editors.second.mergePolicy = policy
        try editors.second.save()

        let reader = editors.fixture.fresh()
        let alan = try reader.existingObject(with: editors.graph.employee("Alan"))
        #expect(try alan.related("department")?.objectID == ops.objectID)
        #expect(try reader.existingObject(with: ops.objectID).relatedSet("employees") == [alan])
        #expect(try !reader.existingObject(with: sales).relatedSet("employees").contains(alan), "Sales no longer lists Alan")
        #expect(try !reader.existingObject(with: research).relatedSet("employees").contains(alan))
    }

    @Test(arguments: BatchStoreKind.allCases)
    func membersRemovedAndAddedBackDoNotComeBackOverTheStoresChange(kind: BatchStoreKind) throws {
        let editors = try TwoEditors(kind)
        let sales = editors.graph.departments["Sales"]!
        let research = editors.graph.departments["R&D"]!
        let researchSecond = try editors.second.existingObject(with: research)
        let alanSecond = try editors.employee("Alan", in: editors.second)
        try editors.employee("Alan", in: editors.first).setObject(editors.first.existingObject(with: sales), forKey: "department")
        try editors.first.save()
        // The second context takes Alan out of R&D and puts him back (two flushes: nothing
        // to save for him), and renames R&D.
        try researchSecond.mutableSetValue(forKey: "employees").remove(alanSecond)
        editors.second.processPendingChanges()
        try researchSecond.mutableSetValue(forKey: "employees").add(alanSecond)
        editors.second.processPendingChanges()
        try researchSecond.setValue("Research", forKey: "name")
        #expect(!alanSecond.hasChanges)
        editors.second.mergePolicy = .mergeByPropertyObjectTrump
        try editors.second.save()

        let reader = editors.fixture.fresh()
        let alan = try reader.existingObject(with: editors.graph.employee("Alan"))
        #expect(try alan.related("department")?.objectID == sales, "the first context's move stands")
        #expect(try reader.existingObject(with: research).string("name") == "Research")
        #expect(try !reader.existingObject(with: research).relatedSet("employees").contains(alan))
        #expect(try reader.existingObject(with: sales).relatedSet("employees").contains(alan))
        #expect(try alanSecond.related("department")?.objectID == sales, "the context took the store's value")
        #expect(try !researchSecond.relatedSet("employees").contains(alanSecond))
    }

    @Test(arguments: BatchStoreKind.allCases, MergePolicy.allCases.filter { $0 != .error })
    func toManyMembersMergeUnderEveryPolicy(kind: BatchStoreKind, policy: MergePolicy) throws {
        let editors = try TwoEditors(kind)
        let engine = editors.graph.projects["Engine"]!
        // Both change Engine's members (many-to-many): the first adds Barbara, the second
        // adds Edsger and removes Alan.
        let barbara = try editors.employee("Barbara", in: editors.first)
        try barbara.mutableSetValue(forKey: "projects").add(editors.first.existingObject(with: engine))
        try editors.first.save()
        let engineSecond = try editors.second.existingObject(with: engine)
        try engineSecond.mutableSetValue(forKey: "members").add(editors.employee("Edsger", in: editors.second))
        try engineSecond.mutableSetValue(forKey: "members").remove(editors.employee("Alan", in: editors.second))
        editors.second.mergePolicy = policy
        try editors.second.save()

        let expected: Set<ManagedObjectID> = Set(["Ada", "Barbara", "Edsger"].map(editors.graph.employee))
        #expect(Set(try engineSecond.value(forKey: "members").objectIDs) == expected)
        let reader = editors.fixture.fresh()
        #expect(Set(try reader.existingObject(with: engine).value(forKey: "members").objectIDs) == expected)
        let edsger = try reader.existingObject(with: editors.graph.employee("Edsger"))
        #expect(try edsger.value(forKey: "projects").objectIDs == [engine])
    }
}

@Suite struct MergePoliciesAcrossProcesses {
    @Test func anotherConnectionsSaveIsMergedByPolicy() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (uri, first, second) = try DocumentStack.twoConnections(url) { stack in
            try BatchGraph(in: stack.context).employee("Ada").uriRepresentation()
        }
        let adaFirst = try first.object(uri)
        let adaSecond = try second.object(uri)
        try adaFirst.setValue(.integer(1), forKey: "salary")
        try first.context.save()
        try adaSecond.setValue("Augusta", forKey: "firstName")

        let error = strataError { try second.context.save() }
        #expect(error?.mergeConflicts.first?.storeChangedKeys == ["salary"], "\(String(describing: error))")
        second.context.mergePolicy = .mergeByPropertyObjectTrump
        try second.context.save()
        #expect(try adaSecond.int("salary") == 1)
        try first.store.close()
        try second.store.close()

        let reopened = try DocumentStack.open(url)
        let ada = try reopened.object(uri)
        #expect(try ada.int("salary") == 1)
        #expect(try ada.string("firstName") == "Augusta")
        try reopened.store.close()
    }
}

/// A store that plays another process: as its first write begins, "another process" has
/// just saved a salary for `victim` (written into the store), which the write's catch-up
/// reports, as a document store's does for a segment another connection appended.
private final class RacingStore: PersistentStore, @unchecked Sendable {
    let inner: InMemoryStore
    let victim: ManagedObjectID
    private var savedElsewhere = false
    private(set) var catchUps = 0
    private(set) var saves = 0

    init(model: ManagedObjectModel, victim: ManagedObjectID, inner: InMemoryStore) {
        self.inner = inner
        self.victim = victim
    }

    var identifier: String { inner.identifier }
    var configurationName: String? { inner.configurationName }
    var model: ManagedObjectModel { inner.model }
    func values(for objectID: ManagedObjectID) throws -> [PropertyValue]? { try inner.values(for: objectID) }
    func objectIDs(for entity: EntityDescription, includingSubentities: Bool) throws -> [ManagedObjectID] {
        try inner.objectIDs(for: entity, includingSubentities: includingSubentities)
    }
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> ClosedRange<Int64> {
        try inner.allocatePrimaryKeys(for: entity, count: count)
    }
    func largestGroupID() throws -> UInt64 { try inner.largestGroupID() }
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] { try inner.fetchObjectIDs(request) }
    func countObjects(_ request: StoreFetchRequest) throws -> Int { try inner.countObjects(request) }

    func performWrite<T>(_ body: (_ changedElsewhere: Set<ManagedObjectID>) throws -> T) throws -> T {
        catchUps += 1
        guard !savedElsewhere else { return try body([]) }
        savedElsewhere = true
        let slot = victim.entity.slot(forKey: "salary")!
        let old = try inner.values(for: victim)![slot]
        try inner.save(StoreSaveRequest(groups: [SegmentGroup(
            id: 1_000_000, kind: .user, revertsGroup: nil, actionName: "Elsewhere",
            operations: [.update(victim, changes: [SlotChange(slot: slot, old: old, new: .integer(42))])])]))
        return try body([victim])
    }

    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        saves += 1
        return try inner.save(request)
    }
}

@Suite struct SaveRaces {
    /// A save catches up once, as its write begins, and finds its conflicts there: nothing
    /// can land between that catch-up and its write, so it never writes, fails and tries
    /// again (docs/ARCHITECTURE.md, "Save").
    @Test(arguments: [MergePolicy.error, .mergeByPropertyObjectTrump])
    func aForeignSaveFoundByTheWritesCatchUpIsResolvedInOneAttempt(policy: MergePolicy) throws {
        let model = sharedExampleModel
        let inner = InMemoryStore(model: model)
        let setup = PersistentStoreCoordinator(model: model)
        try setup.addStore(inner)
        let graph = try BatchGraph(in: ManagedObjectContext(coordinator: setup))
        let store = RacingStore(model: model, victim: graph.employee("Ada"), inner: inner)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.mergePolicy = policy
        let ada = try context.existingObject(with: graph.employee("Ada"))
        try ada.setValue("Augusta", forKey: "firstName")

        let error = strataError { try context.save() }
        #expect(store.catchUps == 1, "one catch-up, as the write began")
        if policy == .error {
            #expect(error?.mergeConflicts.first?.storeChangedKeys == ["salary"], "\(String(describing: error))")
            #expect(store.saves == 0, "nothing written")
            #expect(try storedValue(ada.objectID, "firstName", in: inner) == .string("Ada"))
        } else {
            #expect(error == nil, "\(String(describing: error))")
            #expect(store.saves == 1, "written once")
            #expect(try storedValue(ada.objectID, "salary", in: inner) == .integer(42))
            #expect(try storedValue(ada.objectID, "firstName", in: inner) == .string("Augusta"))
        }
    }
}
