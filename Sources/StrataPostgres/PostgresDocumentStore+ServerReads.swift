import Foundation

extension PostgresDocumentStore {
    /// What a store read from its location's streaming replicas and from the primary
    /// (docs/POSTGRES.md, "Reading from replicas"): how much of its reading the replicas
    /// took off the primary. Saves read what they must see from the primary, inside their
    /// transaction, and count there.
    public struct ServerReads: Sendable, Equatable {
        /// Segments read from a replica (opens, catch-ups).
        public var segmentsFromReplicas = 0
        /// Segments read from the primary: a lagging replica's rest, saves' reads, and
        /// every read when the location names no replica or they failed.
        public var segmentsFromPrimary = 0
        /// Server snapshots an open read from a replica.
        public var snapshotsFromReplicas = 0
        /// Server snapshots an open read from the primary.
        public var snapshotsFromPrimary = 0

        /// Nothing read yet.
        public init() {}

        /// The share of segments that came from replicas, 0…1 (0 when none were read).
        public var replicaShare: Double {
            let total = segmentsFromReplicas + segmentsFromPrimary
            return total == 0 ? 0 : Double(segmentsFromReplicas) / Double(total)
        }
    }
}
