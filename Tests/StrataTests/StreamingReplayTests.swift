import Foundation
import Testing
@testable import Strata

/// `DocumentStore.replay(_:into:)` decodes segments straight into an in-memory store; it
/// must leave exactly what decoding the segments and saving their groups leaves.
@Suite struct StreamingReplay {
    /// Every record of every entity of `store`, with its values.
    private func contents(_ store: InMemoryStore) throws -> [ManagedObjectID: [PropertyValue]] {
        var result: [ManagedObjectID: [PropertyValue]] = [:]
        for entity in store.model.entities {
            for id in try store.objectIDs(for: entity, includingSubentities: false) { result[id] = try store.values(for: id) }
        }
        return result
    }

    /// A document whose log holds inserts, relationship changes, single and multi-slot
    /// updates, a delete, undo and redo.
    private func documentWithHistory(_ directory: TemporaryDirectory) throws -> DocumentStack {
        let stack = try DocumentStack.create(directory.file(), configuration: manualCompaction())
        let graph = try BatchGraph(in: stack.context)
        let ada = try stack.context.existingObject(with: graph.employee("Ada"))
        let alan = try stack.context.existingObject(with: graph.employee("Alan"))
        for round in 0..<20 {
            try ada.setValue(.integer(Int64(1_000 + round)), forKey: "salary")
            try alan.setValue(.string("Alan \(round)"), forKey: "firstName")
            try alan.setValue(.integer(Int64(round)), forKey: "salary")
            stack.context.processPendingChanges()
            if round % 5 == 4 { try stack.context.save() }
        }
        try alan.mutableSetValue(forKey: "projects").remove(try stack.context.existingObject(with: graph.projects["Engine"]!))
        try stack.context.save()
        stack.context.delete(try stack.context.existingObject(with: graph.employee("Barbara")))
        try stack.context.save()
        while stack.undo.canUndo { try stack.undo.undo() }
        try stack.context.save()
        for _ in 0..<3 where stack.undo.canRedo { try stack.undo.redo() }
        try stack.context.save()
        return stack
    }

    @Test func givesTheSameRecordsAsDecodeAndSave() throws {
        let directory = try TemporaryDirectory()
        let stack = try documentWithHistory(directory)
        let records = try stack.store.segmentRecords()
        #expect(records.count > 5)
        let saved = InMemoryStore(model: stack.model)
        let streamed = InMemoryStore(model: stack.model)
        for record in records {
            let segment = try stack.store.decode(record)
            try saved.save(StoreSaveRequest(groups: segment.groups, timestamp: segment.timestamp))
            try stack.store.replay(record, into: streamed)
            #expect(try contents(streamed) == contents(saved), "after segment \(record.sequence)")
        }
        #expect(try streamed.largestGroupID() == saved.largestGroupID())
        #expect(try !contents(streamed).isEmpty)
        try stack.store.close()
    }

    @Test func anOperationOnAMissingRecordLeavesTheStoreAsItWas() throws {
        let directory = try TemporaryDirectory()
        let stack = try documentWithHistory(directory)
        let records = try stack.store.segmentRecords()
        let target = InMemoryStore(model: stack.model)
        try stack.store.replay(records[0], into: target)
        // Segment 2 updates two records: without the last one it changes, the changes made
        // before it is reached are put back.
        let last = try #require(try stack.store.decode(records[1]).groups.first?.operations.last?.objectID)
        let lastValues = try #require(try target.values(for: last))
        try target.save(StoreSaveRequest(groups: [
            SegmentGroup(id: 999, kind: .user, revertsGroup: nil, actionName: "", operations: [.delete(last, values: lastValues)]),
        ]))
        let before = try contents(target)
        #expect(throws: StrataError.self) { try stack.store.replay(records[1], into: target) }
        #expect(try contents(target) == before)
        try stack.store.close()
    }

    @Test func aCorruptSegmentIsRejectedAndNothingIsApplied() throws {
        let directory = try TemporaryDirectory()
        let stack = try documentWithHistory(directory)
        let records = try stack.store.segmentRecords()
        let target = InMemoryStore(model: stack.model)
        try stack.store.replay(records[0], into: target)
        let before = try contents(target)
        // A body cut short: every operation before the cut decodes and applies, then the
        // segment turns out malformed.
        let body = try SegmentCodec.rawBody(records[1].body, sequenceHint: records[1].sequence,
                                            maxContentSize: SegmentCodec.defaultMaxContentSize)
        var corrupt = records[1]
        corrupt.body = LZ4Frame.compress(Array(body.dropLast(3)))
        do {
            try stack.store.replay(corrupt, into: target)
            Issue.record("a truncated segment was accepted")
        } catch let error as StrataError {
            #expect(error.code == .corruptSegment)
            #expect(error.context.segment == records[1].sequence)
            #expect(throws: StrataError.self) { try stack.store.decode(corrupt) }
        }
        #expect(try contents(target) == before)
        try stack.store.close()
    }
}

@Suite struct RowTableLanes {
    @Test func denseAndSparseKeysBehaveAlike() throws {
        let model = sharedExampleModel
        let store = InMemoryStore(model: model)
        let department = try model.entity(named: "Department")
        let nameSlot = try #require(department.slot(forKey: "name"))
        let values = RowTable.persistent(Array(repeating: .null, count: department.slotCount), of: department)
        // Small keys go to a lane; a huge key and a negative one do not. A key reserved after
        // the save comes above every key it inserted.
        var ids = [1, 2, 5000, 1 << 40, -3].map { store.objectID(for: department, primaryKey: Int64($0)) }
        try store.save(StoreSaveRequest(groups: [SegmentGroup(id: 1, kind: .user, revertsGroup: nil, actionName: "",
                                                              operations: ids.map { .insert($0, values: values) })]))
        let next = try store.allocatePrimaryKeys(for: department, count: 1).lowerBound
        #expect(next == Int64(1 << 40) + 1)
        ids.append(store.objectID(for: department, primaryKey: next))
        try store.save(StoreSaveRequest(groups: [SegmentGroup(id: 4, kind: .user, revertsGroup: nil, actionName: "",
                                                              operations: [.insert(ids.last!, values: values)])]))
        try store.save(StoreSaveRequest(groups: [SegmentGroup(id: 2, kind: .user, revertsGroup: nil, actionName: "",
            operations: ids.map { .update($0, changes: [SlotChange(slot: nameSlot, old: .null, new: .string("\($0.primaryKey)"))]) })]))
        for id in ids { #expect(try store.values(for: id)?[nameSlot] == .string("\(id.primaryKey)")) }
        #expect(try store.objectIDs(for: department, includingSubentities: true) == ids.sorted())
        try store.save(StoreSaveRequest(groups: [SegmentGroup(id: 3, kind: .user, revertsGroup: nil, actionName: "",
                                                              operations: ids.map { .delete($0, values: values) })]))
        #expect(try store.objectIDs(for: department, includingSubentities: true).isEmpty)
        for id in ids { #expect(try store.values(for: id) == nil) }
    }
}
