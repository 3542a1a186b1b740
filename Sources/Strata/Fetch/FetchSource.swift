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

    /// Hands each matching record to `body` as the store reads it, when the store can
    /// (``DocumentStore/streamRecords(_:_:)``); false, having read nothing, otherwise.
    func streamRecords(_ request: StoreFetchRequest, _ body: (ManagedObjectID, [PropertyValue]) throws -> Void) throws -> Bool {
        guard generation == nil, let document = store as? DocumentStore else { return false }
        return try document.streamRecords(request, body)
    }

    func countObjects(_ request: StoreFetchRequest) throws -> Int {
        try generation?.countObjects(request) ?? store.countObjects(request)
    }
}
