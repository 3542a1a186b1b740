import Foundation

#if STRATA_INVARIANTS
extension DocumentOverlay {
    /// Every broken invariant: no record both has a row and is deleted. O(the smaller of
    /// the two tables).
    func _invariantViolations() -> [String] {
        let both = rows.count < deleted.count ? rows.keys.filter(deleted.contains) : deleted.filter { rows[$0] != nil }
        return both.sorted().map { "\($0) both has a row and is deleted" }
    }

    /// Stops the process when merging `patch` broke an invariant for a record it names
    /// (O(patch)); now and then (amortized O(1) per record) checks the whole overlay.
    mutating func _checkInvariants(after patch: OverlayPatch) {
        let both = patch.touched.filter { rows[$0] != nil && deleted.contains($0) }
        checkInvariants(of: "DocumentOverlay", both.map { "\($0) both has a row and is deleted" })
        if invariantSampler.isFullCheckDue(after: patch.rows.count + patch.deleted.count, size: rows.count + deleted.count) {
            checkInvariants(of: "DocumentOverlay", _invariantViolations())
        }
    }
}
#endif
