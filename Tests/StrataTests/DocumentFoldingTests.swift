import Foundation
import Testing
@testable import Strata

/// Automatic compaction by operations and decoded size: a bulk save is folded into the
/// snapshot right after it, so the next open decodes nothing (docs/ARCHITECTURE.md,
/// "Compaction").

/// Inserts `count` projects named `P<n>` and saves them in one save.
private func saveProjects(_ count: Int, in stack: DocumentStack, prefix: String = "P") throws {
    for index in 0..<count { _ = try insertNamed("Project", "\(prefix)\(index)", in: stack.context) }
    try stack.context.save()
}

/// The overlay's size and the uncompacted counters of an open store.
private func uncompacted(_ store: DocumentStore) throws -> (rows: Int, operations: Int, decodedBytes: Int) {
    try store.withOpenState { ($0.overlay.rows.count + $0.overlay.deleted.count, $0.uncompactedOperations, $0.uncompactedDecodedBytes) }
}

/// Automatic compaction off except the thresholds a test sets.
private func onlyThresholds(operations: Int = 0, decodedBytes: Int = 0) -> DocumentStore.Configuration {
    var configuration = manualCompaction()
    configuration.compactionOperationThreshold = operations
    configuration.compactionDecodedByteThreshold = decodedBytes
    return configuration
}

