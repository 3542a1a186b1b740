/// What the log knows of an undo group: its kind, what it reverts, its action name.
public struct ChangeGroupInfo: Hashable, Sendable {
    /// The group's id, unique in its document.
    public var id: UInt64
    /// What kind of change the group records.
    public var kind: ChangeGroupKind
    /// For undo and redo groups, the group they revert.
    public var revertsGroup: UInt64?
    /// The action name ("Insert Employee"), or "".
    public var actionName: String

    /// Creates group information.
    public init(id: UInt64, kind: ChangeGroupKind, revertsGroup: UInt64? = nil, actionName: String = "") {
        self.id = id
        self.kind = kind
        self.revertsGroup = revertsGroup
        self.actionName = actionName
    }
}
