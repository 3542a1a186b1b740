import Foundation
import Testing
@testable import Strata

#if STRATA_INVARIANTS
/// The internal checks (docs/INVARIANTS.md) catch a broken invariant in each checked type:
/// each test builds a sound value, breaks it through its `_corruptForTesting()` hook, and
/// asks the check directly (the after-mutation hook would stop the process instead).
@Suite struct InvariantChecks {
    /// A permanent ID and a full row of a new record of `entity`.
    private func record(_ entity: String, key: Int64 = 1) throws -> (ManagedObjectID, [PropertyValue]) {
        let stack = Stack()
        let object = try stack.context.insertObject(forEntityName: entity)
        let id = ManagedObjectID(entity: object.entity, storeTag: stack.store.tag, primaryKey: key)
        return (id, object.storage.array)
    }

    @Test func firstValuesOutOfSlotOrderAreCaught() {
        var values = FirstValues()
        values.recordFirst(3, .integer(1))
        values.recordFirst(5, .integer(2))
        values.recordFirst(4, .integer(3))
        #expect(values._invariantViolations().isEmpty)
        values._corruptForTesting()
        #expect(values._invariantViolations() == ["slot 3 follows slot 5"])
    }

    @Test func aSlotNameMissingFromItsTableIsCaught() {
        let storage = SlotNameStorage(["firstName", "lastName", "salary", "department"])
        #expect(storage._invariantViolations().isEmpty)
        storage._corruptForTesting()
        let violations = storage._invariantViolations()
        #expect(violations.contains("slot 0 is in 0 buckets"), "\(violations)")
        #expect(violations.contains("the lookup of 'firstName' (slot 0) fails"), "\(violations)")
    }

    @Test func aMiscountedObjectRegistryIsCaught() throws {
        let stack = Stack()
        let employees = try (0..<3).map { _ in try stack.employee() }
        var registry = ObjectRegistry()
        for employee in employees { registry[employee.objectID] = WeakObject(employee) }
        registry[employees[1].objectID] = nil
        #expect(registry._invariantViolations().isEmpty)
        registry._corruptForTesting()
        #expect(registry._invariantViolations() == ["the dense count is 3, the runs hold 2"])
    }

    @Test func removingAnAbsentObjectAllocatesNoSlot() throws {
        let stack = Stack()
        let employees = try (0..<2).map { _ in try stack.employee() }
        var registry = ObjectRegistry()
        registry[employees[0].objectID] = nil   // from an empty registry
        registry[employees[0].objectID] = WeakObject(employees[0])
        registry[employees[0].objectID] = nil   // the table is emptied and freed
        registry[employees[1].objectID] = nil   // absent from the freed table
        #expect(registry.count == 0)
        #expect(registry._invariantViolations().isEmpty)
        registry[employees[1].objectID] = WeakObject(employees[1])
        #expect(registry[employees[1].objectID] != nil && registry.count == 1)
    }

    @Test func aMiscountedRowTableIsCaught() throws {
        let (id, row) = try record("Department")
        var rows = RowTable()
        try rows.applyAtomically([.insert(id, values: row)], model: sharedExampleModel)
        #expect(rows._invariantViolations().isEmpty)
        rows._corruptForTesting()
        #expect(rows._invariantViolations() == ["the dense count is 2, the runs hold 1"])
    }

    @Test func aRecordBothPresentAndDeletedInTheOverlayIsCaught() throws {
        let (id, row) = try record("Department", key: 7)
        var patch = OverlayPatch()
        try patch.apply(.insert(id, values: row), base: { _ in nil })
        var overlay = DocumentOverlay()
        overlay.merge(patch)
        #expect(overlay._invariantViolations().isEmpty)
        overlay._corruptForTesting()
        #expect(overlay._invariantViolations() == ["\(id) both has a row and is deleted"])
    }

    @Test func aSequenceGapInTheOperationLogIsCaught() throws {
        let (id, row) = try record("Project")
        let log = OperationLog()
        log.append([.insert(id, values: row)], group: ChangeGroupInfo(id: 1, kind: .user), isUndoable: true)
        log.append([.delete(id, values: row)], group: ChangeGroupInfo(id: 1, kind: .user), isUndoable: true)
        #expect(log._invariantViolations().isEmpty)
        log._corruptForTesting()
        #expect(log._invariantViolations() == ["the next sequence number 4 does not follow the last batch's 2"])
    }

    @Test func aRelationshipWhoseInverseDoesNotPointBackIsCaughtWithoutLoading() throws {
        let stack = Stack()
        let employee = try stack.employee()
        let department = try stack.department()
        try employee.setObject(department, forKey: "department")
        try stack.context.save()
        #expect(stack.context.graphInvariantViolations(loading: false).isEmpty)
        // Behind the context's back, as a bug would: the department forgets its employee.
        let slot = try #require(department.entity.slot(forKey: "employees"))
        department.storage[slot] = .objects([])
        #expect(stack.context.graphInvariantViolations(loading: false) == [
            "\(employee.objectID).department → \(department.objectID), but \(department.objectID).employees does not point back",
        ])
    }
}
#endif
