import Foundation

/// The log's rule for undo and redo groups, checked inside a save's write transaction after
/// it caught up with every other writer (docs/SEMANTICS.md, "Undo and redo across contexts
/// and processes").
///
/// In any sequential history a group is reverted at most once: an undo takes the group off
/// the undo stack and a redo takes the undo group off the redo stack. An undo or redo that
/// names a group some stored group already reverts was decided on a stale stack — another
/// context or process reverted that group after this stack was built — and writing it
/// would revert one change twice (the double undo of issue 32: both processes print "Undid",
/// one object survives, and the log deletes a record that is gone).
enum RevertPrecondition {
    /// Refuses groups that revert a group already reverted, in the log (by another group)
    /// or earlier in `groups`.
    /// - Throws: `.undo` naming the reverted group, the group that reverted it first and its
    ///   segment; the save writes nothing then.
    static func check(_ groups: [SegmentGroup], connection: SQLiteConnection) throws {
        var claimed: [UInt64: UInt64] = [:]
        for group in groups where group.kind == .undo || group.kind == .redo {
            guard let target = group.revertsGroup else { continue }
            if let earlier = claimed.updateValue(group.id, forKey: target) {
                throw alreadyReverted(group, by: earlier, in: nil)
            }
            // The same group written in several segments (an undo of an import saved in
            // chunks, as the import was) reverts its target once.
            if let first = try LogTables.reverter(of: target, connection), first.group != group.id {
                throw alreadyReverted(group, by: first.group, in: first.sequence)
            }
        }
    }

    private static func alreadyReverted(_ group: SegmentGroup, by first: UInt64, in segment: UInt64?) -> StrataError {
        let target = group.revertsGroup ?? 0
        let verb = group.kind == .redo ? "redo" : "undo"
        let name = group.actionName.isEmpty ? "group \(target)" : "“\(group.actionName.count > 80 ? group.actionName.prefix(80) + "…" : group.actionName)” (group \(target))"
        let place = segment.map { "group \(first) in segment \($0)" } ?? "group \(first) of this same save"
        return StrataError(
            .undo,
            "Cannot \(verb) \(name): \(place) already \(verb == "redo" ? "redid" : "undid") it (another context or process reverted it after this undo stack was built). Nothing was saved; roll back and rebuild the undo stack (restoreUndoHistory(), or run the command again) to \(verb) what is now on top.",
            context: .init { $0.segment = segment; $0.group = target })
    }
}