@Suite struct DocumentFolding {
    @Test func aSaveOverTheOperationThresholdIsFoldedIntoTheSnapshotRightAfter() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: onlyThresholds(operations: 50))
        try saveProjects(20, in: stack)
        #expect(try stack.store.logPosition.compactedThrough == 0, "20 operations are under the threshold")
        #expect(try uncompacted(stack.store).rows == 20)
        #expect(try uncompacted(stack.store).operations >= 20)
        #expect(try sqlRows(url, "SELECT count(*) FROM Project").first?.first == .integer(0))

        try saveProjects(40, in: stack, prefix: "Q")
        #expect(try stack.store.logPosition.compactedThrough == 2, "60 operations pass it: both segments are folded")
        #expect(try uncompacted(stack.store) == (0, 0, 0))
        #expect(try sqlRows(url, "SELECT count(*) FROM Project").first?.first == .integer(60))
        #expect(try stack.store.info().segmentCount == 2, "retention .all keeps the folded segments")
        try stack.store.close()

        // Reopened, the document has nothing to decode and reads the same.
        let reopened = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: manualCompaction())
        #expect(try uncompacted(reopened) == (0, 0, 0))
        #expect(try readEverything(reopened).count == 60)
        try reopened.close()
    }

    @Test func aWritableOpenFoldsALogAlreadyOverAThresholdAndAReadOnlyOneLeavesIt() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        // Saved with automatic compaction off: as a document from before the operation
        // threshold, or one whose fold after a bulk save was killed, is left.
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        try saveProjects(60, in: stack)
        try stack.store.close()

        var readOnly = onlyThresholds(operations: 50)
        readOnly.isReadOnly = true
        let reader = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: readOnly)
        #expect(try reader.logPosition.compactedThrough == 0, "a read-only open writes nothing")
        #expect(try uncompacted(reader).rows == 60)
        try reader.close()

        let under = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: onlyThresholds(operations: 1_000))
        #expect(try under.logPosition.compactedThrough == 0, "60 operations are under this threshold")
        try under.close()

        let over = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: onlyThresholds(operations: 50))
        #expect(try over.logPosition.compactedThrough == 1, "the open folded the log")
        #expect(try uncompacted(over) == (0, 0, 0))
        #expect(try readEverything(over).count == 60)
        #expect(try sqlRows(url, "SELECT count(*) FROM Project").first?.first == .integer(60))
        try over.close()
    }

    @Test func aSaveOverTheDecodedByteThresholdIsFoldedThoughItCompressesSmall() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: onlyThresholds(decodedBytes: 100_000))
        // 200 KB of one letter compresses to about a kilobyte: the compressed-byte
        // threshold would never see it.
        _ = try insertNamed("Project", String(repeating: "x", count: 200_000), in: stack.context)
        try stack.context.save()
        let segment = try #require(try stack.store.segmentRecords().first)
        #expect(segment.body.count < 10_000 && segment.rawSize > 200_000)
        #expect(try stack.store.logPosition.compactedThrough == 1)
        #expect(try uncompacted(stack.store) == (0, 0, 0))
        try stack.store.close()
    }

    @Test func theDefaultsFoldABulkSaveAndLeaveASmallOneInTheLog() throws {
        var defaults = DocumentStore.Configuration()
        defaults.compactsOnClose = false
        #expect(defaults.compactionOperationThreshold == 10_000)
        #expect(defaults.compactionDecodedByteThreshold == 4 << 20)
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: defaults)
        try saveProjects(100, in: stack)
        #expect(try stack.store.logPosition.compactedThrough == 0, "a small save stays in the log")
        try saveProjects(defaults.compactionOperationThreshold, in: stack, prefix: "B")
        #expect(try stack.store.logPosition.compactedThrough == 2)
        #expect(try uncompacted(stack.store) == (0, 0, 0))
        #expect(try sqlRows(url, "SELECT count(*) FROM Project").first?.first == .integer(Int64(100 + defaults.compactionOperationThreshold)))
        try stack.store.close()
    }

    @Test func zeroThresholdsNeverCompactAutomatically() throws {
        let directory = try TemporaryDirectory()
        let stack = try DocumentStack.create(directory.file(), configuration: onlyThresholds())
        try saveProjects(300, in: stack)
        #expect(try stack.store.logPosition.compactedThrough == 0)
        #expect(try uncompacted(stack.store).rows == 300)
        try stack.store.close()
    }

    @Test func aBatchRequestOverTheThresholdIsFoldedRightAfter() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: onlyThresholds(operations: 30))
        try saveProjects(20, in: stack)
        #expect(try stack.store.logPosition.compactedThrough == 0)
        let request = BatchUpdateRequest(entityName: "Project", propertiesToUpdate: ["name": .string("renamed")])
        _ = try stack.context.executeBatch(request)
        #expect(try stack.store.logPosition.compactedThrough == 2, "20 inserts and 20 updates pass 30 operations")
        #expect(try sqlRows(url, "SELECT DISTINCT name FROM Project") == [[.text("renamed")]])
        try stack.store.close()
    }

    @Test func aCatchUpCountsAnotherConnectionsOperations() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let writer = try DocumentStack.create(url, configuration: manualCompaction())
        let reader = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: onlyThresholds(operations: 50))
        try saveProjects(60, in: writer)
        _ = try reader.catchUp()
        let counted = try uncompacted(reader)
        #expect(counted.operations >= 60 && counted.decodedBytes > 0)
        #expect(counted.decodedBytes == (try writer.store.segmentRecords().reduce(0) { $0 + $1.rawSize }))
        try writer.store.close()
        try reader.close()
    }

    @Test func aBulkFoldIntoAnEmptyTableRebuildsItsIndexesAndTheyMatchTheRows() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        var configuration = manualCompaction()
        configuration.indexRebuildMinimumRows = 10
        let stack = try DocumentStack.create(url, configuration: configuration)
        let indexes = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
        let before = try sqlRows(url, indexes)
        // Employees live in their hierarchy's table, Person.
        #expect(before.contains { $0.first == .text("Person_lastName_index") })
        for index in 0..<40 {
            let employee = try stack.context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("First\(index)"), forKey: "firstName")
            try employee.setValue(.string("Last\(index % 7)"), forKey: "lastName")
            try employee.setValue(.integer(Int64(1_000 * index)), forKey: "salary")
        }
        try stack.context.save()
        try stack.store.compact()
        #expect(try sqlRows(url, indexes) == before, "every index is back, as it was declared")
        #expect(try sqlRows(url, "PRAGMA integrity_check") == [[.text("ok")]], "the indexes hold every row")
        let plan = try sqlRows(url, "EXPLAIN QUERY PLAN SELECT _pk FROM Person WHERE lastName = 'Last3'")
        #expect(plan.contains { $0.contains(where: { if case .text(let detail) = $0 { detail.contains("Person_lastName_index") } else { false } }) })
        let found = try stack.context.fetch(FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "lastName == 'Last3'")))
        #expect(found.count == 6)
        try stack.store.close()
    }

    @Test func onlyTablesGettingAtLeastAsManyRowsAsTheyHoldLoseTheirIndexesForTheFold() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        try saveProjects(30, in: stack)
        try stack.store.compact()
        try stack.store.withOpenState { state in
            try state.connection.transaction(.immediate) {
                // Project holds 30 rows: 20 more keep its index; Person (employees) is empty;
                // Department's 2 rows are under the minimum.
                let rebuild = try SnapshotIndexRebuild(connection: state.connection, rowsByTable: ["Project": 20, "Person": 5, "Department": 2],
                                                       minimumRows: 3)
                #expect(rebuild.dropped.count == 5, "Person's five indexes: \(rebuild.dropped)")
                #expect(rebuild.dropped.allSatisfy { $0.contains("ON \"Person\"") })
                let indexes = "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Person' AND sql IS NOT NULL"
                #expect(try state.connection.prepare(indexes).rows() == [[.integer(0)]])
                try rebuild.restore()
                #expect(try state.connection.prepare(indexes).rows() == [[.integer(5)]])
            }
        }
        try stack.store.close()
    }
}
