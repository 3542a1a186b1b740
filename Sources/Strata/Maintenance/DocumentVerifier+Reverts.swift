import Foundation

extension DocumentVerifier {
    /// Checks the log's revert chains (docs/SEMANTICS.md, "Undo and redo across contexts and
    /// processes"): no group is reverted twice, a redo reverts an undo group and an undo
    /// never reverts an undo group. A save refuses what breaks this (``RevertPrecondition``),
    /// so a finding here is a log written before that check or damaged since.
    static func checkReverts(_ segments: [Segment], report: inout VerificationReport) {
        var kinds: [UInt64: ChangeGroupKind] = [:]
        var revertedBy: [UInt64: (group: UInt64, sequence: UInt64)] = [:]
        var problems: [String] = []
        var reverting = 0
        for segment in segments {
            for group in segment.groups {
                defer { if kinds[group.id] == nil { kinds[group.id] = group.kind } }
                guard group.kind == .undo || group.kind == .redo, let target = group.revertsGroup else { continue }
                if let first = revertedBy[target] {
                    // One group written in several segments (a chunked batch) names its target in each.
                    if first.group != group.id {
                        problems.append("Group \(target) is reverted twice: by group \(first.group) in segment \(first.sequence) and by group \(group.id) in segment \(segment.sequence).")
                    }
                    continue
                }
                reverting += 1
                revertedBy[target] = (group.id, segment.sequence)
                guard let revertedKind = kinds[target] else { continue }   // saved before the retained log
                if group.kind == .redo, revertedKind != .undo {
                    problems.append("Group \(group.id) in segment \(segment.sequence) redoes group \(target), which is not an undo group.")
                } else if group.kind == .undo, revertedKind == .undo {
                    problems.append("Group \(group.id) in segment \(segment.sequence) undoes group \(target), which is itself an undo group.")
                }
            }
        }
        if problems.isEmpty {
            report.passed.append("\(reverting) undo and redo groups each revert a group no other group reverts")
        }
        report.problems += problems
    }
}
