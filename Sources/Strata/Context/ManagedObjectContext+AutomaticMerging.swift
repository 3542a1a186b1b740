import Foundation

extension ManagedObjectContext {
    /// Whether the context takes in what is saved to its parent, on its own (Core Data's
    /// property of the same name). Default `false`. For a context over the coordinator that
    /// is what other contexts of the coordinator save, what batch requests change and what
    /// other processes save (``StoreRemoteChange``); for a child context, what its parent
    /// saves to the store and what its sibling children save into the parent.
    ///
    /// ```swift
    /// let ui = ManagedObjectContext(coordinator: coordinator, concurrencyType: .mainQueue)
    /// ui.automaticallyMergesChangesFromParent = true   // background saves show up in the UI
    /// ```
    ///
    /// Each change is merged as by ``mergeChanges(fromContextDidSave:)-(SaveChanges)``: records others
    /// deleted leave the context, loaded objects of updated records are refreshed and keep
    /// their pending changes, and ObjectsDidChange says so. A private-queue or main-queue
    /// context merges on its queue, right after the save. A confinement context has no
    /// queue another thread could use, so it merges when it next saves, fetches, counts,
    /// inserts, deletes or runs a batch request.
    ///
    /// Unlike Core Data's, batch requests are merged too.
    public var automaticallyMergesChangesFromParent: Bool {
        get { coordinator.mergesAutomatically(self) }
        set { coordinator.setMergesAutomatically(self, newValue) }
    }

    /// Called by the coordinator, on the saving (or catching-up) thread, with another
    /// save's changes. `refreshingAllOfStore`: the tag of a store whose every record may
    /// have changed (another process's compaction hid what changed): objects of that store
    /// whose records are not in `changes` are gone and merge as deleted.
    func receive(_ changes: SaveChanges, refreshingAllOfStore tag: UInt32? = nil) {
        switch concurrencyType {
        case .confinement:
            mailbox.withLock { $0.append((changes, tag)) }
            hasMail.store(true, ordering: .releasing)
        case .privateQueue, .mainQueue:
            workQueue?.async { [weak self] in self?.mergeArrived(changes, refreshingAllOfStore: tag) }
        }
    }

    private func mergeArrived(_ changes: SaveChanges, refreshingAllOfStore tag: UInt32?) {
        // A child knows its parent's new records by the IDs the root's save gave them.
        if parent != nil { takeInPermanentIDs() }
        guard let tag else { return mergeChanges(fromContextDidSave: changes) }
        var changes = changes
        for entry in registry.values {
            guard let id = entry.object?.objectID, id.storeTag == tag, !id.isTemporaryID,
                  !changes.updated.contains(id), !changes.inserted.contains(id) else { continue }
            changes.deleted.insert(id)
        }
        mergeChanges(fromContextDidSave: changes)
    }

    /// Merges the saves that arrived for a confinement context now, rather than at its next
    /// operation (``PersistentContainer/mergeChangesFromOtherProcesses()``).
    func takeInArrivedChanges() {
        if hasMail.load(ordering: .acquiring) { takeInArrivedSaves() }
    }

    /// The start of a public operation: checks the queue (debug builds) and takes in saves
    /// that arrived for a confinement context.
    @inline(__always)
    func enter(_ function: StaticString = #function) {
        checkQueue(function)
        if hasMail.load(ordering: .acquiring) { takeInArrivedSaves() }
    }

    private func takeInArrivedSaves() {
        hasMail.store(false, ordering: .relaxed)
        if parent != nil { takeInPermanentIDs() }
        let arrived = mailbox.withLock { mail in
            defer { mail.removeAll() }
            return mail
        }
        for (changes, tag) in arrived { mergeArrived(changes, refreshingAllOfStore: tag) }
    }

    /// Hands what was saved to this context — its own save to the store, or a child's save
    /// into it — to its automatically merging children but `origin`.
    func announceToChildren(_ changes: SaveChanges, from origin: ManagedObjectContext?) {
        guard !changes.isEmpty else { return }
        let listening = children.withLock { $0.compactMap(\.context) }
        for child in listening where child !== origin && child.automaticallyMergesChangesFromParent { child.receive(changes) }
    }
}

extension PersistentStoreCoordinator {
    /// Hands a save's (or a batch request's) changes to every automatically merging
    /// context but the one that made them.
    func announce(_ changes: SaveChanges, from origin: ManagedObjectContext?) {
        guard !changes.isEmpty else { return }
        // Children listen to their parents (``ManagedObjectContext/announceToChildren(_:from:)``).
        for context in automaticMergers() where context !== origin && context.parent == nil { context.receive(changes) }
    }
}
