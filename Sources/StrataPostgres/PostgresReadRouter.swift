import Foundation
import Strata

/// Reads a document's segments from its streaming replicas when they have replayed far
/// enough, and from the primary otherwise (docs/POSTGRES.md, "Reading from replicas").
///
/// A read names the sequence it must reach: the one a notification carried, or the
/// primary's head (one small query) when it knows none. It takes what a replica has
/// replayed from the replica and only the rest, if any, from the primary, so a lagging
/// replica costs the primary the lag, not the whole read. A replica that fails is left
/// alone for a few seconds; every read can fall back to the primary. Segments are
/// immutable once committed, so reading them from two servers is reading one log.
final class PostgresReadRouter: @unchecked Sendable {
    /// How long a replica that failed is skipped.
    static let retryAfterFailure = 5.0

    /// What a read brought: the segments, oldest first, and the document's head as of the
    /// server that had the last of them.
    struct Pulled {
        var segments: [RemoteSegment]
        var head: (last: Int64, keys: [String: Int64], groups: UInt64)
    }

    private let primary: PostgresSession
    private let replicas: [PostgresSession]
    private let lock = NSLock()
    private var next = 0
    private var skippedUntil: [Int: DispatchTime] = [:]
    private var counts = PostgresDocumentStore.ServerReads()

    /// Reads through `primary` and the replicas of its location, whose connections close
    /// after `idleTimeout` seconds unused.
    init(primary: PostgresSession, idleTimeout: TimeInterval?) {
        self.primary = primary
        replicas = primary.location.replicas.map { PostgresSession($0, idleTimeout: idleTimeout) }
    }

    /// What came from replicas and from the primary so far, saves' reads included.
    var served: PostgresDocumentStore.ServerReads { lock.withLock { counts } }

    /// The document's server snapshot (nil: it has none), from a replica when one has it
    /// and from the primary otherwise. A replica's snapshot may be older than the
    /// primary's: the segments after it follow from ``segments(of:after:through:limit:)``,
    /// and the server never deletes a segment a snapshot covers, so every one is there.
    /// - Throws: `.server` naming the primary when it fails; what the snapshot's checks
    ///   throw (a replica's failure only sends the read to the primary).
    func snapshot(of id: Int64, model: ManagedObjectModel) throws -> SnapshotTables? {
        if let (index, replica) = chooseReplica() {
            do {
                if let tables = try PostgresSnapshot.read(id, model: model, replica) {
                    lock.withLock { counts.snapshotsFromReplicas += 1 }
                    return tables
                }
            } catch {
                setAside(index)
            }
        }
        let tables = try PostgresSnapshot.read(id, model: model, primary)
        if tables != nil { lock.withLock { counts.snapshotsFromPrimary += 1 } }
        return tables
    }

    /// The document's segments after `sequence`, through at least `target` (nil: the
    /// primary's head), or the first `limit` of them.
    /// - Throws: `.server` naming the primary when it fails (a replica's failure only
    ///   sends the read to the primary).
    func segments(of id: Int64, after sequence: Int64, through target: Int64? = nil, limit: Int = Int(Int32.max)) throws -> Pulled {
        guard let (index, replica) = chooseReplica() else { return try fromPrimaryOnly(id, after: sequence, limit: limit) }
        var primaryHead: (last: Int64, keys: [String: Int64], groups: UInt64)?
        let wanted: Int64
        if let target {
            wanted = target
        } else {
            let head = try PostgresLog.head(id, primary)
            primaryHead = head
            wanted = head.last
        }
        var pulled: Pulled
        do {
            var replicaHead: (last: Int64, keys: [String: Int64], groups: UInt64)
            do {
                replicaHead = try PostgresLog.head(id, replica)
            } catch let error as StrataError where error.code == .objectNotFound {
                // A document created after the replica's replay point is not there yet: all lag.
                replicaHead = (last: 0, keys: [:], groups: 0)
            }
            let replayed = replicaHead.last > sequence
                ? try PostgresLog.segments(id, after: sequence, limit: limit, replica) : []
            pulled = Pulled(segments: replayed, head: replicaHead)
        } catch {
            setAside(index)
            return try fromPrimaryOnly(id, after: sequence, limit: limit)
        }
        lock.withLock { counts.segmentsFromReplicas += pulled.segments.count }
        let reached = max(sequence, pulled.segments.last?.sequence ?? sequence)
        if reached < wanted, pulled.segments.count < limit {
            // The replica lags: the rest from the primary.
            let head = try primaryHead ?? PostgresLog.head(id, primary)
            let rest = head.last > reached
                ? try PostgresLog.segments(id, after: reached, limit: limit - pulled.segments.count, primary) : []
            lock.withLock { counts.segmentsFromPrimary += rest.count }
            pulled = Pulled(segments: pulled.segments + rest, head: head)
        }
        return pulled
    }

    /// Everything from the primary: a save's read inside its transaction, or a read with
    /// no replica to ask.
    func fromPrimaryOnly(_ id: Int64, after sequence: Int64, limit: Int) throws -> Pulled {
        let head = try PostgresLog.head(id, primary)
        let segments = head.last > sequence ? try PostgresLog.segments(id, after: sequence, limit: limit, primary) : []
        lock.withLock { counts.segmentsFromPrimary += segments.count }
        return Pulled(segments: segments, head: head)
    }

    /// The next replica in turn that has not failed lately, spreading reads across them.
    private func chooseReplica() -> (Int, PostgresSession)? {
        lock.withLock {
            guard !replicas.isEmpty else { return nil }
            let now = DispatchTime.now()
            for offset in 0..<replicas.count {
                let index = (next + offset) % replicas.count
                if let until = skippedUntil[index], until > now { continue }
                next = index + 1
                return (index, replicas[index])
            }
            return nil
        }
    }

    /// A replica failed: its connection closed, it is skipped for ``retryAfterFailure``.
    private func setAside(_ index: Int) {
        lock.withLock { skippedUntil[index] = .now() + Self.retryAfterFailure }
        replicas[index].close()
    }

    /// Closes the replicas' connections (the primary's belongs to its owner).
    func close() {
        for replica in replicas { replica.close() }
    }
}
