import Foundation

/// One undo group as a save records it: its identity, kind, what it reverts, its action
/// name, and its operations with permanent IDs.
public struct SegmentGroup: Hashable, Sendable {
    /// The group's id, unique in its document.
    public var id: UInt64
    /// What kind of change the group records.
    public var kind: ChangeGroupKind
    /// For undo and redo groups, the group they revert.
    public var revertsGroup: UInt64?
    /// The action name, or "".
    public var actionName: String
    /// The coalesced operations, in order.
    public var operations: [Operation]

    /// Creates a group.
    public init(id: UInt64, kind: ChangeGroupKind, revertsGroup: UInt64?, actionName: String, operations: [Operation]) {
        self.id = id
        self.kind = kind
        self.revertsGroup = revertsGroup
        self.actionName = actionName
        self.operations = operations
    }
}

/// One save's worth of the log: the unit appended to a document.
public struct Segment: Hashable, Sendable {
    /// The segment's sequence number in its document, starting at 1.
    public var sequence: UInt64
    /// When the save happened.
    public var timestamp: Date
    /// The groups saved, in order.
    public var groups: [SegmentGroup]

    /// Creates a segment.
    public init(sequence: UInt64, timestamp: Date, groups: [SegmentGroup]) {
        self.sequence = sequence
        self.timestamp = timestamp
        self.groups = groups
    }

    /// The number of operations in all groups.
    public var operationCount: Int { groups.reduce(0) { $0 + $1.operations.count } }
}
