import Foundation
import Testing
@testable import Strata

/// An undoable batch insert into a document holds no operations on the undo stack: the
/// group refers to its saved group, and undo reads the operations back from the log.
@Suite struct UndoableBatchLogTests {
    /// A handler request of `count` employees of Sales named "Chunked", registering undo.
    private func chunkedInsert(_ count: Int, into department: ManagedObjectID) -> BatchInsertRequest {
        var number = 0
        let request = BatchInsertRequest(entityName: "Employee") { row in
            number += 1
            row = employeeRow("Chunked", salary: Int64(number), ["department": .object(department)])
            return number > count
        }
        request.registersUndo = true
        return request
    }

    private func chunkedCount(_ stack: DocumentStack) throws -> Int {
        try stack.newContext().count(for: FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Chunked'")))
    }

    @Test func aLargeUndoableInsertHoldsNoOperationsAndIsUndoneAndRedoneFromTheLog() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let graph = try BatchGraph(in: stack.context)
        let sales = graph.departments["Sales"]!
        let rows = 2 * BatchInsertWriter.documentChunkSize + 500
        #expect(try stack.context.executeBatch(chunkedInsert(rows, into: sales)).count == rows)

        // The undo group refers to the saved group instead of holding its operations.
        let group = try #require(stack.undo.undoStack.last)
        #expect(group.actionName == "Batch Insert Employee")
        #expect(group.items.isEmpty && group.operationCount == 0 && group.storedOperations != nil)
        // What the log holds for it: an insert per row and, per chunk, the department's relate.
        let logged = try stack.store.loggedOperations(ofGroup: group.id)
        #expect(logged.count == rows + 3)
        #expect(logged.filter { if case .insert = $0 { true } else { false } }.count == rows)

        try stack.undo.undo()
        #expect(stack.undo.redoActionName == "Batch Insert Employee")
        try stack.context.save()
        #expect(try chunkedCount(stack) == 0)
        let reader = stack.newContext()   // held: an object holds its context weakly
        #expect(try reader.existingObject(with: sales).relatedSet("employees").count == 2)

        try stack.undo.redo()
        try stack.context.save()
        #expect(try chunkedCount(stack) == rows)
        let later = stack.newContext()
        #expect(try later.existingObject(with: sales).relatedSet("employees").count == rows + 2)
        // Undone again, now from the group the redo recorded.
        try stack.undo.undo()
        try stack.context.save()
        #expect(try chunkedCount(stack) == 0)
    }

    @Test func aStatusOnlyUndoableInsertListsNoIDsAndIsStillUndoneAndRedone() throws {
        // `strata import`'s request: no inserted ID is collected (a million took ~150 MB).
        let stack = try DocumentStack(configuration: manualCompaction())
        let graph = try BatchGraph(in: stack.context)
        let sales = graph.departments["Sales"]!
        let rows = BatchInsertWriter.documentChunkSize + 10
        let request = chunkedInsert(rows, into: sales)
        request.resultType = .statusOnly
        let result = try stack.context.executeBatch(request)
        #expect(result.count == rows && result.objectIDs.isEmpty && result.changes.inserted.isEmpty)
        // The existing record the rows joined is still reported, for contexts to refresh.
        #expect(result.changes.updated == [sales])
        #expect(try chunkedCount(stack) == rows)

        try stack.undo.undo()
        try stack.context.save()
        #expect(try chunkedCount(stack) == 0)
        try stack.undo.redo()
        try stack.context.save()
        #expect(try chunkedCount(stack) == rows)
        let reader = stack.newContext()
        #expect(try reader.existingObject(with: sales).relatedSet("employees").count == rows + 2)
    }

    @Test func anUndoableInsertHoldsItsOperationsWhereNoLogKeepsThem() throws {
        // In memory, and in a document whose compaction may delete the group's segments.
        let memory = try BatchFixture(.memory)
        let pruning = try DocumentStack(configuration: manualCompaction(retention: .none))
        for context in [memory.context, pruning.context] {
            let graph = try BatchGraph(in: context)
            #expect(try context.executeBatch(chunkedInsert(30, into: graph.departments["Sales"]!)).count == 30)
            let group = try #require(context.undoManager?.undoStack.last)
            #expect(group.storedOperations == nil && group.operationCount == 31)
        }
        _ = try pruning.store.compact(retention: .none)
        try pruning.undo.undo()
        try pruning.context.save()
        #expect(try chunkedCount(pruning) == 0)
    }

    @Test func aGroupTheLogNoLongerHoldsIsAnUndoErrorAndStaysOnTheStack() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let graph = try BatchGraph(in: stack.context)
        _ = try stack.context.executeBatch(chunkedInsert(5, into: graph.departments["Sales"]!))
        // Another process compacts with a policy that keeps no history.
        let other = try DocumentStack.open(stack.url, configuration: manualCompaction())
        _ = try other.store.compact(retention: .none)
        let error = strataError { try stack.undo.undo() }
        #expect(error?.code == .undo)
        #expect(error?.message.contains("no longer holds group") == true)
        #expect(stack.undo.undoActionName == "Batch Insert Employee")
        #expect(try chunkedCount(stack) == 5)
    }
}
