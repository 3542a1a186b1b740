import Foundation

/// A store whose document other writers change (other processes on its file, other
/// machines through a server): a coordinator registers a handler for what it takes in,
/// hands it what catch-ups inside saves found, and asks it to catch up. Package-only: the
/// document store and the PostgreSQL store (StrataPostgres) are the two kinds.
package protocol RemoteChangeAnnouncing: PersistentStore {
    /// Sets (nil: removes) what a coordinator does with this store's remote changes.
    func setRemoteChangeHandler(for coordinator: PersistentStoreCoordinator,
                                _ handler: (@Sendable (StoreRemoteChange) -> Void)?)
    /// Hands what catch-ups found to the coordinators (outside every lock of the store).
    @discardableResult
    func deliverRemoteChanges() -> StoreRemoteChange?
    /// Takes in the other writers' saves now and delivers them.
    @discardableResult
    func catchUp() throws -> StoreRemoteChange?
}
