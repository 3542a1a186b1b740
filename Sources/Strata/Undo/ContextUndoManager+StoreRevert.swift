import Foundation

extension ContextUndoManager {
    /// Undoes (or, with `redo`, redoes) the last top-level group and saves the result in one
    /// step, in the document store and at a batch insert's pace, when nothing in the context
    /// needs to follow: `strata undo` and `strata redo` of an import.
    ///
    /// The general path (``undo()`` and a save) makes an object per record, fires it as a
    /// fault, flushes and saves it: for a group of 200,000 inserts, several times the
    /// import. A group of inserts only (its undo deletes them) or of deletes only (its undo
    /// inserts them back) needs none of that when the context holds none of its records:
    /// the reverting operations are built from the log and the store's current rows and
    /// saved as one group of kind `undo` (or `redo`) reverting it, chunked and folded as a
    /// batch insert is (``DocumentStore/saveReverting(_:as:timestamp:author:contextName:metadata:)``,
    /// docs/ARCHITECTURE.md "Undo"). The stacks, the saved group and the document end as
    /// the general path leaves them after its save.
    ///
    /// - Returns: false, having changed nothing, when the path does not apply — the context
    ///   has changes or an open group, the group has app-level actions or other operations,
    ///   a record of it is registered in the context, an entity has uniqueness constraints
    ///   or text attributes, the records are not all in one document store, or the write
    ///   the caller holds has saved something already: the caller
    ///   then undoes through the context and saves.
    /// - Throws: `.undo` when a record the undo deletes no longer exists; store errors.
    ///   Nothing is written and the stacks stay as they were when it throws.
    /// - Complexity: O(operations in the group), one batched row read and one chunked save.
    package func undoSavingInStore(redo: Bool) throws -> Bool {
        guard let context, !isUndoing, !isRedoing, openGroups.isEmpty, recording == nil else { return false }
        context.processPendingChanges()
        guard !context.hasChanges, let group = redo ? redoStack.last : undoStack.last, !group.hasActions else { return false }
        try group.loadStoredOperations()
        guard let plan = try StoreRevertPlan(group, in: context) else { return false }

        post(redo ? Self.willRedoNotification : Self.willUndoNotification)
        if redo { isRedoing = true } else { isUndoing = true }
        defer { if redo { isRedoing = false } else { isUndoing = false } }
        let info = ChangeGroupInfo(id: context.coordinator.allocateGroupID(), kind: redo ? .redo : .undo,
                                   revertsGroup: group.id, actionName: group.actionName)
        var changes = SaveChanges()
        var inverse: [ChangeOperation] = []
        var savedID = info.id
        try context.coordinator.withSaveLock {
            // Read inside the held write, so that the rows deleted are the rows as they are.
            inverse = try plan.revertingOperations()
            savedID = try plan.store.saveReverting(inverse, as: info, timestamp: Date(),
                                                   author: context.transactionAuthor, contextName: context.name,
                                                   metadata: group.metadata?.persisted?.bytes)
            if plan.deletes { changes.deleted = plan.ids } else { changes.inserted = plan.ids }
            context.coordinator.noteChanged(changes.deleted)
        }
        context.coordinator.announce(changes, from: context)
        context.mergeChanges(fromContextDidSave: changes)

        let result = UndoGroup(id: savedID, kind: info.kind, revertsGroup: group.id, actionName: group.actionName)
        result.metadata = group.metadata
        if plan.store.configuration.retention == .all {
            // As an undoable batch insert's group: read back from the log when reverted.
            let store = plan.store
            result.storedOperations = { [weak store] in
                guard let store else {
                    throw StrataError(.undo, "The document that saved group \(savedID) is closed, so the group cannot be reverted.",
                                      context: .init { $0.group = savedID })
                }
                return try store.loggedOperations(ofGroup: savedID)
            }
        } else {
            result.items = [.batch(ChangeBatch(sequence: 0, operations: inverse, isUndoable: true, kind: info.kind, groupID: savedID))]
        }
        if redo {
            redoStack.removeLast()
            undoStack.append(result)
        } else {
            undoStack.removeLast()
            redoStack.append(result)
        }
        trim()
        post(redo ? Self.didRedoNotification : Self.didUndoNotification)
        return true
    }
}

