import Foundation
import Testing
@testable import Strata

/// A batch insert whose chunks pass a compaction threshold is folded into the snapshot as
/// it is written, inside its own transaction: nothing keeps every row until the commit, and
/// the request is still all or nothing, for other processes and for this one's threads.
@Suite struct BatchInsertFoldTests {
    /// Automatic compaction after a few operations: the first chunk starts the fold.
    private static func foldingConfiguration() -> DocumentStore.Configuration {
        var configuration = DocumentStore.Configuration()
        configuration.compactionOperationThreshold = 5
        configuration.compactsOnClose = false
        return configuration
    }

    /// A handler request of `count` employees of a department; row `failing` (if any) has
    /// a salary below the model's minimum. `during(row)` runs before each row is filled.
    private func request(_ count: Int, department: ManagedObjectID, manager: ManagedObjectID? = nil, failing: Int? = nil,
                         during: @escaping (Int) -> Void = { _ in }) -> BatchInsertRequest {
        var number = 0
        return BatchInsertRequest(entityName: "Employee") { row in
            number += 1
            during(number)
            var extra: [String: PropertyValue] = ["department": .object(department)]
            if let manager, number % 1_000 == 0 { extra["manager"] = .object(manager) }
            row = employeeRow("Folded", salary: number == failing ? -1 : Int64(number), extra)
            return number > count
        }
    }

    private func folded(_ stack: DocumentStack) throws -> Int {
        try stack.newContext().count(for: FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Folded'")))
    }

    @Test func aFoldedInsertKeepsNoRowsInMemoryAndLeavesACompactedConsistentDocument() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: Self.foldingConfiguration())
        let graph = try BatchGraph(in: stack.context)
        // An uncompacted edit before the request: folded with it.
        let ada = try stack.context.existingObject(with: graph.employee("Ada"))
        try ada.setValue(.integer(1), forKey: "salary")
        try stack.context.save()
        let rows = BatchInsertWriter.documentChunkSize + 300
        let sales = graph.departments["Sales"]!
        #expect(try stack.context.executeBatch(request(rows, department: sales, manager: graph.employee("Grace"))).count == rows)

        let state = try stack.store.withOpenState { ($0.overlay.isEmpty, $0.lastSequence, $0.meta.compactedThrough, $0.heldWrite == nil) }
        #expect(state.0 && state.1 == state.2 && state.3, "folded in its transaction: nothing left in the overlay")
        #expect(try folded(stack) == rows)
        let reader = stack.newContext()
        #expect(try reader.existingObject(with: sales).relatedSet("employees").count == rows + 2)
        #expect(try reader.existingObject(with: graph.employee("Grace")).relatedSet("directReports").count == rows / 1_000)
        #expect(try reader.existingObject(with: graph.employee("Ada")).int("salary") == 1)
        try stack.store.close()
        #expect(try sqlRows(url, "PRAGMA integrity_check") == [[.text("ok")]])
        #expect(try DocumentVerifier.verify(url).problems.isEmpty)
        let reopened = try DocumentStack.open(url)
        #expect(try folded(reopened) == rows)
        try reopened.store.close()
    }

    @Test func aFoldedInsertThatFailsLeavesTheFileTheOverlayAndTheIndexesAsTheyWere() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: Self.foldingConfiguration())
        let graph = try BatchGraph(in: stack.context)
        let ada = try stack.context.existingObject(with: graph.employee("Ada"))
        try ada.setValue(.integer(1), forKey: "salary")
        try stack.context.save()
        let indexes = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
        let before = (try sqlRows(url, indexes), try stack.store.withOpenState { ($0.overlay.rows.count, $0.lastSequence, $0.meta.compactedThrough) })
        // The bad row is in the second chunk, after the fold began.
        let failing = BatchInsertWriter.documentChunkSize + 100
        let error = strataError { _ = try stack.context.executeBatch(request(failing + 50, department: graph.departments["Sales"]!, failing: failing)) }
        #expect(error?.code == .validation && error?.message.contains("Row \(failing)") == true)
        let after = (try sqlRows(url, indexes), try stack.store.withOpenState { ($0.overlay.rows.count, $0.lastSequence, $0.meta.compactedThrough) })
        #expect(after.0 == before.0)
        #expect(after.1 == before.1, "the overlay folded into the rolled-back snapshot is back")
        #expect(try folded(stack) == 0)
        let reader = stack.newContext()
        #expect(try reader.existingObject(with: graph.employee("Ada")).int("salary") == 1)
        try stack.store.close()
        #expect(try DocumentVerifier.verify(url).problems.isEmpty)
    }

    @Test func anotherThreadReadingDuringTheFoldWaitsForTheWholeRequest() throws {
        let stack = try DocumentStack(configuration: Self.foldingConfiguration())
        let graph = try BatchGraph(in: stack.context)
        let rows = BatchInsertWriter.documentChunkSize + 300
        let coordinator = stack.coordinator
        let seen = Locked<Int?>(nil)
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let insert = request(rows, department: graph.departments["Sales"]!) { number in
            // In the second chunk, the first one folded but not committed.
            guard number == BatchInsertWriter.documentChunkSize + 100 else { return }
            Thread.detachNewThread {
                started.signal()
                let reader = ManagedObjectContext(coordinator: coordinator)
                let count = try? reader.count(for: FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Folded'")))
                seen.withLock { $0 = count }
                done.signal()
            }
            started.wait()
        }
        #expect(try stack.context.executeBatch(insert).count == rows)
        done.wait()
        #expect(seen.withLock { $0 } == rows, "the reader saw the committed request, not its folded half")
    }
}
