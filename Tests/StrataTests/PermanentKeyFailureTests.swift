import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// docs/ARCHITECTURE.md, "When new objects get their keys": keys come only from
/// `allocatePrimaryKeys`; a save whose write fails gives its records temporary IDs again;
/// batch inserts name their rows themselves; stores refuse temporary IDs.
@Suite struct PermanentKeyFailures {
    private func insertEmployees(_ context: ManagedObjectContext, count: Int, department: ManagedObject) throws -> [ManagedObject] {
        try (0..<count).map { index in
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("E\(index)"), forKey: "firstName")
            try employee.setValue(.string("Last\(index)"), forKey: "lastName")
            try employee.setObject(department, forKey: "department")
            return employee
        }
    }

    private func employeeKeys(_ store: any PersistentStore) throws -> [Int64] {
        try store.objectIDs(for: store.model.entity(named: "Employee"), includingSubentities: false).map(\.primaryKey)
    }

    @Test func aSaveWhoseWriteFailsLeavesTemporaryIDsAndTheRetryTakesKeysNoOneElseHas() throws {
        let directory = try TemporaryDirectory()
        let (_, one, other) = try DocumentStack.twoConnections(directory.file()) { _ in () }
        let failing = CommitFailingStore(one.store)
        let coordinator = PersistentStoreCoordinator(model: one.model)
        try coordinator.addStore(failing)
        let context = ManagedObjectContext(coordinator: coordinator)
        let child = ManagedObjectContext(parent: context)
        let department = try context.insertObject(forEntityName: "Department")
        try department.setValue("Research", forKey: "name")
        let employees = try insertEmployees(context, count: 20, department: department)
        // Inserted and deleted again before the save: the log still names it.
        let gone = try context.insertObject(forEntityName: "Employee")
        try gone.setValue("Gone", forKey: "firstName")
        try gone.setValue("Away", forKey: "lastName")
        context.processPendingChanges()
        context.delete(gone)
        context.processPendingChanges()
        let temporary = employees.map(\.objectID)

        failing.failsNextCommit = true
        #expect { try context.save() } throws: { ($0 as? StrataError)?.message.contains("simulated failed commit") == true }
        // The write had renamed them; the failure gave them temporary IDs again.
        let used = failing.lastInsertedKeys
        #expect(used.count == 22, "20 employees, the deleted one and the department")
        #expect(employees.allSatisfy { $0.objectID.isTemporaryID })
        #expect(department.objectID.isTemporaryID)
        #expect(Set(employees.map(\.objectID)).isDisjoint(with: temporary), "fresh temporary IDs")
        for employee in employees {
            #expect(context.registeredObject(for: employee.objectID) === employee)
            #expect(try employee.object(forKey: "department")?.objectID == department.objectID)
        }
        #expect(try department.objects(forKey: "employees").count == 20)
        #expect(child.permanentIDMail.withLock { $0.isEmpty }, "children hear of IDs only after a commit")
        #expect(try employeeKeys(other.store).isEmpty)

        // The reservation was rolled back with the write: another connection is handed the
        // same keys, which no object here holds.
        let employeeEntity = try one.model.entity(named: "Employee")
        let theirs = try other.store.allocatePrimaryKeys(for: employeeEntity, count: 21)
        #expect(theirs == 1...21)
        let usedEmployeeKeys = Set(used.filter { $0.entity.rootEntity === employeeEntity.rootEntity }.map(\.primaryKey))
        #expect(usedEmployeeKeys == Set(1...21), "the failed save had used the keys the other connection now holds")

        try context.save()
        let keys = employees.map(\.objectID.primaryKey)
        #expect(employees.allSatisfy { !$0.objectID.isTemporaryID })
        #expect(Set(keys).count == 20 && keys.allSatisfy { !theirs.contains($0) })
        #expect(!child.permanentIDMail.withLock { $0.isEmpty }, "told once the save committed")
        try one.store.close()
        try other.store.close()
        let reopened = try DocumentStack.open(directory.file())
        #expect(try employeeKeys(reopened.store) == keys.sorted())
        let saved = try reopened.context.existingObject(with: department.objectID)
        #expect(try saved.objects(forKey: "employees").map(\.objectID).sorted() == employees.map(\.objectID).sorted())
        try reopened.store.close()
    }

    @Test func undoAcrossAFailedSaveStillNamesTheObjects() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let failing = CommitFailingStore(stack.store)
        let coordinator = PersistentStoreCoordinator(model: stack.model)
        try coordinator.addStore(failing)
        let context = ManagedObjectContext(coordinator: coordinator)
        let department = try context.insertObject(forEntityName: "Department")
        try department.setValue("Research", forKey: "name")
        let employees = try insertEmployees(context, count: 3, department: department)
        context.processPendingChanges()
        failing.failsNextCommit = true
        #expect(throws: StrataError.self) { try context.save() }
        // The undo stack was renamed back with everything else: undo and redo still name the
        // objects, and the save after them writes them.
        try context.undoManager?.undo()
        try context.undoManager?.redo()
        try context.save()
        #expect(try employeeKeys(stack.store) == [1, 2, 3], "the rolled-back reservation left nothing behind")
        #expect(employees.allSatisfy { !$0.objectID.isTemporaryID })
        #expect(try employees.map { try $0.string("firstName") } == ["E0", "E1", "E2"])
        let reader = ManagedObjectContext(coordinator: coordinator)
        #expect(try reader.existingObject(with: department.objectID).objects(forKey: "employees").count == 3)
    }

    @Test func recordsInsertedAndDeletedBeforeTheSaveComeBackWithUndoAfterIt() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let context = stack.context
        let undo = stack.undo
        let department = try context.insertObject(forEntityName: "Department")
        try department.setValue("Research", forKey: "name")
        try context.save()
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue("Temp", forKey: "firstName")
        try employee.setValue("Worker", forKey: "lastName")
        try employee.setObject(department, forKey: "department")
        undo.setActionName("Hire")
        context.processPendingChanges()
        context.delete(employee)
        undo.setActionName("Fire")
        context.processPendingChanges()
        try context.save()
        #expect(try employeeKeys(stack.store).isEmpty)
        // Undone after the save: the record comes back under the key the save gave it.
        try undo.undo()
        #expect(!employee.isDeleted)
        #expect(!employee.objectID.isTemporaryID, "the save gave the deleted record a key too")
        try context.save()
        #expect(try employeeKeys(stack.store) == [employee.objectID.primaryKey])
        let reader = stack.newContext()   // held: an object holds its context weakly
        #expect(try reader.existingObject(with: department.objectID).objects(forKey: "employees").map(\.objectID) == [employee.objectID])
        try undo.undo()
        try context.save()
        #expect(try employeeKeys(stack.store).isEmpty)
        try undo.redo()
        try undo.redo()
        try context.save()
        #expect(try employeeKeys(stack.store).isEmpty, "redone: hired, then fired again")
    }

    @Test func aBatchInsertNamesItsRowsWithOneReservationPerChunk() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let chunk = BatchInsertWriter.documentChunkSize
        let rows = chunk + 300
        let request = BatchInsertRequest(entityName: "Department", objects: (0..<rows).map { ["name": .string("D\($0)")] })
        request.resultType = .objectIDs
        // Another connection's reservation between two batches: the second continues above it.
        let first = try stack.context.executeBatch(request).objectIDs
        #expect(first.count == rows)
        #expect(first.allSatisfy { !$0.isTemporaryID && $0.storeTag == StoreRegistry.tag(for: stack.store.identifier) })
        #expect(first.map(\.primaryKey) == (1...Int64(rows)).map { $0 }, "consecutive, chunk by chunk")
        let reserved = try stack.store.allocatePrimaryKeys(for: stack.model.entity(named: "Department"), count: 5)
        let second = try stack.context.executeBatch(BatchInsertRequest(entityName: "Department", objects: [["name": "X"], ["name": "Y"]]))
        #expect(second.count == 2)
        let keys = try stack.store.objectIDs(for: stack.model.entity(named: "Department"), includingSubentities: false).map(\.primaryKey)
        #expect(Array(keys.suffix(2)) == [reserved.upperBound + 1, reserved.upperBound + 2])
        // In memory: one chunk, one reservation.
        let memory = InMemoryStore(model: stack.model)
        let coordinator = PersistentStoreCoordinator(model: stack.model)
        try coordinator.addStore(memory)
        let small = BatchInsertRequest(entityName: "Department", objects: [["name": "A"], ["name": "B"], ["name": "C"]])
        small.resultType = .objectIDs
        #expect(try ManagedObjectContext(coordinator: coordinator).executeBatch(small).objectIDs.map(\.primaryKey) == [1, 2, 3])
    }

    @Test(arguments: ["document", "memory"])
    func aStoreSaveGivenATemporaryIDThrows(kind: String) throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let store: any PersistentStore = kind == "document" ? stack.store : InMemoryStore(model: stack.model)
        let department = try stack.model.entity(named: "Department")
        let temporary = ManagedObjectID.temporary(for: department)
        let values = RowTable.persistent(Array(repeating: .null, count: department.slotCount), of: department)
        let request = StoreSaveRequest(groups: [SegmentGroup(id: UndoGroupIDs.temporary(), kind: .user, revertsGroup: nil, actionName: "",
                                                             operations: [.insert(temporary, values: values)])])
        #expect {
            try store.save(request)
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .invalidArgument && error.message.contains(temporary.description)
                && error.message.contains("allocatePrimaryKeys") && error.context.object == temporary.description
        }
        #expect(try store.objectIDs(for: department, includingSubentities: false).isEmpty)
        #expect(try store.largestGroupID() == 0, "no group id handed out")
    }
}

