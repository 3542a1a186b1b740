import Foundation
import OrderedCollections

/// Child contexts (Core Data's `parent`): a context whose source of records is another
/// context. It reads the parent's current, unsaved state; its save pushes its changes into
/// the parent (``saveIntoParent()``), not to the stores. See docs/ARCHITECTURE.md,
/// "Child contexts".
extension ManagedObjectContext {
    /// Creates a child context of `parent` (Core Data's `parent`): a scratch pad over the
    /// parent's current state, for an edit sheet or a batch of work that may be thrown away.
    ///
    /// ```swift
    /// let sheet = ManagedObjectContext(parent: viewContext)
    /// let ada = try sheet.existingObject(with: adaID)      // the parent's values, unsaved ones too
    /// try ada.setValue(.integer(160_000), forKey: "salary")
    /// try sheet.save()                                      // into viewContext, not to disk
    /// try viewContext.save()                                // now on disk
    /// ```
    ///
    /// - Faults fire with the parent's current values; fetches see the parent's pending
    ///   inserts, updates and deletes, with the child's own changes on top.
    /// - ``save()`` pushes the child's inserts, updates and deletes into the parent as the
    ///   parent's own unsaved changes, one undo group on the parent's undo manager (named
    ///   after the child's newest undo group). Conflicts with changes the parent made since
    ///   the child read an object are resolved by the child's ``mergePolicy``.
    /// - Discarding the child (or ``rollback()``) leaves the parent untouched.
    /// - Objects inserted here keep their temporary IDs until the parent (or the root of a
    ///   chain) saves; then the child takes the permanent IDs at its next operation.
    ///
    /// - Parameters:
    ///   - parent: The context to read through and save into; a child of a child is fine.
    ///   - concurrencyType: As for ``init(coordinator:concurrencyType:undoManager:)``. A
    ///     child's reads and saves run on the parent's queue (`performAndWait` style), so a
    ///     parent must never wait on its child's queue.
    ///   - undoManager: The child's own undo manager; nil turns undo off in the child.
    public convenience init(parent: ManagedObjectContext, concurrencyType: ConcurrencyType = .confinement,
                            undoManager: ContextUndoManager? = ContextUndoManager()) {
        self.init(coordinator: parent.coordinator, parent: parent, concurrencyType: concurrencyType, undoManager: undoManager)
        parent.children.withLock { list in
            list.removeAll { $0.context == nil }
            list.append(WeakContext(context: self))
        }
    }

    /// Runs `body` on the context's queue, at once when already there; unlike
    /// ``performAndWait(_:)`` it is not an event, so a child reading through its parent
    /// neither flushes the parent nor closes its undo group.
    func onQueue<T>(_ body: () throws -> T) rethrows -> T {
        guard let queue = workQueue, !isOnWorkQueue else { return try body() }
        return try queue.sync(execute: body)
    }

    // MARK: Reading through the parent

    /// The values of a record as this context's source has them: the parent's current
    /// values for a child (nil when the parent deletes it or it does not exist), the
    /// store's otherwise (nil for temporary IDs).
    func sourceValues(for id: ManagedObjectID) throws -> [PropertyValue]? {
        guard let parent else { return try storedValues(for: id) }
        // The parent flushes first, as for a fetch: its delete rules must have run, or the
        // child reads members a pending delete is about to take away, and its save then
        // sees the flush as the parent's change (a conflict).
        return try parent.onQueue {
            parent.processPendingChanges()
            return try parent.currentValues(for: id)
        }
    }

    /// The values a child of this context sees for a record: a registered, loaded object's
    /// current ones (unsaved changes included; nil when it is deleted), else the source's.
    func currentValues(for id: ManagedObjectID) throws -> [PropertyValue]? {
        if let object = registry[id]?.object {
            if object.state.isInvalid || object.state.isDeleted { return nil }
            if !object.state.isFault { return object.storage.array }
        }
        return try sourceValues(for: id)
    }

    /// A record's values and the change generation to stamp them with, for firing a fault
    /// or refreshing: the row cache or store as ``stalenessInterval`` allows, or the parent
    /// (the batch path of ``sourceRows(for:readingStore:)`` with one ID).
    func sourceRow(for id: ManagedObjectID) throws -> (values: [PropertyValue], generation: UInt64)? {
        try sourceRows(for: [id])[0]
    }

    // MARK: Permanent IDs from an ancestor's save

    /// Tells every child (and their children) that records they may know by temporary ID
    /// now have permanent ones. Each takes them in at its next operation (``enter()``), on
    /// its own queue.
    func announcePermanentIDs(_ assigned: [ManagedObjectID: ManagedObjectID]) {
        guard !assigned.isEmpty else { return }
        let descendants = children.withLock { $0.compactMap(\.context) }
        for child in descendants {
            child.permanentIDMail.withLock { $0.append(assigned) }
            child.hasMail.store(true, ordering: .releasing)
            child.announcePermanentIDs(assigned)
        }
    }

    /// Renames the records an ancestor's save made permanent, everywhere this child keeps
    /// them: also in the values of clean objects, which a root context never needs (a new
    /// object's ends are both changed there, but here they were saved into the parent).
    func takeInPermanentIDs() {
        let arrived = permanentIDMail.withLock { mail in
            defer { mail.removeAll() }
            return mail
        }
        for assigned in arrived { renameRecords(assigned) }
    }

    /// Gives records their permanent IDs in this context: registry, values of changed and
    /// clean objects, the unsaved log, the undo stacks, and the controllers' entries.
    func renameRecords(_ assigned: [ManagedObjectID: ManagedObjectID]) {
        let renamed = Set(assigned.compactMap { registry[$0.key]?.object == nil ? nil : $0.value })
        adoptPermanentIDs(assigned)
        for entry in registry.values {
            guard let object = entry.object, !object.state.inDirtySet, !object.state.isFault else { continue }
            for relationship in object.entity.relationships where relationship.slot < object.storage.count {
                let value = object.storage[relationship.slot]
                guard value.objectIDs.contains(where: { assigned[$0] != nil }) else { continue }
                switch value {
                case .object(let id): object.storage[relationship.slot] = .object(assigned[id] ?? id)
                case .objects(let ids): object.storage[relationship.slot] = .objects(OrderedSet(ids.map { assigned[$0] ?? $0 }))
                default: continue
                }
            }
        }
        // As after a root's save: controllers re-key the renamed objects.
        if !renamed.isEmpty { for observer in permanentIDObservers.values { observer(renamed) } }
    }
}
