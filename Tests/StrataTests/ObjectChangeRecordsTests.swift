import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// An object's committed and flush records live out of line (`ChangeRecords`), only while
/// it has changes to remember, and its flags take two bytes, so that an object is 72 bytes
/// (docs/ARCHITECTURE.md, "One path for every change").
@Suite struct ObjectChangeRecords {
    /// `count` saved employees (undo off) and their context's stack.
    private func savedEmployees(_ count: Int) throws -> (DocumentStack, [ManagedObject]) {
        let stack = try DocumentStack(configuration: manualCompaction())
        stack.context.undoManager = nil
        let employees = try (0..<count).map { index in
            let employee = try stack.context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("First\(index)"), forKey: "firstName")
            try employee.setValue(.string("Last\(index)"), forKey: "lastName")
            return employee
        }
        try stack.context.save()
        return (stack, employees)
    }

    @Test func insertedFlushedSavedAndFetchedObjectsHaveNoRecords() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        stack.context.undoManager = nil
        let employee = try stack.context.insertObject(forEntityName: "Employee")
        try employee.setValue("Ada", forKey: "firstName")
        try employee.setValue("Lovelace", forKey: "lastName")
        #expect(employee.changeRecords == nil, "an insert before its flush records nothing")
        stack.context.processPendingChanges()
        #expect(employee.changeRecords == nil)
        try stack.context.save()
        #expect(employee.changeRecords == nil)
        let other = stack.newContext()
        let fetched = try other.existingObject(with: employee.objectID)
        #expect(try fetched.string("firstName") == "Ada")
        #expect(fetched.changeRecords == nil, "a fetch records nothing")
    }

    @Test func aChangeAfterTheSaveRecordsTheCommittedValueAndTheSaveFreesIt() throws {
        let (stack, employees) = try savedEmployees(3)
        let employee = employees[1]
        try employee.setValue("Changed", forKey: "lastName")
        #expect(employee.isUpdated)
        #expect(employee.committedValue(slot: try #require(employee.entity.slot(forKey: "lastName"))) == .string("Last1"))
        #expect(employee.changeRecords != nil)
        #expect(employees[0].changeRecords == nil && employees[2].changeRecords == nil)
        stack.context.processPendingChanges()
        #expect(employee.isUpdated, "the flush keeps the committed record")
        try stack.context.save()
        #expect(!employee.isUpdated)
        #expect(employee.changeRecords == nil)
        let fresh = stack.newContext()
        #expect(try fresh.existingObject(with: employee.objectID).string("lastName") == "Changed")
    }

    @Test func aValueSetBackFreesTheRecordsAtTheFlush() throws {
        let (stack, employees) = try savedEmployees(2)
        let employee = employees[0]
        try employee.setValue("Other", forKey: "firstName")
        try employee.setValue("First0", forKey: "firstName")
        #expect(!employee.hasChanges)
        stack.context.processPendingChanges()
        #expect(employee.changeRecords == nil)
        #expect(!stack.context.hasChanges)
    }

    @Test func editsBetweenFlushesAreLoggedFromTheirFirstOldValue() throws {
        let (stack, employees) = try savedEmployees(1)
        let employee = employees[0]
        let undo = ContextUndoManager()
        stack.context.undoManager = undo
        for round in 0..<3 {
            try employee.setValue(.string("A\(round)"), forKey: "lastName")
            try employee.setValue(.string("B\(round)"), forKey: "lastName")
            stack.context.processPendingChanges()
        }
        #expect(try employee.string("lastName") == "B2")
        try undo.undo()
        #expect(try employee.string("lastName") == "B1")
        stack.context.rollback()
        #expect(try employee.string("lastName") == "Last0")
        #expect(!employee.hasChanges)
        #expect(employee.changeRecords == nil, "a rollback frees the records")
    }

    @Test func anInsertChangedAfterItsFlushKeepsItsFlushRecordUntilTheSave() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let employee = try stack.context.insertObject(forEntityName: "Employee")
        try employee.setValue("Ada", forKey: "firstName")
        try employee.setValue("Lovelace", forKey: "lastName")
        stack.context.processPendingChanges()
        try employee.setValue("Grace", forKey: "firstName")
        #expect(employee.changeRecords?.committedOld == nil, "an insert has no committed values")
        #expect(employee.changeRecords?.flushOld[try #require(employee.entity.slot(forKey: "firstName"))] == .string("Ada"))
        try #require(stack.context.undoManager).undo()
        #expect(try employee.string("firstName") == "Ada")
        try stack.context.save()
        #expect(employee.changeRecords == nil)
        #expect(try stack.newContext().existingObject(with: employee.objectID).string("firstName") == "Ada")
    }

    @Test func theEntityIsTheIDsBeforeAndAfterTheSave() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let employee = try stack.context.insertObject(forEntityName: "Employee")
        try employee.setValue("Ada", forKey: "firstName")
        try employee.setValue("Lovelace", forKey: "lastName")
        #expect(employee.entity.name == "Employee")
        #expect(employee.objectID.isTemporaryID)
        try stack.context.save()
        #expect(!employee.objectID.isTemporaryID)
        #expect(employee.entity === employee.objectID.entity && employee.entity.name == "Employee")
    }

    @Test func eachFlagIsABitOfItsOwn() {
        let flags: [WritableKeyPath<ObjectState, Bool>] = [
            \.isFault, \.isInserted, \.isDeleted, \.isInvalid, \.existsInStore, \.deletedByApply,
            \.deleteRulesApplied, \.insertedSinceFlush, \.deletedSinceFlush, \.wasLogged, \.inFlushSet, \.inDirtySet,
        ]
        for (index, flag) in flags.enumerated() {
            var state = ObjectState()
            state[keyPath: flag] = true
            #expect(flags.enumerated().allSatisfy { $0.offset == index || !state[keyPath: $0.element] }, "flag \(index)")
            #expect(state[keyPath: flag])
            var all = ObjectState()
            for other in flags { all[keyPath: other] = true }
            all[keyPath: flag] = false
            #expect(flags.enumerated().allSatisfy { $0.offset == index ? !all[keyPath: $0.element] : all[keyPath: $0.element] }, "flag \(index)")
        }
        #expect(MemoryLayout<ObjectState>.size == 2)
    }

    #if os(Linux)
    @Test func anObjectIsOneEightyByteChunk() throws {
        // 16 B of header, the 21-byte ID with the 2-byte flags behind it, the context, the
        // values, the records and the load generation: 72 bytes (it was 168 with the entity
        // stored beside its ID, two inline 48-byte records and twelve one-byte flags).
        // The smallest chunk of many: malloc may hand one object a larger free chunk it does
        // not split (88 usable bytes were seen), never a smaller one than the object asks for.
        let stack = try DocumentStack(configuration: manualCompaction())
        let entity = try #require(stack.model.entitiesByName["Employee"])
        let objects = (0..<64).map { _ in ManagedObject(entity: entity, insertInto: stack.context) }
        let smallest = objects.map { mallocUsableSize(Unmanaged.passUnretained($0).toOpaque()) }.min() ?? 0
        #expect(smallest > 0 && smallest <= 72)
    }
    #endif
}

#if os(Linux)
/// glibc's `malloc_usable_size` (malloc.h, which Foundation does not bring in): the bytes of
/// the chunk an object was given.
@_silgen_name("malloc_usable_size")
private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer?) -> Int
#endif