/// A document store whose held write fails after its body, as a failed COMMIT (a full
/// disk) does: everything the save wrote inside it is rolled back.
private final class CommitFailingStore: PersistentStore, @unchecked Sendable {
    let base: DocumentStore
    var failsNextCommit = false
    /// The IDs the last save inserted.
    private(set) var lastInsertedKeys: [ManagedObjectID] = []

    init(_ base: DocumentStore) { self.base = base }

    var identifier: String { base.identifier }
    var configurationName: String? { base.configurationName }
    var model: ManagedObjectModel { base.model }
    func values(for objectID: ManagedObjectID) throws -> [PropertyValue]? { try base.values(for: objectID) }
    func objectIDs(for entity: EntityDescription, includingSubentities: Bool) throws -> [ManagedObjectID] {
        try base.objectIDs(for: entity, includingSubentities: includingSubentities)
    }
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> ClosedRange<Int64> {
        try base.allocatePrimaryKeys(for: entity, count: count)
    }
    func largestGroupID() throws -> UInt64 { try base.largestGroupID() }
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] { try base.fetchObjectIDs(request) }
    func countObjects(_ request: StoreFetchRequest) throws -> Int { try base.countObjects(request) }

    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        lastInsertedKeys = request.groups.flatMap { group in
            group.operations.compactMap { if case .insert(let id, _) = $0 { id } else { nil } }
        }
        return try base.save(request)
    }

    func performWrite<T>(_ body: (_ changedElsewhere: Set<ManagedObjectID>) throws -> T) throws -> T {
        try base.performWrite { changed in
            let result = try body(changed)
            if failsNextCommit {
                failsNextCommit = false
                throw StrataError(.io, "A simulated failed commit (the disk is full).")
            }
            return result
        }
    }
}