/// What a group reverted in the store changes: its records (all inserted by it, or all
/// deleted by it), in one document store that holds them.
private struct StoreRevertPlan {
    let store: DocumentStore
    let operations: [ChangeOperation]
    /// Whether reverting deletes the records (the group inserted them).
    let deletes: Bool
    let ids: Set<ManagedObjectID>
    /// The reverted group's id.
    let groupID: UInt64
    /// Whether every entity of the group has no relationship and no derived attribute: a
    /// record's row then changes only by operations naming it, so the group's inserts hold
    /// the values the records have as long as nothing follows the group in the log.
    let rowsFollowOwnOperations: Bool

    /// Nil when the group is not one the store path can revert (see
    /// ``ContextUndoManager/undoSavingInStore(redo:)``).
    init?(_ group: UndoGroup, in context: ManagedObjectContext) throws {
        let operations = group.batches.flatMap(\.operations)
        guard let first = operations.first else { return nil }
        let deletes: Bool
        switch first {
        case .insert: deletes = true
        case .delete: deletes = false
        default: return nil
        }
        var checked: Set<ObjectIdentifier> = []
        var store: DocumentStore?
        var tag: UInt32?
        var ids: Set<ManagedObjectID> = []
        var rowsFollowOwnOperations = true
        ids.reserveCapacity(operations.count)
        for operation in operations {
            switch operation {
            case .insert where deletes, .delete where !deletes: break
            default: return nil
            }
            let id = operation.objectID
            guard !id.isTemporaryID, context.registeredObject(for: id) == nil, ids.insert(id).inserted else { return nil }
            let entity = id.entity
            if !checked.contains(ObjectIdentifier(entity)) {
                guard entity.effectiveUniquenessConstraints.isEmpty, entity.textSlots.isEmpty,
                      let found = try? context.coordinator.store(for: entity) as? DocumentStore,
                      store == nil || store === found else { return nil }
                store = found
                tag = found.tag
                checked.insert(ObjectIdentifier(entity))
                if !entity.relationships.isEmpty || entity.attributes.contains(where: { $0.derivation != nil }) {
                    rowsFollowOwnOperations = false
                }
            }
            guard id.storeTag == tag else { return nil }
        }
        // Rows are read as the document was before the held write's own saves.
        guard let store, try !store.heldWriteHasSaved else { return nil }
        self.store = store
        self.operations = operations
        self.deletes = deletes
        self.ids = ids
        self.groupID = group.id
        self.rowsFollowOwnOperations = rowsFollowOwnOperations
    }

    /// The operations reverting the group, newest first as an undo applies them: a delete
    /// holds the record's values as they are now (as a context's delete of it would), an
    /// insert the values the group's delete recorded.
    /// - Throws: `.undo` naming a record that no longer exists.
    func revertingOperations() throws -> [ChangeOperation] {
        // When nothing changed the records since the group inserted them, their values are
        // the inserts' (the inverse of an insert is a delete of its values): reading 200,000
        // rows back cost more than the rest of the undo.
        guard deletes, try !(rowsFollowOwnOperations && store.logEnds(withGroup: groupID)) else {
            return operations.reversed().map(\.inverse)
        }
        // Else the deletes record the values as they are now, read in one batch.
        let ids = operations.reversed().map(\.objectID)
        let current = try store.values(for: ids)
        return try zip(ids, current).map { id, values in
            guard let values else {
                throw StrataError(.undo, "\(id) no longer exists, so the group that inserted it cannot be undone.",
                                  context: .init { $0.object = id.description })
            }
            return .delete(id, values: values)
        }
    }
}
