import Foundation
import Strata

/// A coordinator hands the store's remote changes to its contexts exactly as it does a
/// document store's: the replica finds them, and the store forwards them.
extension PostgresDocumentStore: RemoteChangeAnnouncing {
    /// Takes in what other writers appended since this store last read the server,
    /// without saving, and hands it to the coordinators the store was added to (their
    /// automatically merging contexts merge it; they post
    /// ``Strata/PersistentStoreCoordinator/storeRemoteChangeNotification``). Returns it;
    /// nil when nothing changed. The listener calls it whenever a writer appends.
    /// - Throws: `.server` naming the server; `.corruptSegment` naming a damaged segment.
    @discardableResult
    public func catchUp() throws -> StoreRemoteChange? {
        try catchUp(through: nil)
    }

    /// Catches up to at least `target` (nil: the primary's head), reading from the
    /// location's replicas what they have replayed.
    func catchUp(through target: Int64?) throws -> StoreRemoteChange? {
        _ = try withWriter { try pullFromServerLocked(routed: true, through: target) }
        // Outside the write lock: the coordinators' contexts may be waiting for it.
        return try replica.catchUp()
    }

    /// A NOTIFY arrived (on the listener's queue) with the last sequence appended: catch
    /// up. A failure is left for the next save or catch-up, which reads the server again
    /// and reports it.
    func serverChanged(through target: Int64?) {
        _ = try? catchUp(through: target)
    }

    /// What this store has read from the location's replicas and from the primary since
    /// it opened: how much reading the replicas took off the primary (docs/SCALING.md).
    public var serverReads: ServerReads { reads.served }

    /// Sets (nil: removes) what a coordinator does with the changes the replica took in.
    package func setRemoteChangeHandler(for coordinator: PersistentStoreCoordinator,
                                        _ handler: (@Sendable (StoreRemoteChange) -> Void)?) {
        replica.setRemoteChangeHandler(for: coordinator, handler)
    }

    /// Hands what the replica's catch-ups found to the coordinators.
    @discardableResult
    package func deliverRemoteChanges() -> StoreRemoteChange? {
        replica.deliverRemoteChanges()
    }
}
