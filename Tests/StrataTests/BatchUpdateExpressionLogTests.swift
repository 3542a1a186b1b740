import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A batch update with expressions is logged with the values it computed: undo, redo,
/// reopening and replaying the log give exactly those values, never computing them again.
@Suite struct BatchUpdateExpressionLogTests {
    /// The assignments under test: copies, a swap, `now()`, and (through `extra`) whatever
    /// the caller adds.
    static func request(_ extra: [String: FetchExpression] = [:]) -> BatchUpdateRequest {
        let request = BatchUpdateRequest(
            entityName: "Employee", predicate: try? FetchPredicate(format: "salary != nil"),
            propertiesToUpdate: ["rating": .keyPath("salary"), "firstName": .keyPath("lastName"), "lastName": .keyPath("firstName"),
                                 "startDate": .function(.now, [])].merging(extra) { $1 })
        request.registersUndo = true
        return request
    }

    /// Runs `request` on a document, then checks undo, redo, reopening and replay against
    /// the store's values before and after it.
    static func checkUndoRedoReopenAndReplay(_ request: BatchUpdateRequest) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        var stack = try DocumentStack.create(url, configuration: manualCompaction())
        _ = try BatchGraph(in: stack.context)
        let before = try storePicture(stack.store)
        #expect(try stack.context.executeBatch(request).count == 4)
        let after = try storePicture(stack.store)
        #expect(after != before)
        let batchSegment = try #require(try stack.store.segmentRecords().last?.sequence)

        try stack.undo.undo()
        try stack.context.save()
        #expect(try storePicture(stack.store) == before, "after the undo")
        try stack.undo.redo()
        try stack.context.save()
        #expect(try storePicture(stack.store) == after, "after the redo")

        try stack.reopen()
        try stack.context.restoreUndoHistory()
        #expect(try storePicture(stack.store) == after, "reopened")
        #expect(stack.undo.undoActionName == "Batch Update Employee")
        try stack.undo.undo()
        try stack.context.save()
        #expect(try storePicture(stack.store) == before, "undone after reopening")
        try stack.undo.redo()
        try stack.context.save()
        #expect(try storePicture(stack.store) == after, "redone after reopening")
        let last = try #require(try stack.store.segmentRecords().last?.sequence)
        try stack.store.close()

        for (sequence, name) in [(batchSegment, "batch.strata"), (last, "last.strata")] {
            let copy = directory.file(name)
            try DocumentReplay.replay(url, through: sequence, to: copy)
            stack = try DocumentStack.open(copy)
            #expect(try storePicture(stack.store) == after, "replayed through segment \(sequence)")
            try stack.store.close()
        }
    }

    @Test func aBatchUpdateWithExpressionsIsUndoneRedoneReopenedAndReplayedExactly() throws {
        try Self.checkUndoRedoReopenAndReplay(Self.request())
    }

    @Test func randomAndComputedValuesAreReplayedNotComputedAgain() throws {
        // random() differs per record and per run: only the logged values can bring it back.
        try Self.checkUndoRedoReopenAndReplay(Self.request([
            "rating": .function(.random, []),
            "salary": .function(.add, [.function(.multiply, [.keyPath("salary"), 2]), .function(.randomBelow, [1_000])]),
            "email": .function(.lowercase, [.keyPath("email")]),
            "lastName": .function(.uppercase, [.keyPath("firstName")]),
        ]))
    }

    @Test func theLoggedOperationsHoldTheComputedOldAndNewValues() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let graph = try BatchGraph(in: stack.context)
        let request = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Alan'"),
                                         propertiesToUpdate: ["rating": .keyPath("salary"), "lastName": .keyPath("manager.firstName")])
        _ = try stack.context.executeBatch(request)
        let segment = try stack.store.decode(try #require(try stack.store.segmentRecords().last))
        let alan = graph.employee("Alan")
        let rating = try #require(alan.entity.slot(forKey: "rating")), lastName = try #require(alan.entity.slot(forKey: "lastName"))
        #expect(segment.groups.first?.operations == [.update(alan, changes: [
            SlotChange(slot: min(rating, lastName), old: rating < lastName ? .null : "Alanson", new: rating < lastName ? .double(90_000) : "Ada"),
            SlotChange(slot: max(rating, lastName), old: rating < lastName ? "Alanson" : .null, new: rating < lastName ? "Ada" : .double(90_000)),
        ])])
    }
}
