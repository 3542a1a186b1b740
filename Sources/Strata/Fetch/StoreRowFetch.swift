import Foundation

/// Runs a ``StoreFetchRequest`` over rows held in memory: the in-memory store's whole
/// fetch, and the reference the document store's SQL must agree with.
///
/// ```swift
/// let ids = try StoreRowFetch.objectIDs(request, candidates: rows.objectIDs(for: entity, includingSubentities: true)) {
///     rows.values(for: $0)
/// }
/// ```
package enum StoreRowFetch {
    /// The candidates that match the predicate, sorted (ties in ID order), within the
    /// request's window.
    /// - Parameters:
    ///   - candidates: the records of the entity (and sub-entities when asked).
    ///   - rowSource: the values of any record (relationship destinations included).
    /// - Throws: predicate evaluation errors, `.unknownKey` for a sort key the rows lack.
    /// - Complexity: O(n) predicate evaluations and O(n log n) comparisons.
    package static func objectIDs(
        _ request: StoreFetchRequest, candidates: [ManagedObjectID],
        rowSource: @escaping (ManagedObjectID) throws -> [PropertyValue]?
    ) throws -> [ManagedObjectID] {
        let all = try matching(request, candidates: candidates, rowSource: rowSource)
        return StoreFetchMerge.window(all, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    /// The number of matching candidates within the request's window.
    package static func count(
        _ request: StoreFetchRequest, candidates: [ManagedObjectID],
        rowSource: @escaping (ManagedObjectID) throws -> [PropertyValue]?
    ) throws -> Int {
        var total = 0
        for id in candidates where try self.matches(request, id, rowSource: rowSource) { total += 1 }
        return StoreFetchMerge.windowCount(total: total, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    /// Every matching candidate, in order, with no window.
    package static func matching(
        _ request: StoreFetchRequest, candidates: [ManagedObjectID],
        rowSource: @escaping (ManagedObjectID) throws -> [PropertyValue]?
    ) throws -> [ManagedObjectID] {
        var records: [(id: ManagedObjectID, keys: [PropertyValue])] = []
        for id in candidates {
            guard isInRequest(request, id), let values = try rowSource(id) else { continue }
            let subject = RowSubject(objectID: id, values: values, rowSource: rowSource)
            if let predicate = request.predicate, try !predicate.evaluate(with: subject) { continue }
            let keys = request.sortDescriptors.isEmpty
                ? [] : try FetchSortDescriptor.sortKeys(of: subject, for: request.sortDescriptors)
            records.append((id, keys))
        }
        return FetchSortDescriptor.sort(records, by: request.sortDescriptors).map(\.id)
    }

    private static func matches(
        _ request: StoreFetchRequest, _ id: ManagedObjectID,
        rowSource: @escaping (ManagedObjectID) throws -> [PropertyValue]?
    ) throws -> Bool {
        guard isInRequest(request, id), let values = try rowSource(id) else { return false }
        guard let predicate = request.predicate else { return true }
        return try predicate.evaluate(with: RowSubject(objectID: id, values: values, rowSource: rowSource))
    }

    /// Whether a record's entity is the request's (or a sub-entity when they are included).
    package static func isInRequest(_ request: StoreFetchRequest, _ id: ManagedObjectID) -> Bool {
        request.includesSubentities ? id.entity.isKind(of: request.entity) : id.entity === request.entity
    }
}
