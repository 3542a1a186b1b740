import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Brings this context up to date with changes another context saved (the payload of
    /// its DidSave, ``didSave()``), Core Data's `mergeChanges(fromContextDidSave:)`.
    ///
    /// ```swift
    /// for await changes in writer.didSave() { try reader.mergeChanges(fromContextDidSave: changes) }
    /// ```
    ///
    /// First the context's own pending changes are flushed. Then:
    /// - **deleted** records: their registered objects are removed — they become invalid and
    ///   their pending changes (and unsaved logged operations) are dropped; pending
    ///   references to them from other changed objects are removed (logged as an
    ///   unregistered `ChangeGroupKind.merge` group, saved but never undone);
    /// - **updated** records: their registered, loaded objects are refreshed like
    ///   ``refresh(_:mergeChanges:)`` with `mergeChanges: true` — values reloaded from the
    ///   store, pending changes re-applied on top (a text with pending changes takes in the
    ///   other save's splices beside its own unsaved ones, docs/TEXT.md, "Merging before a
    ///   save"); faults need nothing;
    /// - **inserted** records: nothing to do, ``object(with:)`` gives them as faults.
    ///
    /// ObjectsDidChange is posted with the refreshed and the invalidated IDs (userInfo keys
    /// ``refreshedObjectsKey``, ``invalidatedObjectsKey``; the invalidated ones also under
    /// ``deletedObjectsKey``). Undo groups that change a merged-away record can no longer be
    /// undone (undoing them throws `.objectNotFound`).
    ///
    /// - Complexity: O(merged records + changed objects of the context).
    public func mergeChanges(fromContextDidSave changes: SaveChanges) {
        checkQueue()
        // A pinned context moves to the newest generation, which holds the merged save
        // (as Core Data's), before objects are refreshed from it.
        advancePinnedGeneration()
        processPendingChanges()
        var notice = ObjectChanges()
        // The merged records changed: whoever saved them, this coordinator's cached rows
        // of them are old (another coordinator's save never reached its cache).
        // Neither set is copied when the other is empty or none is temporary: an undo of
        // an import merges 1,000,000 deletions and nothing else.
        coordinator.rowCache.remove(changes.updated.isEmpty ? changes.deleted : changes.updated.union(changes.deleted))

        // Deleted records: remove their objects and everything pending about them.
        let deleted = changes.deleted.contains(where: \.isTemporaryID) ? changes.deleted.filter { !$0.isTemporaryID } : changes.deleted
        if !deleted.isEmpty {
            // A context holding no object has none to remove: an undo of an import merges
            // 1,000,000 deletions into the tool's empty context, and sorting them cost more
            // than the rest of the merge (docs/ARCHITECTURE.md, "Undo").
            for id in registry.count == 0 ? [] : deleted.sorted() {
                guard let object = registry[id]?.object, !object.state.isInvalid else { continue }
                removeMergedDeletion(object)
                notice.invalidated.insert(id)
            }
            log.removeUnsavedOperations(on: deleted)
        }

        // Updated records: reload loaded objects, keeping their pending changes.
        // Pending deletes, with the destinations their delete rules already reached.
        var pendingDeletes: [(object: ManagedObject, known: [Set<ManagedObjectID>])] = []
        for id in changes.updated.sorted() where !deleted.contains(id) {
            guard let object = registeredObject(for: id), !object.state.isFault, !object.state.isInserted else { continue }
            if object.state.isDeleted {
                pendingDeletes.append((object, object.entity.relationships.map { Set(object.storage[$0.slot].objectIDs) }))
            }
            refresh(object, mergeChanges: true)
            notice.refreshed.insert(id)
        }

        if !deleted.isEmpty { detachPendingReferences(to: deleted) }
        if !pendingDeletes.isEmpty { applyDeleteRulesToNewcomers(pendingDeletes) }
        notice.deleted = notice.invalidated
        if !notice.isEmpty { postObjectsDidChange(notice) }
        for observer in resultObservers.values { observer(changes) }
    }

    /// The same, given the DidSave notification itself (``didSaveNotification``), as Core
    /// Data's `mergeChanges(fromContextDidSave:)` is used from a notification observer.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveNotification,
    ///                                        object: writer, queue: nil) { note in
    ///     try? reader.mergeChanges(fromContextDidSave: note)
    /// }
    /// ```
    /// - Throws: `.invalidArgument` when the notification is not a DidSave or its user info
    ///   does not hold sets of object IDs under the change keys (nothing is merged then).
    public func mergeChanges(fromContextDidSave notification: Notification) throws {
        guard notification.name == Self.didSaveNotification else {
            throw StrataError(.invalidArgument, "\(notification.name.rawValue) is not a DidSave notification.",
                              context: .init { $0.value = notification.name.rawValue })
        }
        var changes = SaveChanges()
        for (key, path) in [(Self.insertedObjectsKey, \SaveChanges.inserted), (Self.updatedObjectsKey, \.updated),
                            (Self.deletedObjectsKey, \.deleted)] {
            guard let value = notification.userInfo?[key] else { continue }
            guard let ids = value as? Set<ManagedObjectID> else {
                throw StrataError(.invalidArgument, "The DidSave user info under \(input: key) is not a set of object IDs.",
                                  context: .init { $0.key = key })
            }
            changes[keyPath: path] = ids
        }
        mergeChanges(fromContextDidSave: changes)
    }

    /// Merges changes made outside this context stack — a batch request, another process —
    /// into contexts, given the IDs by kind: Core Data's
    /// `mergeChanges(fromRemoteContextSave:into:)`.
    ///
    /// ```swift
    /// let result = try context.executeBatch(BatchDeleteRequest(entityName: "Project"))
    /// try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context, other])
    /// ```
    /// - Parameters:
    ///   - changes: ID lists under ``insertedObjectsKey``, ``updatedObjectsKey``,
    ///     ``deletedObjectsKey`` (missing keys are empty).
    ///   - contexts: the contexts to bring up to date (see ``mergeChanges(fromContextDidSave:)-(SaveChanges)``).
    /// - Throws: `.invalidArgument` for another key.
    public static func mergeChanges(fromRemoteContextSave changes: [String: [ManagedObjectID]],
                                    into contexts: [ManagedObjectContext]) throws {
        let saved = try saveChanges(from: changes) { $0 }
        for context in contexts { context.performAndWait { context.mergeChanges(fromContextDidSave: saved) } }
    }

    /// The same with object URIs (``ManagedObjectID/uriRepresentation()``), resolved by each
    /// context's coordinator.
    /// - Throws: `.invalidArgument` for another key, `.invalidObjectID` for a URI that names
    ///   no record of a context's stores (nothing is merged then).
    public static func mergeChanges(fromRemoteContextSave changes: [String: [URL]],
                                    into contexts: [ManagedObjectContext]) throws {
        let resolved = try contexts.map { context in
            try saveChanges(from: changes) { try context.coordinator.managedObjectID(forURIRepresentation: $0) }
        }
        for (context, saved) in zip(contexts, resolved) { context.performAndWait { context.mergeChanges(fromContextDidSave: saved) } }
    }

    private static func saveChanges<Item>(from changes: [String: [Item]],
                                          id: (Item) throws -> ManagedObjectID) throws -> SaveChanges {
        var saved = SaveChanges()
        for (key, items) in changes {
            let ids = Set(try items.map(id))
            switch key {
            case insertedObjectsKey: saved.inserted.formUnion(ids)
            case updatedObjectsKey: saved.updated.formUnion(ids)
            case deletedObjectsKey: saved.deleted.formUnion(ids)
            default:
                throw StrataError(
                    .invalidArgument,
                    "\(input: key) is not a change key; use \"\(insertedObjectsKey)\", \"\(updatedObjectsKey)\" or \"\(deletedObjectsKey)\".",
                    context: .init { $0.key = key })
            }
        }
        return saved
    }

    // MARK: Pieces

    /// Removes an object whose record another save deleted: its pending changes go, it
    /// leaves the registry and becomes invalid.
    private func removeMergedDeletion(_ object: ManagedObject) {
        let key = ObjectIdentifier(object)
        flushSet[key] = nil
        dirtySet.remove(object)
        fetchedPropertyCache[key] = nil
        object.committedSnapshot = nil
        object.clearFlushOld()
        object.state = ObjectState()
        unregister(object)
    }

    /// Removes references to deleted records from the context's changed objects (their
    /// pending values may point at them), as a non-undoable merge batch.
    /// A record this context deletes (not saved yet) that the merged save related new
    /// records to — another context added an employee to a department this one deletes —
    /// would leave them pointing at a deleted record once this context saves. Its delete
    /// rules are applied to those newcomers (cascade deletes them, nullify detaches them;
    /// deny is left to the save's validation), as an unregistered merge batch: the merge's
    /// consequence, not an undoable change.
    private func applyDeleteRulesToNewcomers(_ objects: [(object: ManagedObject, known: [Set<ManagedObjectID>])]) {
        var touched = false
        for (object, known) in objects {
            guard let stored = try? sourceValues(for: object.objectID) else { continue }
            for (index, relationship) in object.entity.relationships.enumerated()
            where !relationship.isTransient && relationship.slot < stored.count {
                for id in stored[relationship.slot].objectIDs where !known[index].contains(id) {
                    let destination = self.object(with: id)
                    guard (try? materialize(destination)) != nil, !destination.state.isDeleted else { continue }
                    switch relationship.deleteRule {
                    case .cascade:
                        delete(destination)
                        touched = true
                    case .nullify:
                        guard let inverse = relationship.inverseSlot else { continue }
                        try? detach(object.objectID, from: destination, slot: inverse)
                        touched = true
                    case .deny, .noAction:
                        continue
                    }
                }
            }
        }
        if touched { flushAsMerge() }
    }

    private func detachPendingReferences(to deleted: Set<ManagedObjectID>) {
        var touched = false
        // Not deleted objects: their records go with this save, and a change logged after
        // their delete would name a record that no longer exists.
        for object in Array(dirtySet.values) where !object.state.isInvalid && !object.state.isFault && !object.state.isDeleted {
            for relationship in object.entity.relationships where relationship.slot < object.storage.count {
                for id in object.storage[relationship.slot].objectIDs where deleted.contains(id) {
                    try? detach(id, from: object, slot: relationship.slot)
                    touched = true
                }
            }
        }
        if touched { flushAsMerge() }
    }

    /// Flushes the changes a merge made as an unregistered `merge` batch: consequences of
    /// other contexts' saves, saved and rolled back like any change, never undone.
    private func flushAsMerge() {
        let manager = undoManager
        manager?.disableUndoRegistration()
        pendingFlushKind = .merge
        processPendingChanges()
        pendingFlushKind = nil
        try? manager?.enableUndoRegistration()
    }
}
