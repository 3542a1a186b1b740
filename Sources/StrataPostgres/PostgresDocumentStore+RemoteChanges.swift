import Foundation
import Strata

/// A coordinator hands the store's remote changes to its contexts exactly as it does a
/// document store's: the replica finds them, and the store forwards them.
extension PostgresDocumentStore: RemoteChangeAnnouncing {
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
