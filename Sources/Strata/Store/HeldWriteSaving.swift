import Foundation

/// A store whose `performWrite` holds a write lock, and which can write a context's save
/// inside that write without taking the lock again: the document store and the PostgreSQL
/// store (StrataPostgres). A context's save, run by ``PersistentStoreCoordinator`` inside
/// every store's `performWrite`, writes through it, so it takes each store's writer lock
/// once (docs/ARCHITECTURE.md, "Save"). Package-only.
package protocol HeldWriteSaving: PersistentStore {
    /// Writes `request` inside the write the calling thread holds through this store's
    /// `performWrite` (its precondition), as ``PersistentStore/save(_:)`` does.
    /// - Throws: the save's errors; `.invalidArgument` when no write is held.
    func saveInHeldWrite(_ request: StoreSaveRequest) throws -> StoreSaveResult

    /// Reserves keys inside the write the calling thread holds through this store's
    /// `performWrite` (its precondition), as ``PersistentStore/allocatePrimaryKeys(for:count:)``
    /// does: durable when that write commits, forgotten when it rolls back
    /// (docs/ARCHITECTURE.md, "When new objects get their keys").
    /// - Throws: the reservation's errors; `.invalidArgument` when no write is held.
    func allocatePrimaryKeysInHeldWrite(for entity: EntityDescription, count: Int) throws -> ClosedRange<Int64>
}
