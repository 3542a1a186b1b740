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
    public func fetchDictionaries(_ request: FetchRequest) throws -> [[String: PropertyValue]] {
        enter()
        if request.isComputedFetch { return try fetchComputedDictionaries(request) }
        let resolved = try request.resolve(in: model)
        let distinct = request.returnsDistinctResults
        let ids = try matchingIDs(resolved, windowed: !distinct)
        let rows = storeRowSource
        var result: [[String: PropertyValue]] = []
        var seen: Set<[String: PropertyValue]> = []
        for id in ids {
            let subject: any PredicateSubject
            if request.includesPendingChanges, let object = registeredObject(for: id), !object.state.isFault {
                subject = object
            } else if let values = try rows(id) {
                subject = RowSubject(objectID: id, values: values, rowSource: rows)
            } else {
                continue
            }
            var row: [String: PropertyValue] = [:]
            for path in resolved.properties {
                let value = try subject.resolvedValue(atKeyPath: path)
                if !value.isNull { row[path] = value }
            }
            if distinct, !seen.insert(row).inserted { continue }
            result.append(row)
        }
        return distinct ? StoreFetchMerge.window(result, offset: request.fetchOffset, limit: request.fetchLimit) : result
    }

    // MARK: Loading results

    /// Loads what the request asks for: the results' values (all of them when
    /// `returnsObjectsAsFaults` is false, the first batch when `fetchBatchSize` is set), and
    /// the destinations of the prefetching key paths.
    func load(_ objects: [ManagedObject], for resolved: ResolvedFetchRequest) throws {
        let request = resolved.request
        let loadCount: Int
        if request.fetchBatchSize > 0 {
            loadCount = min(request.fetchBatchSize, objects.count)
        } else if !request.returnsObjectsAsFaults || !resolved.prefetchPaths.isEmpty {
            loadCount = objects.count
        } else {
            loadCount = 0
        }
        let loaded = Array(objects.prefix(loadCount))
        try loadFaults(loaded)
        if !resolved.prefetchPaths.isEmpty {
            prefetchedObjects = try prefetch(resolved.prefetchPaths, from: loaded)
        }
    }

    /// Loads the values of the faults among `objects`, one store request per object but in
    /// one pass (a store that can batch gets the IDs together from ``storeValues(for:)``).
    /// Objects with pending changes are never faults, so nothing pending is overwritten.
    func loadFaults(_ objects: [ManagedObject]) throws {
        // A child's faults may be objects its parent inserted (temporary IDs).
        let faults = objects.filter { $0.state.isFault && !$0.state.isInvalid && (parent != nil || !$0.objectID.isTemporaryID) }
        guard !faults.isEmpty else { return }
        // Pinned, the values are as old as the generation (docs/SEMANTICS.md "Query generations").
        let generation = pinnedGeneration?.generation ?? coordinator.generation
        let values = try storeValues(for: faults.map(\.objectID))
        for object in faults where object.state.isFault {
            guard let stored = values[object.objectID] else { continue }
            object.storage = Self.withTransientDefaults(stored, of: object.entity)
            textsReadAgain(with: object)
            object.loadGeneration = generation
            object.state.isFault = false
            object.state.existsInStore = true
            awakeFromFetchUntracked(object)
        }
    }

    /// The stored values of several records, by ID (records that no longer exist are left
    /// out), grouped by store.
    func storeValues(for ids: [ManagedObjectID]) throws -> [ManagedObjectID: [PropertyValue]] {
        if parent != nil {
            var fromParent: [ManagedObjectID: [PropertyValue]] = [:]
            for id in ids { fromParent[id] = try sourceValues(for: id) }
            return fromParent
        }
        var byStore: [ObjectIdentifier: (store: any PersistentStore, ids: [ManagedObjectID])] = [:]
        for id in ids where !id.isTemporaryID {
            let store = try coordinator.store(for: id.entity)
            byStore[ObjectIdentifier(store), default: (store, [])].ids.append(id)
        }
        var result: [ManagedObjectID: [PropertyValue]] = [:]
        result.reserveCapacity(ids.count)
        for (_, group) in byStore {
            let pinned = pinnedGeneration?.readers[ObjectIdentifier(group.store)]
            for id in group.ids {
                if let values = try pinned?.values(for: id) ?? group.store.values(for: id) { result[id] = values }
            }
        }
        return result
    }

    /// Loads the destinations along each relationship key path from `sources`, level by
    /// level, and returns every object reached (so the caller can keep them alive).
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
                try loadFaults(destinations)
                reached.append(contentsOf: destinations)
                level = destinations
            }
        }
        return Array(reached)
    }
}
