import Foundation

/// What other connections to a document — other processes, or other stores over the same
/// file — saved, found when the document caught up with them: Strata's answer to Core
/// Data's `NSPersistentStoreRemoteChange` with persistent history.
///
/// A ``PersistentStoreCoordinator`` hands it to every context of its own that has
/// ``ManagedObjectContext/automaticallyMergesChangesFromParent`` on (they merge it like
/// another context's DidSave, and their ``FetchedResultsController``s report the diff),
/// then posts ``PersistentStoreCoordinator/storeRemoteChangeNotification``.
///
/// ```swift
/// NotificationCenter.default.addObserver(forName: PersistentStoreCoordinator.storeRemoteChangeNotification,
///                                        object: coordinator, queue: nil) { note in
///     let change = note.userInfo?[PersistentStoreCoordinator.remoteChangeKey] as? StoreRemoteChange
///     print(change?.changes.updated.count ?? 0, "records changed elsewhere")
/// }
/// ```
public struct StoreRemoteChange: Sendable, Hashable {
    /// The identifier of the store that caught up (``PersistentStore/identifier``).
    public let storeIdentifier: String
    /// The sequences of the other connections' segments taken in (nil when none was read,
    /// as when another connection's compaction is all that happened).
    public let sequences: ClosedRange<UInt64>?
    /// The records the other connections inserted, updated and deleted (each record in at
    /// most one list, by its state now).
    public let changes: SaveChanges
    /// Whether the store could not tell every record that changed: another connection
    /// compacted segments this one had not read, and its retention dropped them. Then
    /// `changes` lists only what the store knows, and contexts that merge automatically
    /// treat every record of the store as updated (and every object they hold whose record
    /// is gone as deleted).
    public let mayHaveChangedEverything: Bool

    /// Creates a remote change.
    public init(storeIdentifier: String, sequences: ClosedRange<UInt64>?, changes: SaveChanges,
                mayHaveChangedEverything: Bool) {
        self.storeIdentifier = storeIdentifier
        self.sequences = sequences
        self.changes = changes
        self.mayHaveChangedEverything = mayHaveChangedEverything
    }
}

extension PersistentStoreCoordinator {
    /// Posted (object: the coordinator) after one of its stores took in other connections'
    /// saves (``DocumentStore/catchUp()``, a save's catch-up, the store's watcher), once
    /// the coordinator's automatically merging contexts were handed them. The user info
    /// holds the ``StoreRemoteChange`` under ``remoteChangeKey``. Posted on the thread that
    /// caught up (the watcher's own queue, a saving thread): hop to your queue.
    public static let storeRemoteChangeNotification = Notification.Name("StrataPersistentStoreCoordinatorStoreRemoteChange")
    /// userInfo key of the ``StoreRemoteChange`` of ``storeRemoteChangeNotification``.
    public static let remoteChangeKey = "remoteChange"

    /// Takes in what other connections saved to this coordinator's document stores since
    /// they last read their logs, without saving: every automatically merging context is
    /// brought up to date and ``storeRemoteChangeNotification`` is posted for each store
    /// where something changed. Returns those changes.
    ///
    /// ```swift
    /// let changes = try coordinator.catchUp()
    /// ```
    /// - Throws: the document stores' errors (`.corruptSegment` naming the segment).
    /// - Complexity: O(bytes of the segments other connections appended).
    @discardableResult
    public func catchUp() throws -> [StoreRemoteChange] {
        try persistentStores.compactMap { try ($0 as? any RemoteChangeAnnouncing)?.catchUp() }
    }

    /// The former name of ``catchUp()``.
    @available(*, deprecated, renamed: "catchUp()")
    @discardableResult
    public func catchUpWithOtherWriters() throws -> [StoreRemoteChange] {
        try catchUp()
    }

    /// Hands what a document store caught up to the automatically merging contexts, then
    /// posts the notification. Called outside every lock, on the thread that caught up.
    func announceRemoteChange(_ change: StoreRemoteChange) {
        var changes = change.changes
        var refreshingAll: UInt32?
        if change.mayHaveChangedEverything, let store = store(withIdentifier: change.storeIdentifier) {
            refreshingAll = store.tag
            for root in model.entities(forConfiguration: store.configurationName) where root.superentity == nil {
                if let ids = try? store.objectIDs(for: root, includingSubentities: true) { changes.updated.formUnion(ids) }
            }
            changes.updated.subtract(changes.inserted)
        }
        let changed = changes.updated.union(changes.deleted)
        rowCache.remove(changed)
        if !changed.isEmpty { noteChanged(changed) }
        for context in automaticMergers() where context.parent == nil {
            context.receive(changes, refreshingAllOfStore: refreshingAll)
        }
        NotificationCenter.default.post(name: Self.storeRemoteChangeNotification, object: self,
                                        userInfo: [Self.remoteChangeKey: change])
    }

    /// Hands the catch-ups a save or batch request made (in its store's write lock) to
    /// contexts, once the locks are released.
    func deliverRemoteChanges() {
        for case let store as any RemoteChangeAnnouncing in persistentStores { store.deliverRemoteChanges() }
    }
}
