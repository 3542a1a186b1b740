import Foundation

extension SegmentGroup {
    /// The group with each stretch of consecutive splices of one text joined into one
    /// splice (docs/FORMAT.md §19.8): what a save writes. Typing logs a splice per flush,
    /// a keystroke each, and an undo step joins a word's worth of them; the group is undone
    /// and redone as a whole, and joined steps mean exactly what the keystrokes meant — an
    /// insertion typed on at the end of the one before it continues its run (docs/TEXT.md,
    /// "Runs"), and deletions of one peer's adjacent identities delete the same characters
    /// in one step. Other operations and their order stay as they are.
    func foldingTextEdits() -> SegmentGroup {
        guard operations.count > 1 else { return self }
        var folded: [ChangeOperation] = []
        folded.reserveCapacity(operations.count)
        for operation in operations {
            if case .splice(let id, let slot, let edit) = operation, let last = folded.last,
               case .splice(let lastID, let lastSlot, var joined) = last, lastID == id, lastSlot == slot {
                for step in edit.steps { joined.appendFolding(step) }
                folded[folded.count - 1] = .splice(id, slot: slot, edit: joined)
            } else {
                folded.append(operation)
            }
        }
        guard folded.count < operations.count else { return self }
        return SegmentGroup(info, operations: folded, metadata: metadata)
    }
}

extension Segment {
    /// The segment with every group's splices of one text folded (``SegmentGroup/foldingTextEdits()``).
    func foldingTextEdits() -> Segment {
        var segment = self
        segment.groups = groups.map { $0.foldingTextEdits() }
        return segment
    }
}

extension TextEdit {
    /// Appends `step` as ``append(_:)`` does, and also joins a deletion of the identities
    /// right before the last deletion's, as Backspace held down makes them: one peer's
    /// adjacent identities, deleted in one step (§19.8).
    mutating func appendFolding(_ step: Step) {
        if case .delete(let start, let scalars)? = steps.last, case .delete(let next, let more) = step,
           next.peer == start.peer, UInt64(next.counter) + UInt64(more.count) == UInt64(start.counter) {
            steps[steps.count - 1] = .delete(start: next, scalars: more + scalars)
            return
        }
        append(step)
    }
}
