import Foundation
import Strata

/// What ``PostgresDocumentStore/compact()`` did.
public struct PostgresCompactionReport: Sendable, Hashable {
    /// How a compaction on the server ended.
    public enum Outcome: Sendable, Hashable {
        /// The server's snapshot tables now hold the document through ``PostgresCompactionReport/snapshotSequence``.
        case compacted
        /// Another store was compacting the document (it held the compaction lock): this
        /// one wrote nothing and did not wait.
        case skippedAnotherCompactor
        /// The server's snapshot was already folded at least as far as this store's
        /// replica: nothing was written.
        case upToDate
    }

    /// How it ended.
    public var outcome: Outcome
    /// The sequence the server's snapshot is folded through after it (nil when the
    /// document has none: another compactor held the lock before the first snapshot).
    public var snapshotSequence: Int64?
    /// The rows written into the snapshot tables (0 unless ``Outcome/compacted``).
    public var rows: Int
}

/// What a store knows of its document's server snapshot, and whether it has an automatic
/// compaction under way (under ``PostgresDocumentStore/compaction``).
struct ServerCompactionState {
    /// The sequence the server's snapshot was folded through when last seen (0: none).
    var snapshotSequence: Int64 = 0
    /// Whether an automatic compaction is queued or running.
    var isScheduled = false
}

extension PostgresDocumentStore {
    /// Folds the document into its snapshot tables on the server, through the last segment
    /// this store has taken in, so that stores opening it load those tables and replay
    /// only the segments after (docs/POSTGRES.md, "Compaction").
    ///
    /// The replica is compacted first (locally, as a document file compacts), then its
    /// snapshot tables — as committed, read without holding any lock of the store — are
    /// written to the server in one transaction on a connection of its own, holding the
    /// document's compaction lock (`pg_try_advisory_xact_lock`, not the writers' lock):
    /// saves, here and in every other store, go on meanwhile. When another store holds the
    /// compaction lock this one skips at once (``PostgresCompactionReport/Outcome/skippedAnotherCompactor``).
    /// Every segment stays in `strata_segments`.
    /// - Throws: `.server` naming the server (nothing was written there); `.invalidArgument`
    ///   when the store is closed or a table name is too long for PostgreSQL.
    @discardableResult
    public func compact() throws -> PostgresCompactionReport {
        try withWriter {}
        let session = PostgresSession(location)
        defer { session.close() }
        return try compact(session)
    }

    /// The sequence the document's server snapshot is folded through, nil when it has
    /// none (read from the server now).
    /// - Throws: `.server` naming the server; `.invalidArgument` when the store is closed.
    public func serverSnapshotSequence() throws -> Int64? {
        let sequence = try withWriter { try PostgresSnapshot.record(documentID, session)?.sequence }
        if let sequence { noteServerSnapshot(sequence) }
        return sequence
    }

    private func compact(_ session: PostgresSession) throws -> PostgresCompactionReport {
        _ = try replica.compact()
        let snapshot = try replica.snapshotTables()
        let hook = Self.compactionHooks.withLock { $0.removeValue(forKey: location.document) }
        switch try PostgresSnapshot.write(snapshot, document: documentID, modelHash: model.versionHash, session,
                                          beforeCommit: { hook?() }) {
        case .written(let rows, _):
            noteServerSnapshot(snapshot.through)
            return PostgresCompactionReport(outcome: .compacted, snapshotSequence: snapshot.through, rows: rows)
        case .upToDate(let sequence):
            noteServerSnapshot(sequence)
            return PostgresCompactionReport(outcome: .upToDate, snapshotSequence: sequence, rows: 0)
        case .anotherCompactor:
            let known = compaction.withLock { $0.snapshotSequence }
            return PostgresCompactionReport(outcome: .skippedAnotherCompactor, snapshotSequence: known > 0 ? known : nil, rows: 0)
        }
    }

    /// The rows of each snapshot table on the server, by table name (empty when the
    /// document has no snapshot there): a diagnostic for tools and tests.
    /// - Throws: `.server` naming the server; `.invalidArgument` when the store is closed.
    package func serverSnapshotRowCounts() throws -> [String: Int] {
        try withWriter { try PostgresSnapshot.rowCounts(documentID, model: model, session) }
    }

    /// Test seam: run once, inside the next server compaction of the document of that
    /// name, just before its transaction commits.
    package static let compactionHooks = Locked<[String: @Sendable () -> Void]>([:])

    func noteServerSnapshot(_ sequence: Int64) {
        compaction.withLock { $0.snapshotSequence = max($0.snapshotSequence, sequence) }
    }

    /// After a save committed at `sequence`: when the segments after the server's
    /// snapshot (as this store last saw it) reach ``Configuration/serverCompactionThreshold``,
    /// compacts on the store's compaction queue — after the save returned, so no save
    /// waits for it; one at a time per store, and one per document across stores (the
    /// server's lock). It reads the server's snapshot sequence first: another store may
    /// have compacted. A failure is left for the next save to retry.
    func compactOnServerIfDue(savedThrough sequence: Int64) {
        let threshold = Int64(configuration.serverCompactionThreshold)
        guard threshold > 0 else { return }
        let due = compaction.withLock { state -> Bool in
            guard !state.isScheduled, sequence - state.snapshotSequence >= threshold else { return false }
            state.isScheduled = true
            return true
        }
        guard due else { return }
        compactionQueue.async { [weak self] in
            guard let self else { return }
            defer { compaction.withLock { $0.isScheduled = false } }
            let session = PostgresSession(location)
            defer { session.close() }
            do {
                try withWriter {}
                if let record = try PostgresSnapshot.record(documentID, session) {
                    noteServerSnapshot(record.sequence)
                    guard sequence - record.sequence >= threshold else { return }
                }
                _ = try compact(session)
            } catch {
                // The document is unchanged (the server's transaction rolled back); the
                // next save past the threshold tries again.
            }
        }
    }

    /// Waits for an automatic compaction under way (closing does, before it closes the
    /// replica that compaction reads).
    func waitForCompaction() {
        compactionQueue.sync {}
    }
}
