import Foundation
import Testing
@testable import Strata

/// A save larger than one segment may be (issue 32, item 10; docs/FORMAT.md, "A save in
/// several segments"): written as consecutive segments in one transaction, and read back,
/// caught up with, undone and verified as one save. The limit is lowered here to 64 KiB;
/// by default it is ``DocumentStore/Configuration/maxSegmentSize`` (256 MiB).
@Suite struct SegmentSplit {
    static var small: DocumentStore.Configuration {
        var configuration = manualCompaction()
        configuration.maxSegmentSize = 64 << 10
        return configuration
    }

    @Test func halvesCutAtHalfTheOperationsKeepingGroupIdentity() throws {
        let model = sharedExampleModel
        let department = try #require(model.entitiesByName["Department"])
        func operations(_ keys: ClosedRange<Int64>) -> [ChangeOperation] {
            keys.map { .delete(ManagedObjectID(entity: department, storeTag: 1, primaryKey: $0), values: []) }
        }
        let groups = [
            SegmentGroup(id: 1, kind: .user, revertsGroup: nil, actionName: "One", operations: operations(1...5)),
            SegmentGroup(id: 2, kind: .undo, revertsGroup: 1, actionName: "Two", operations: operations(6...9)),
        ]
        let (first, second) = try #require(SavedSegments.halves(groups))
        #expect(first.map(\.id) == [1] && second.map(\.id) == [1, 2])
        #expect(first.map(\.operations.count) == [4] && second.map(\.operations.count) == [1, 4])
        #expect(first.flatMap(\.operations) + second.flatMap(\.operations) == groups.flatMap(\.operations))
        #expect(first[0].info == groups[0].info && second[0].info == groups[0].info && second[1].info == groups[1].info)
        #expect(SavedSegments.halves([SegmentGroup(id: 1, kind: .user, revertsGroup: nil, actionName: "", operations: operations(1...1))]) == nil)
    }

    /// 1,500 departments with 200-character names in one save: about 300 KB encoded, so
    /// several segments; another connection catches up on all of them, the history holds
    /// one group, one undo reverts the whole save (itself split), and the log verifies.
    @Test func aSaveLargerThanASegmentIsWrittenInSeveralAndReadAsOne() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (_, one, other) = try DocumentStack.twoConnections(url) { _ in }
        try one.store.close()
        try other.store.close()
        let writer = try DocumentStack.open(url, configuration: Self.small)
        let reader = try DocumentStack.open(url, configuration: Self.small)
        let padding = String(repeating: "x", count: 200)
        for index in 0..<1_500 {
            try writer.context.insertObject(forEntityName: "Department").setValue(.string("\(index)-\(padding)"), forKey: "name")
        }
        writer.undo.setActionName("Import")
        try writer.context.save()
        let records = try writer.store.segmentRecords()
        #expect(records.count >= 3, "a 300 KB save under a 64 KiB limit is several segments, got \(records.count)")
        #expect(records.allSatisfy { $0.rawSize <= 64 << 10 })
        #expect(Set(records.map(\.timestamp)).count == 1, "one save, one timestamp")

        _ = try reader.store.refreshFromLog()
        #expect(try reader.newContext().count(for: FetchRequest(entityName: "Department")) == 1_500)

        let fresh = reader.newContext()
        try fresh.restoreUndoHistory()
        #expect(fresh.undoManager?.undoGroups.map(\.actionName) == ["Import"])
        try fresh.undoManager?.undo()
        try fresh.save()
        #expect(try reader.store.segmentRecords().count > records.count + 1, "the undo of a split save is split too")
        _ = try writer.store.refreshFromLog()
        #expect(try writer.newContext().count(for: FetchRequest(entityName: "Department")) == 0)
        let history = try reader.store.groupRecords().map(\.info)
        #expect(Set(history.map(\.id)).count == 2, "one group for the save and one for its undo: \(history)")
        try writer.store.close()
        try reader.store.close()

        let report = try DocumentVerifier.verify(url, settings: Self.small)
        #expect(report.isValid, "\(report.problems)")
    }

    /// One value larger than a segment may hold cannot be split: the save fails naming the
    /// record and the limit, and writes nothing.
    @Test func oneChangeLargerThanASegmentIsRefusedAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let created = try DocumentStack.create(url, configuration: Self.small)
        try created.store.close()
        let stack = try DocumentStack.open(url, configuration: Self.small)
        try stack.context.insertObject(forEntityName: "Department").setValue(.string(String(repeating: "y", count: 100_000)), forKey: "name")
        let error = #expect(throws: StrataError.self) { try stack.context.save() }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("is larger than a segment may hold (65536 bytes decoded") == true, "\(error?.message ?? "")")
        #expect(try stack.store.segmentRecords().isEmpty)
        try stack.store.close()
    }
}
