import Strata

/// Which saved groups are undone, read from the revert chains of the group table
/// (`strata history`'s state column, the inspector's undo view).
package enum ToolUndoState {
    /// The groups whose effect is undone: a group is undone when the last group reverting
    /// it is itself in effect.
    /// - Complexity: O(groups).
    package static func undoneGroups(_ groups: [ChangeGroupInfo]) -> Set<UInt64> {
        var revertedBy: [UInt64: UInt64] = [:]
        for group in groups { if let target = group.revertsGroup { revertedBy[target] = group.id } }
        var memo: [UInt64: Bool] = [:]
        func isUndone(_ id: UInt64, depth: Int) -> Bool {
            if let known = memo[id] { return known }
            guard let reverter = revertedBy[id], depth < 100_000 else { memo[id] = false; return false }
            let result = !isUndone(reverter, depth: depth + 1)
            memo[id] = result
            return result
        }
        // Walk from the newest group back so that chains resolve without deep recursion.
        for group in groups.reversed() { _ = isUndone(group.id, depth: 0) }
        return Set(memo.filter(\.value).keys)
    }
}
