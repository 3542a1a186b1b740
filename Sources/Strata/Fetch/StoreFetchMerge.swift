import Foundation

/// Merges a store's answer with an overlay of newer state: the context's pending changes
/// on top of its stores, or a document's uncompacted segments on top of its SQL snapshot.
///
/// The store answers the predicate and order with the values it holds (the *base*); the
/// overlay knows, for some records, that they are deleted or what their values are now.
/// The merge drops the base records the overlay knows about, re-judges the overlay's live
/// records with the predicate on their current values, slots the matches into the base
/// order, and applies the offset and limit to the merged list.
///
/// ```swift
/// let window = StoreFetchMerge.storeWindow(offset: 10, limit: 5, overlayCount: overlay.count)
/// var storeRequest = request
/// (storeRequest.fetchOffset, storeRequest.fetchLimit) = (window.offset, window.limit)
/// let base = try sql.fetchObjectIDs(storeRequest)               // offset 0, enough rows
/// let ids = try StoreFetchMerge.merge(
///     base: base, overlay: overlay, sortDescriptors: request.sortDescriptors,
///     offset: 10, limit: 5,
///     matches: { id, row in try predicate.evaluate(with: RowSubject(objectID: id, values: row, rowSource: rows)) },
///     sortKeys: { id, row in try FetchSortDescriptor.sortKeys(of: RowSubject(...), for: descriptors) })
/// ```
public enum StoreFetchMerge {
    /// What the overlay knows about one record.
    public enum Overlay<Values> {
        /// The record is deleted: it never appears.
        case deleted
        /// The record's current values: it appears if they match.
        case values(Values)
    }

    /// The window to ask the store for when an overlay of `overlayCount` records will be
    /// merged in: from the first record, enough rows that the merged window is complete even
    /// if every overlay record is among them and gets dropped. A `limit` of 0 (no limit)
    /// stays 0. Arithmetic saturates instead of overflowing.
    public static func storeWindow(offset: Int, limit: Int, overlayCount: Int) -> (offset: Int, limit: Int) {
        guard limit > 0 else { return (0, 0) }
        let (a, o1) = max(offset, 0).addingReportingOverflow(limit)
        let (b, o2) = a.addingReportingOverflow(max(overlayCount, 0))
        return (0, o1 || o2 ? Int.max : b)
    }

    /// The merged IDs, in order, within the window.
    ///
    /// - Parameters:
    ///   - base: the store's matching records in the fetch's order (sort keys, then
    ///     ``FetchSortDescriptor/compareIDs(_:_:)``), starting at the first match and holding
    ///     at least `offset + limit + overlay.count` records, or all of them (see
    ///     ``storeWindow(offset:limit:overlayCount:)``).
    ///   - overlay: the records whose state is newer than the store's, by ID (records of
    ///     other entities must be left out by the caller).
    ///   - sortDescriptors: the fetch's order.
    ///   - offset: how many merged records to skip.
    ///   - limit: the most merged records returned; 0 means no limit.
    ///   - matches: whether an overlay record's current values match the predicate.
    ///   - sortKeys: a record's sort key values: from `values` for an overlay record, from
    ///     the store (`nil` values) for a base record. Not called when there are no sort
    ///     descriptors.
    /// - Complexity: O(k log k + k log n) sort key look-ups for k overlay matches and n base
    ///   records, plus O(n) to assemble.
    public static func merge<Values>(
        base: [ManagedObjectID],
        overlay: [ManagedObjectID: Overlay<Values>],
        sortDescriptors: [FetchSortDescriptor],
        offset: Int, limit: Int,
        matches: (ManagedObjectID, Values) throws -> Bool,
        sortKeys: (ManagedObjectID, Values?) throws -> [PropertyValue]
    ) throws -> [ManagedObjectID] {
        let kept = base.filter { overlay[$0] == nil }
        var added: [(id: ManagedObjectID, keys: [PropertyValue])] = []
        for (id, entry) in overlay {
            guard case .values(let values) = entry, try matches(id, values) else { continue }
            added.append((id, sortDescriptors.isEmpty ? [] : try sortKeys(id, values)))
        }
        added = FetchSortDescriptor.sort(added, by: sortDescriptors)

        // Where each added record goes in `kept`: after every kept record that orders before
        // it. The added records are sorted, so the positions only grow.
        var keyCache: [Int: [PropertyValue]] = [:]
        func keptKeys(_ index: Int) throws -> [PropertyValue] {
            if sortDescriptors.isEmpty { return [] }
            if let keys = keyCache[index] { return keys }
            let keys = try sortKeys(kept[index], nil)
            keyCache[index] = keys
            return keys
        }
        var positions: [Int] = []
        positions.reserveCapacity(added.count)
        var low = 0
        for record in added {
            var high = kept.count
            var start = low
            while start < high {
                let middle = start + (high - start) / 2
                let order = FetchSortDescriptor.compare((kept[middle], try keptKeys(middle)), record, by: sortDescriptors)
                if order < 0 { start = middle + 1 } else { high = middle }
            }
            positions.append(start)
            low = start
        }

        var merged: [ManagedObjectID] = []
        merged.reserveCapacity(kept.count + added.count)
        var next = 0
        for (index, id) in kept.enumerated() {
            while next < added.count, positions[next] == index {
                merged.append(added[next].id)
                next += 1
            }
            merged.append(id)
        }
        while next < added.count {
            merged.append(added[next].id)
            next += 1
        }
        return window(merged, offset: offset, limit: limit)
    }

    /// The records from `offset` on, at most `limit` of them (0: no limit).
    public static func window<Element>(_ items: [Element], offset: Int, limit: Int) -> [Element] {
        let start = min(max(offset, 0), items.count)
        let available = items.count - start
        let count = limit > 0 ? min(limit, available) : available
        return Array(items[start..<(start + count)])
    }

    /// The number of records a window keeps out of `total`.
    public static func windowCount(total: Int, offset: Int, limit: Int) -> Int {
        let available = max(total - max(offset, 0), 0)
        return limit > 0 ? min(limit, available) : available
    }
}
