import Foundation

/// An undo group's metadata: the app's value, handed back by undo and redo, and — when it
/// was given as persistent — its encoding, written with the group's record
/// (docs/TEXT.md, "Selections that survive reopening").
struct UndoGroupMetadata {
    /// What ``ContextUndoManager/undo()`` and ``ContextUndoManager/redo()`` hand back: the
    /// app's value, or a ``PersistentGroupMetadata`` in a restored history.
    var value: any Sendable
    /// The encoding a save writes with the group (docs/FORMAT.md §22); nil for metadata
    /// kept in memory only.
    var persisted: PersistentGroupMetadata?
}

extension ContextUndoManager {
    /// Attaches a value to the current group — the open group, the group an undo or redo is
    /// recording, or else the newest undo group — that ``undo()`` and ``redo()`` hand back,
    /// typically the selection to restore. It moves with the group between the stacks and
    /// is kept in memory only: a reopened document's restored groups do not have it. For
    /// metadata that survives reopening, use ``setPersistentGroupMetadata(_:)``. Setting
    /// it replaces persistent metadata set before (then the group saves none); nil clears it.
    ///
    /// ```swift
    /// try text.setValue(.string(newText), forKey: "body")
    /// undo.setGroupMetadata(Selection(start: 4, end: 4))
    /// let selection = try undo.undo() as? Selection
    /// ```
    public func setGroupMetadata(_ metadata: (any Sendable)?) {
        if !isUndoing, !isRedoing { context?.processPendingChanges() }
        currentMetadataGroup?.metadata = metadata.map { UndoGroupMetadata(value: $0, persisted: nil) }
    }

    /// Attaches a `Codable` value to the current group as ``setGroupMetadata(_:)`` does, and
    /// keeps it with the group in the document: the save that writes the group's changes
    /// writes its JSON encoding with them (segment format version 6, docs/FORMAT.md §22), and
    /// the undo history restored after reopening (``ManagedObjectContext/restoreUndoHistory()``)
    /// hands it back from ``undo()`` and ``redo()`` as a ``PersistentGroupMetadata``.
    /// ``undoGroupMetadata(as:)``, ``redoGroupMetadata(as:)`` and ``groupMetadata(_:as:)``
    /// give the value for both.
    ///
    /// What is saved is the metadata the group has when a save writes its changes; a group
    /// kept open across saves, or continued by coalescing, saves it again with its next
    /// changes, and the latest saved wins when history is restored. Metadata set on a group
    /// all of whose changes are already saved stays in memory until one of its changes is
    /// saved again — a reopened document then has what the last save wrote (docs/TEXT.md,
    /// "Selections that survive reopening").
    ///
    /// ```swift
    /// let caret = try note.cursor(at: 5, forKey: "body")
    /// try note.replaceCharacters(in: 5..<5, with: "!", forKey: "body")
    /// try undo.setPersistentGroupMetadata(caret)
    /// try context.save()
    /// // … reopened, history restored …
    /// let restored = try undo.undoGroupMetadata(as: TextCursor.self)   // the caret
    /// ```
    /// - Throws: `.invalidArgument` when the value cannot be encoded or encodes to more
    ///   than ``PersistentGroupMetadata/maximumSize`` bytes; the group's metadata is then
    ///   unchanged.
    public func setPersistentGroupMetadata<Value: Codable & Sendable>(_ value: Value) throws {
        let persisted = try PersistentGroupMetadata(encoding: value)
        if !isUndoing, !isRedoing { context?.processPendingChanges() }
        guard let group = currentMetadataGroup else { return }
        group.metadata = UndoGroupMetadata(value: value, persisted: persisted)
        mayHoldPersistentMetadata = true
    }

    /// The group ``setGroupMetadata(_:)`` sets.
    private var currentMetadataGroup: UndoGroup? { recording ?? openGroups.last ?? undoStack.last }

    /// The metadata of the group ``undo()`` would revert.
    public var undoGroupMetadata: (any Sendable)? { undoStack.last?.metadata?.value }
    /// The metadata of the group ``redo()`` would re-apply.
    public var redoGroupMetadata: (any Sendable)? { redoStack.last?.metadata?.value }

    /// The metadata of the group ``undo()`` would revert, as `type`: the value itself, or a
    /// restored group's ``PersistentGroupMetadata`` decoded; nil when the group has none or
    /// there is no group.
    /// - Throws: `.invalidArgument` when the metadata is neither a `type` nor decodes as one.
    public func undoGroupMetadata<Value: Decodable>(as type: Value.Type) throws -> Value? {
        try Self.groupMetadata(undoGroupMetadata, as: type)
    }

    /// The metadata of the group ``redo()`` would re-apply, as `type` (see
    /// ``undoGroupMetadata(as:)``).
    /// - Throws: `.invalidArgument` when the metadata is neither a `type` nor decodes as one.
    public func redoGroupMetadata<Value: Decodable>(as type: Value.Type) throws -> Value? {
        try Self.groupMetadata(redoGroupMetadata, as: type)
    }

    /// Metadata that ``undo()`` or ``redo()`` handed back, as `type`: the value itself
    /// (a group of this session), or a restored group's ``PersistentGroupMetadata`` decoded;
    /// nil for nil.
    ///
    /// ```swift
    /// let selection = try ContextUndoManager.groupMetadata(try undo.undo(), as: Selection.self)
    /// ```
    /// - Throws: `.invalidArgument` when `metadata` is neither a `type` nor decodes as one.
    public static func groupMetadata<Value: Decodable>(_ metadata: (any Sendable)?, as type: Value.Type) throws -> Value? {
        guard let metadata else { return nil }
        if let value = metadata as? Value { return value }
        if let persisted = metadata as? PersistentGroupMetadata { return try persisted.decode(type) }
        throw StrataError(.invalidArgument, "The undo group metadata is a \(String(describing: Swift.type(of: metadata))), not a \(String(describing: type)).")
    }

    /// The persistent metadata (``setPersistentGroupMetadata(_:)``) of the groups with
    /// some, by id: what a save writes with each group's record (docs/FORMAT.md §22). The
    /// stacks, the open top-level group and the group being recorded hold every group
    /// whose changes a save can write.
    func persistentMetadataByGroup() -> [UInt64: [UInt8]] {
        var result: [UInt64: [UInt8]] = [:]
        guard mayHoldPersistentMetadata else { return result }
        func note(_ group: UndoGroup) {
            if let bytes = group.metadata?.persisted?.bytes { result[group.id] = bytes }
        }
        for group in undoStack { note(group) }
        for group in redoStack { note(group) }
        if let top = openGroups.first { note(top) }
        if let recording { note(recording) }
        return result
    }
}
