import Foundation
import Testing
@testable import Strata

/// Undo and redo decided on a stale stack (issue 32, item 1; docs/SEMANTICS.md, "Undo and
/// redo across contexts and processes"): a group is reverted at most once, whatever
/// number of contexts, coordinators or processes undo it.
@Suite struct RevertPrecondition {
    /// Two connections to one file (as two processes), each with the document's history
    /// as its undo stack, undo the same last group: the first save reverts it, the second
    /// is refused naming the group and the segment that reverted it, and writes nothing.
    @Test func aSecondUndoOfTheSameGroupIsRefusedAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (_, one, other) = try DocumentStack.twoConnections(url) { stack in
            for name in ["a", "b"] {
                try stack.context.insertObject(forEntityName: "Department").setValue(.string(name), forKey: "name")
                stack.undo.setActionName("Insert \(name)")
                try stack.context.save()
            }
        }
        try one.context.restoreUndoHistory()
        try other.context.restoreUndoHistory()
        #expect(one.undo.undoActionName == "Insert b")
        #expect(other.undo.undoActionName == "Insert b")

        try one.undo.undo()
        try one.context.save()
        let segmentsAfterFirst = try one.store.segmentRecords().count

        try other.undo.undo()
        let error = #expect(throws: StrataError.self) { try other.context.save() }
        #expect(error?.code == .undo)
        #expect(error?.message.contains("Cannot undo “Insert b” (group 2)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("already undid it") == true)
        #expect(error?.context.segment == UInt64(segmentsAfterFirst))
        other.context.rollback()

        _ = try other.store.refreshFromLog()
        #expect(try other.store.segmentRecords().count == segmentsAfterFirst, "the refused save wrote a segment")
        let reader = other.newContext()
        let names = try reader.fetch(FetchRequest(entityName: "Department")).map { try $0.value(forKey: "name") }
        #expect(names == [.string("a")])

