import Foundation

/// One stored segment as the log table holds it.
public struct SegmentRecord: Sendable, Hashable {
    /// The segment's sequence number.
    public var sequence: UInt64
    /// When it was saved.
    public var timestamp: Date
    /// Its undo groups.
    public var groupCount: Int
    /// Its operations.
    public var operationCount: Int
    /// The size of the raw body.
    public var rawSize: Int
    /// The stored LZ4 frame.
    public var body: [UInt8]
    /// Whether the snapshot already holds it.
    public var isCompacted: Bool

    /// A record of these columns (the store, recovery and the sync tools build the rows
    /// they append; users read records, they do not make them).
    package init(sequence: UInt64, timestamp: Date, groupCount: Int, operationCount: Int, rawSize: Int,
                 body: [UInt8], isCompacted: Bool) {
        self.sequence = sequence
        self.timestamp = timestamp
        self.groupCount = groupCount
        self.operationCount = operationCount
        self.rawSize = rawSize
        self.body = body
        self.isCompacted = isCompacted
    }
}
