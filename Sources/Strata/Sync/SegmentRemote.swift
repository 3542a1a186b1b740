import Foundation

/// A shared log that documents exchange segments through: the seam between a local
/// document and a server (or another file) that several people's documents sync with.
///
/// A remote holds one document's log as an ordered list of ``RemoteSegment``s, each the
/// very bytes a document file stores for that save (one LZ4 frame of a segment,
/// docs/FORMAT.md), numbered 1, 2, 3… without gaps. Appending is optimistic: a writer says
/// which sequence it last saw, and the append succeeds only if no one else appended since,
/// all of its segments or none. A remote never rewrites or reorders what it holds.
///
/// Implementations must be safe to call from any thread; each call is one atomic step on
/// the remote (one transaction on a server, one write transaction on a file).
public protocol SegmentRemote: AnyObject, Sendable {
    /// Where the remote is, for messages and `strata info` (never a password).
    var location: String { get }

    /// The remote document, or nil when there is none at this location yet.
    func document() throws -> RemoteDocument?

    /// Creates the remote document with its first segments (1…n, in order), atomically.
    /// - Throws: when a document already exists at this location (nothing is written).
    func create(_ document: RemoteDocument, segments: [RemoteSegment]) throws

    /// The segments after `sequence`, oldest first, at most `limit` of them.
    func segments(after sequence: Int64, limit: Int) throws -> [RemoteSegment]

    /// Appends `segments` (numbered `expectedLast + 1`, `+ 2`, …) if the remote's last
    /// sequence is still `expectedLast`, all or none.
    /// - Returns: false when another writer appended first (nothing was written): take in
    ///   their segments and try again.
    func append(_ segments: [RemoteSegment], expectingLast expectedLast: Int64) throws -> Bool

    /// Registers a replica (a local document that syncs with this remote) and returns its
    /// number, unique within the remote document and at least 1. A replica allocates the
    /// primary keys and undo group ids of what it creates offline from its own range
    /// (``RemoteDocument/keyRange(forReplica:)``), so no two replicas ever collide.
    func registerReplica(named name: String) throws -> Int
}

/// A remote document: its identity, its model and how far its log goes.
public struct RemoteDocument: Sendable, Equatable {
    /// The document's store identifier (a UUID string, `strata_meta.storeIdentifier`),
    /// shared by every replica so object URIs mean the same everywhere.
    public var storeIdentifier: String
    /// The model the document was created with, as the JSON a document file stores.
    public var modelJSON: Data
    /// The model's hash (`strata_meta.modelHash`): a replica with another model is refused.
    public var modelHash: String
    /// The sequence of the last segment the remote holds (0 when none).
    public var lastSequence: Int64

    /// Creates a description of a remote document.
    public init(storeIdentifier: String, modelJSON: Data, modelHash: String, lastSequence: Int64 = 0) {
        self.storeIdentifier = storeIdentifier
        self.modelJSON = modelJSON
        self.modelHash = modelHash
        self.lastSequence = lastSequence
    }

    /// How many bits of a primary key or group id are the replica's own counter: replica
    /// `n` owns `[n << replicaKeyBits, (n + 1) << replicaKeyBits)`; range 0 holds what was
    /// created before the document was first shared and what a server allocates itself.
    public static let replicaKeyBits = 40

    /// The primary keys (and undo group ids) that replica `replica` may hand out.
    public static func keyRange(forReplica replica: Int) -> Range<Int64> {
        let low = Int64(replica) << replicaKeyBits
        return low..<(low + (Int64(1) << replicaKeyBits))
    }
}

/// One segment of a remote's log: the bytes a document file stores in `strata_segment`
/// for one save, with the row's other columns.
public struct RemoteSegment: Sendable, Equatable {
    /// The position in the remote's log, from 1, without gaps.
    public var sequence: Int64
    /// When the save happened.
    public var time: Date
    /// The number of undo groups in the segment.
    public var groups: Int
    /// The number of operations in the segment.
    public var operations: Int
    /// The size of the segment before compression, in bytes.
    public var rawSize: Int
    /// One LZ4 frame of an encoded segment, exactly as `strata_segment.body` stores it.
    public var body: Data
    /// Who appended it: the replica number (0 for a writer connected to the server).
    public var replica: Int

    /// Creates a remote segment.
    public init(sequence: Int64, time: Date, groups: Int, operations: Int, rawSize: Int, body: Data, replica: Int) {
        self.sequence = sequence
        self.time = time
        self.groups = groups
        self.operations = operations
        self.rawSize = rawSize
        self.body = body
        self.replica = replica
    }
}
