import Foundation
import Strata

/// What `strata fetch` asks for.
struct FetchSpecification {
    var entity: EntityDescription
    var predicate: FetchPredicate?
    var sortDescriptors: [FetchSortDescriptor]
    var limit: Int
    var offset: Int

    /// The library's fetch request for it (sub-entities included).
    var request: FetchRequest<ManagedObject> {
        let request = FetchRequest(entityName: entity.name, predicate: predicate, sortDescriptors: sortDescriptors)
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }
}

/// Runs `strata fetch` (and the demo's fetch) through the context: SQL over the snapshot
/// merged with the uncompacted segments, in the request's order and window.
enum FetchBackend {
    /// Hands each matching record and its stored values to `body` in order, holding none
    /// (``ManagedObjectContext/forEachStoredRecord(matching:_:)``): how `strata fetch`
    /// prints any number of objects in constant memory.
    static func forEachRecord(_ specification: FetchSpecification, in session: DocumentSession,
                              _ body: (ManagedObjectID, [PropertyValue]) throws -> Void) throws {
        try session.context.forEachStoredRecord(matching: specification.request, body)
    }

    /// ``forEachRecord(_:in:_:)`` with each record as a ``StoredRecordRow``
    /// (``ManagedObjectContext/forEachStoredRow(matching:_:)``): its columns read where the
    /// snapshot cursor holds them, for the writers that print each value once.
    static func forEachRow(_ specification: FetchSpecification, in session: DocumentSession,
                           _ body: (StoredRecordRow) throws -> Void) throws {
        try session.context.forEachStoredRow(matching: specification.request, body)
    }

    static func objects(_ specification: FetchSpecification, context: ManagedObjectContext) throws -> [ManagedObject] {
        try context.fetch(specification.request)
    }

    static func count(_ specification: FetchSpecification, in session: DocumentSession) throws -> Int {
        try session.context.count(for: specification.request)
    }
}
