import Foundation

extension DocumentStore {
    /// The segments in `range` that were taken in from a sync remote (another replica's
    /// saves, `strata pull`/`sync` or a PostgreSQL document's other writers), as the sync
    /// records hold them (docs/FORMAT.md, "Sync records"); empty for a document that never
    /// synced. The inspector's timeline marks them `sync` (docs/INSPECTOR.md).
    /// - Complexity: one read of the sync records in `range`.
    package func pulledSegments(in range: ClosedRange<UInt64>) throws -> Set<UInt64> {
        try withOpenState { state in
            guard try SyncRecords.hasTable(state.connection) else { return [] }
            let rows = try state.connection.prepare("SELECT seq FROM strata_sync_segment WHERE state = ? AND seq BETWEEN ? AND ?")
                .rows([.integer(SyncRecords.State.pulled.rawValue), .integer(Int64(range.lowerBound)),
                       .integer(Int64(min(range.upperBound, UInt64(Int64.max))))])
            return Set(rows.compactMap { row in if case .integer(let seq)? = row.first, seq >= 0 { UInt64(seq) } else { nil } })
        }
    }
}
