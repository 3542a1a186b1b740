import Foundation

/// Where a fetch gets a store's answer: the store itself, or the context's pinned
/// generation of it.
struct FetchSource {
    /// The store.
    let store: any PersistentStore
    /// The pinned generation of it, when the context is pinned.
    let generation: DocumentGeneration?

    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        try generation?.fetchObjectIDs(request) ?? store.fetchObjectIDs(request)
    }

    func fetchRecords(_ request: StoreFetchRequest) throws -> [StoreRecord] {
        try generation?.fetchRecords(request) ?? store.fetchRecords(request)
    }

    func countObjects(_ request: StoreFetchRequest) throws -> Int {
        try generation?.countObjects(request) ?? store.countObjects(request)
    }
}
