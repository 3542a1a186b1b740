import Foundation

/// The context's append-only, in-memory operation log.
///
/// Every `processPendingChanges()` appends one ``ChangeBatch``. The batches since the last
/// save are what a save writes (one segment) and what a rollback reverts. Saved batches
/// are dropped from the log; undo groups keep their own (copy-on-write, shared) batches.
///
/// - Complexity: appending is O(operations); a save's ID rewrite is O(unsaved operations).
final class OperationLog {
    /// Batches flushed since the last save, oldest first.
    private(set) var unsaved: [ChangeBatch] = []
    /// The undo groups the unsaved batches belong to.
    private(set) var groups: [UInt64: ChangeGroupInfo] = [:]
    /// The sequence number the next batch gets.
    private(set) var nextSequence: UInt64 = 1
    /// The number of batches ever appended.
    private(set) var appendedCount = 0
    /// The group of the last batch a save wrote (or a rollback dropped), as it was named
    /// in the log then: undo coalescing continues that group across a save.
    private(set) var lastClearedGroupID: UInt64?

    /// Appends a batch, giving it the next sequence number.
    @discardableResult
    func append(_ operations: [ChangeOperation], group: ChangeGroupInfo, isUndoable: Bool) -> ChangeBatch {
        let batch = ChangeBatch(
            sequence: nextSequence, operations: operations, isUndoable: isUndoable, kind: group.kind,
            groupID: group.id)
        nextSequence += 1
        appendedCount += 1
        unsaved.append(batch)
        if groups[group.id] == nil { groups[group.id] = group }
        #if STRATA_INVARIANTS
        checkInvariants(of: "OperationLog", violations(from: unsaved.count - 2))
        #endif
        return batch
    }

    /// Updates what the log records of a group (its action name may be set after its
    /// changes were flushed).
    func updateGroup(_ info: ChangeGroupInfo) {
        if groups[info.id] != nil { groups[info.id] = info }
    }

    /// Relabels the unsaved batches of group `id` as batches of group `target` (undo
    /// coalescing merged the two groups), when that keeps one group in a saved document:
    /// all `batchCount` batches of `id` are unsaved, last, and right after a batch of
    /// `target` — the last unsaved one, or the last one saved (`target` or, before the save
    /// renamed it, `formerTarget`) — or `target` has no batches. Consecutive segment groups
    /// with one id are one group when history is restored. Returns whether it relabelled.
    func regroup(_ id: UInt64, batchCount: Int, into target: UInt64, formerTarget: UInt64?, olderHasBatches: Bool) -> Bool {
        guard batchCount > 0 else { return true }
        let first = unsaved.count - batchCount
        guard first >= 0, unsaved[first...].allSatisfy({ $0.groupID == id }) else { return false }
        if olderHasBatches {
            let previous = first > 0 ? unsaved[first - 1].groupID : lastClearedGroupID
            guard let previous, previous == target || previous == formerTarget else { return false }
        }
        for index in first..<unsaved.count { unsaved[index].groupID = target }
        groups[id] = nil
        #if STRATA_INVARIANTS
        checkInvariants(of: "OperationLog", violations(from: first - 1))
        #endif
        return true
    }

    /// The unsaved batches arranged as segment groups: consecutive batches of one group
    /// form one group. Temporary IDs stay: the store replaces them inside its write.
    func unsavedGroups() -> [SegmentGroup] {
        var result: [SegmentGroup] = []
        for batch in unsaved {
            let operations = batch.operations
            if let last = result.last, last.id == batch.groupID {
                result[result.count - 1].operations.append(contentsOf: operations)
            } else {
                let info = groups[batch.groupID] ?? ChangeGroupInfo(id: batch.groupID, kind: batch.kind)
                result.append(SegmentGroup(info, operations: operations))
            }
        }
        return result
    }

    /// Rewrites the unsaved operations one at a time, in place: a bulk save renaming its
    /// new records before its write takes an insert's row out of the log while the object
    /// sharing it renames it, instead of copying it.
    func rewriteUnsaved(_ body: (inout ChangeOperation) -> Void) {
        for batch in unsaved.indices {
            for index in unsaved[batch].operations.indices { body(&unsaved[batch].operations[index]) }
        }
        #if STRATA_INVARIANTS
        _checkInvariants()
        #endif
    }

    /// Drops the unsaved operations that change the given records (merged deletes: the
    /// records are gone from the store, so a save must not write them). Batches left empty
    /// are dropped and the later ones renumbered, so sequence numbers stay consecutive.
    func removeUnsavedOperations(on ids: Set<ManagedObjectID>) {
        guard !ids.isEmpty, let first = unsaved.first?.sequence else { return }
        var kept: [ChangeBatch] = []
        for var batch in unsaved {
            batch.operations.removeAll { ids.contains($0.objectID) }
            guard !batch.operations.isEmpty else { continue }
            batch.sequence = (kept.last?.sequence ?? first - 1) + 1
            kept.append(batch)
        }
        unsaved = kept
        // The next batch follows the last one kept, with no gap.
        nextSequence = (kept.last?.sequence ?? first - 1) + 1
        #if STRATA_INVARIANTS
        _checkInvariants()
        #endif
    }

    /// Forgets the unsaved batches: after a save wrote them, or a rollback reverted them.
    func clearUnsaved() {
        lastClearedGroupID = unsaved.last?.groupID ?? lastClearedGroupID
        unsaved.removeAll(keepingCapacity: false)
        groups.removeAll()
        #if STRATA_INVARIANTS
        _checkInvariants()
        #endif
    }

    #if STRATA_INVARIANTS
    /// Every broken invariant of the unsaved batches: sequence numbers rise by one, no batch
    /// is empty, the next sequence number follows the last batch, and no more batches are
    /// unsaved than were ever appended. O(unsaved batches).
    func _invariantViolations() -> [String] { violations(from: 0) }

    /// The invariants of the batches from `start` on (and of the next sequence number): an
    /// append checks the last two only, so it stays O(1).
    private func violations(from start: Int) -> [String] {
        var problems: [String] = []
        let start = max(start, 0)
        for index in start..<unsaved.count {
            if unsaved[index].operations.isEmpty { problems.append("batch \(unsaved[index].sequence) is empty") }
            if index > 0, unsaved[index].sequence != unsaved[index - 1].sequence + 1 {
                problems.append("batch \(unsaved[index].sequence) follows batch \(unsaved[index - 1].sequence)")
            }
        }
        if let last = unsaved.last, nextSequence != last.sequence + 1 {
            problems.append("the next sequence number \(nextSequence) does not follow the last batch's \(last.sequence)")
        }
        if appendedCount < unsaved.count { problems.append("\(unsaved.count) unsaved batches, \(appendedCount) ever appended") }
        return problems
    }

    /// Stops the process when an invariant of the unsaved batches is broken.
    func _checkInvariants() { checkInvariants(of: "OperationLog", _invariantViolations()) }

    /// Skips a sequence number, for the test that shows the check catches it.
    func _corruptForTesting() { nextSequence += 1 }
    #endif
}
