import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// One dictionary per matching record, of the request's ``FetchRequest/propertiesToFetch``
    /// (every persistent attribute and to-one when nil), in the request's order and window.
    ///
    /// ```swift
    /// let request = FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("lastName")])
    /// request.propertiesToFetch = ["lastName", "department.name", "department"]
    /// request.returnsDistinctResults = true
    /// let rows = try context.fetchDictionaries(request)
    /// // [["lastName": "Quinn", "department.name": "R&D", "department": .object(id)], …]
    /// ```
    ///
    /// Keys are the key paths as written; a NULL value leaves its key out (as Core Data
    /// does). Relationships give their destination's object ID. Values are the current ones
    /// for objects changed in the context when pending changes are included, and the stored
    /// ones otherwise. No fault fires for the fetched records themselves. With
    /// `returnsDistinctResults`, duplicates are dropped before the offset and limit apply.
    /// - Throws: as ``fetch(_:)``.
    public func fetchDictionaries<ResultType>(_ request: FetchRequest<ResultType>) throws -> [[String: PropertyValue]] {
        enter()
        if request.isComputedFetch { return try fetchComputedDictionaries(request.untyped) }
        let resolved = try request.resolve(in: model)
        let distinct = request.returnsDistinctResults
        // The values come with the IDs, in one pass (a child reads through its parent).
        var matched = try matchingRecords(resolved, windowed: !distinct, withValues: parent == nil)
        let reached = ReachedRows(read: storeRowSource)
        try readFirstHops(of: resolved, from: matched, into: reached)
        // Each stored row is let go once its dictionary is made: the rows and the
        // dictionaries are not all in memory at once.
        matched.read = []
        let rows: (ManagedObjectID) throws -> [PropertyValue]? = { try reached.values(for: $0) }
        let columns = DictionaryColumn.columns(resolved.properties, of: resolved.entity)
        var result: [[String: PropertyValue]] = []
        result.reserveCapacity(matched.ids.count)
        let template = DictionaryRowTemplate(columns)
        var seen: Set<[String: PropertyValue]> = []
        for (position, id) in matched.ids.enumerated() {
            let row: [String: PropertyValue]
            if request.includesPendingChanges, let object = registeredObject(for: id), !object.state.isFault {
                row = try template.row { try object.resolvedValue(atKeyPath: columns[$0].path) }
            } else if let values = try matched.values[safe: position].flatMap({ $0 }) ?? rows(id) {
                if position < matched.values.count { matched.values[position] = nil }
                // A stored row: a key that names a slot is read from it directly.
                var subject: RowSubject?
                row = try template.row { index in
                    let column = columns[index]
                    switch column.kind {
                    case .attribute(let slot):
                        return slot < values.count ? values[slot] : .null
                    case .toOne(let slot):
                        // The destination's ID when it exists, as the key path gives it.
                        if slot < values.count, case .object(let destination) = values[slot], try rows(destination) != nil {
                            return values[slot]
                        }
                        return .null
                    case .keyPath:
                        if subject == nil { subject = RowSubject(objectID: id, values: values, rowSource: rows) }
                        return try subject!.resolvedValue(atKeyPath: column.path)
                    }
                }
            } else {
                continue
            }
            if distinct, !seen.insert(row).inserted { continue }
            result.append(row)
        }
        return distinct ? StoreFetchMerge.window(result, offset: request.fetchOffset, limit: request.fetchLimit) : result
    }

    /// Reads, in one batch, the destinations of the to-ones the dictionary fetch's key paths
    /// start with (`department` of `department.name`) for every record read with the fetch,
    /// so that resolving the key paths reads no row per record.
    private func readFirstHops(of resolved: ResolvedFetchRequest, from matched: MatchedRecords, into reached: ReachedRows) throws {
        let entity = resolved.entity
        var slots: Set<Int> = []
        for path in resolved.properties {
            let first = String(path.prefix { $0 != "." })
            guard let slot = entity.slot(forKey: first), case .relationship(let index) = entity.slotKinds[slot],
                  !entity.relationships[index].isToMany else { continue }
            slots.insert(slot)
        }
        guard !slots.isEmpty else { return }
        var wanted: OrderedSet<ManagedObjectID> = []
        for case let values? in matched.values {
            for slot in slots where slot < values.count {
                if case .object(let id) = values[slot] { wanted.append(id) }
            }
        }
        guard !wanted.isEmpty else { return }
        let ids = Array(wanted)
        reached.keep(ids, try sourceValues(for: ids))
    }

    // MARK: Loading results

    /// Loads what the request asks for: the results' values (all of them when
    /// `returnsObjectsAsFaults` is false, the first batch when `fetchBatchSize` is set, the
    /// rest left in batches of faults), and the destinations of the prefetching key paths.
    /// `read` holds the values the fetch read with the IDs, at `generation`; its lists are
    /// emptied once used, so they do not add to the loaded objects' peak memory.
    func load(_ objects: [ManagedObject], for resolved: ResolvedFetchRequest, read: inout MatchedRecords, generation: UInt64) throws {
        let request = resolved.request
        let loadCount: Int
        if request.fetchBatchSize > 0 {
            loadCount = min(request.fetchBatchSize, objects.count)
        } else if !request.returnsObjectsAsFaults || !resolved.prefetchPaths.isEmpty {
            loadCount = objects.count
        } else {
            loadCount = 0
        }
        if !read.batches.isEmpty {
            fillStreamed(objects, from: &read, generation: generation)
        } else if !read.values.isEmpty {
            for (object, values) in zip(objects, read.values) where object.state.isFault && !object.state.isInvalid {
                if let values { fill(object, with: values, generation: generation) }
            }
            // The objects hold the values now: the list of them goes before the row cache grows.
            read.values = []
            // Faults fired later find these rows as the staleness interval allows. A pinned
            // generation's rows stay out: the cache holds the document as it is now.
            if pinnedGeneration == nil { coordinator.cacheFetchedRows(read.read.suffix(RowCache.limit), generation: generation) }
            read.read = []
        }
        let loaded = Array(objects.prefix(loadCount))
        try loadFaults(loaded, readingStore: true)
        if request.fetchBatchSize > 0 { batchFaults(objects[loadCount...], size: request.fetchBatchSize) }
        if !resolved.prefetchPaths.isEmpty {
            prefetchedObjects = try prefetch(resolved.prefetchPaths, from: loaded)
        }
    }

    /// Loads the destinations along each relationship key path from `sources`, level by
    /// level — each level one batched read (``loadFaults(_:readingStore:)``), so a key path
    /// costs a read per relationship it crosses, not one per object — and returns every
    /// object reached (so the caller can keep them alive).
    private func prefetch(_ paths: [[String]], from sources: [ManagedObject]) throws -> [ManagedObject] {
        var reached: OrderedSet<ManagedObject> = []
        for path in paths {
            var level = sources
            for name in path {
                var ids: OrderedSet<ManagedObjectID> = []
                for source in level where !source.state.isFault && !source.state.isInvalid {
                    guard let slot = source.entity.slot(forKey: name) else { continue }
                    ids.append(contentsOf: source.storage[slot].objectIDs)
                }
                let destinations = ids.map { object(with: $0) }
                try loadFaults(destinations, readingStore: true)
                reached.append(contentsOf: destinations)
                level = destinations
            }
        }
        return Array(reached)
    }
}
