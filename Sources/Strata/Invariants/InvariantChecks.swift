import Foundation

// Internal checks (docs/INVARIANTS.md): in debug builds, where `STRATA_INVARIANTS` is
// defined, each checked structure verifies after every mutation what that mutation could
// have broken, and now and then everything; release builds compile all of it out.

#if STRATA_INVARIANTS
/// Stops the process when `violations` lists any: a structure's invariant failed, a bug in
/// Strata (never bad input, which is refused with an error before it reaches a structure).
///
/// Tests of the checks call a structure's `_invariantViolations()` instead, so a
/// structure broken on purpose is reported rather than fatal.
@inline(__always)
func checkInvariants(of structure: @autoclosure () -> String, _ violations: @autoclosure () -> [String],
                     file: StaticString = #fileID, line: UInt = #line) {
    let found = violations()
    guard !found.isEmpty else { return }
    preconditionFailure("\(structure()) invariant violated: " + found.joined(separator: "; "), file: file, line: line)
}

/// Decides when a structure checks all of itself rather than only what a mutation touched:
/// once the work of the mutations since the last full check adds up to the structure's
/// size. A full check then costs O(1) per unit of work, amortized, so the checks keep a
/// 100,000-object test linear.
struct InvariantSampler: Sendable {
    private var work = 0

    /// Counts `work` units of mutation of a structure of `size` elements; true when a full
    /// check is due.
    mutating func isFullCheckDue(after work: Int, size: Int) -> Bool {
        self.work += max(work, 1)
        guard self.work >= size else { return false }
        self.work = 0
        return true
    }
}
#endif