        // Rebuilt from the log as it is now, the stack reverts the next group, as a
        // second undo run after the first would have.
        let fresh = other.newContext()
        try fresh.restoreUndoHistory()
        #expect(fresh.undoManager?.undoActionName == "Insert a")
        try fresh.undoManager?.undo()
        try fresh.save()
        #expect(try other.newContext().count(for: FetchRequest(entityName: "Department")) == 0)
        try one.store.close()
        try other.store.close()
        let report = try DocumentVerifier.verify(url)
        #expect(report.isValid, "\(report.problems)")
    }

    /// A redo of an undo group another connection already redid is refused the same way.
    @Test func aSecondRedoOfTheSameUndoIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (_, one, other) = try DocumentStack.twoConnections(url) { stack in
            try stack.context.insertObject(forEntityName: "Department").setValue(.string("a"), forKey: "name")
            stack.undo.setActionName("Insert a")
            try stack.context.save()
            try stack.undo.undo()
            try stack.context.save()
        }
        try one.context.restoreUndoHistory()
        try other.context.restoreUndoHistory()
        try one.undo.redo()
        try one.context.save()
        try other.undo.redo()
        let error = #expect(throws: StrataError.self) { try other.context.save() }
        #expect(error?.message.contains("Cannot redo “Insert a”") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("already redid it") == true)
        try one.store.close()
        try other.store.close()
    }

    /// Two connections delete one record: both saves succeed (deleted on both sides), the
    /// log deletes it once, and the log still replays.
    @Test func aDeleteOnBothSidesIsWrittenOnce() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (uri, one, other) = try DocumentStack.twoConnections(url) { stack in
            let department = try stack.context.insertObject(forEntityName: "Department")
            try department.setValue(.string("a"), forKey: "name")
            try stack.context.save()
            return department.objectID.uriRepresentation()
        }
        let first = try one.object(uri), second = try other.object(uri)
        one.context.delete(first)
        other.context.delete(second)
        try one.context.save()
        try other.context.save()
        var deletes = 0
        for record in try other.store.segmentRecords() {
            for group in try other.store.decode(record).groups {
                deletes += group.operations.filter { if case .delete = $0 { true } else { false } }.count
            }
        }
        #expect(deletes == 1)
        let replica = InMemoryStore(model: other.model)
        for record in try other.store.segmentRecords() { try other.store.replay(record, into: replica) }
        try one.store.close()
        try other.store.close()
        let report = try DocumentVerifier.verify(url)
        #expect(report.isValid, "\(report.problems)")
    }

    /// Replay refuses a delete of a record that is not there, and verify names the segment
    /// holding it and the segment that deleted the record before.
    @Test func replayAndVerifyRefuseADeleteOfAMissingRecord() throws {
        let stack = try DocumentStack()
        let department = try stack.context.insertObject(forEntityName: "Department")
        try department.setValue(.string("a"), forKey: "name")
        try stack.context.save()
        let id = department.objectID
        stack.context.delete(department)
        try stack.context.save()
        let records = try stack.store.segmentRecords()
        let deleting = try stack.store.decode(records[1])
        let again = Segment(sequence: 3, timestamp: Date(), groups: [
            SegmentGroup(id: 99, kind: .user, revertsGroup: nil, actionName: "", operations: deleting.groups[0].operations),
        ])
        let body = try SegmentEncoder.encodeCompressed(again, model: stack.model).frame
        let replica = InMemoryStore(model: stack.model)
        for record in records { try stack.store.replay(record, into: replica) }
        let stale = SegmentRecord(sequence: 3, timestamp: Date(), groupCount: 1, operationCount: again.operationCount,
                                  rawSize: 0, body: body, isCompacted: false)
        let error = #expect(throws: StrataError.self) { try stack.store.replay(stale, into: replica) }
        #expect(error?.code == .corruptDocument)
        #expect(error?.message.contains("deletes \(id), which does not exist") == true, "\(error?.message ?? "")")
        #expect(DocumentVerifier.missingDelete(id, in: 3, deletedBy: 2).contains("Segment 3 deletes \(id), which does not exist: segment 2 already deleted it"))
    }

    /// Verify's revert check: a group reverted twice, a redo of a group that is not an
    /// undo, and an undo of an undo are each a problem naming the groups and segments.
    @Test func verifyFindsBrokenRevertChains() throws {
        func group(_ id: UInt64, _ kind: ChangeGroupKind, reverts: UInt64? = nil) -> SegmentGroup {
            SegmentGroup(id: id, kind: kind, revertsGroup: reverts, actionName: "", operations: [])
        }
        func segment(_ sequence: UInt64, _ groups: SegmentGroup...) -> Segment {
            Segment(sequence: sequence, timestamp: Date(), groups: groups)
        }
        var sound = VerificationReport()
        DocumentVerifier.checkReverts([segment(1, group(1, .user)), segment(2, group(2, .undo, reverts: 1)),
                                       segment(3, group(3, .redo, reverts: 2)), segment(4, group(4, .undo, reverts: 3))], report: &sound)
        #expect(sound.problems.isEmpty, "\(sound.problems)")
        #expect(sound.passed.contains("3 undo and redo groups each revert a group no other group reverts"))

        var twice = VerificationReport()
        DocumentVerifier.checkReverts([segment(1, group(1, .user)), segment(2, group(2, .user)),
                                       segment(3, group(3, .undo, reverts: 2)), segment(4, group(4, .undo, reverts: 2))], report: &twice)
        #expect(twice.problems == ["Group 2 is reverted twice: by group 3 in segment 3 and by group 4 in segment 4."])

        var kinds = VerificationReport()
        DocumentVerifier.checkReverts([segment(1, group(1, .user), group(2, .undo, reverts: 9)),
                                       segment(2, group(3, .redo, reverts: 1), group(4, .undo, reverts: 2))], report: &kinds)
        #expect(kinds.problems == [
            "Group 3 in segment 2 redoes group 1, which is not an undo group.",
            "Group 4 in segment 2 undoes group 2, which is itself an undo group.",
        ])
    }
}
