/// The kind of an undo group, as recorded in the log and in segments.
public enum ChangeGroupKind: UInt8, Sendable, Hashable, Codable, CaseIterable {
    /// Changes a user made.
    case user = 0
    /// The changes of an undo.
    case undo = 1
    /// The changes of a redo.
    case redo = 2
    /// Changes made while undo registration was disabled.
    case unregistered = 3
    /// A batch update or delete run in the store.
    case batch = 4
    /// Changes merged from another context or process.
    case merge = 5
}
