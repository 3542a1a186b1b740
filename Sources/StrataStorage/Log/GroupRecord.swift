import Foundation

/// One undo group as the group table records it.
public struct GroupRecord: Sendable, Hashable {
    /// The segment that holds it.
    public var sequence: UInt64
    /// When that segment was saved.
    public var timestamp: Date
    /// The group.
    public var info: ChangeGroupInfo

    /// A record of a group row and its segment's time.
    package init(sequence: UInt64, timestamp: Date, info: ChangeGroupInfo) {
        self.sequence = sequence
        self.timestamp = timestamp
        self.info = info
    }
}
