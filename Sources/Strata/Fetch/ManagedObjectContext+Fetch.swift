import Foundation

extension ManagedObjectContext {
    /// The objects matching a request, in its order and window (whatever its result type),
    /// as instances of the request's type.
    ///
    /// ```swift
    /// let request = FetchRequest<Employee>(predicate: #Predicate { $0.department?.name == "R&D" },
    ///                                      sortBy: [SortDescriptor(\.salary, order: .reverse)])
    /// let employees: [Employee] = try context.fetch(request)
    /// ```
    ///
    /// With `includesPendingChanges` (the default) the context first runs
    /// ``processPendingChanges()``; inserted objects that match appear, deleted ones do not,
    /// and updated ones are judged (and sorted) by their current values. Results already
    /// registered are the registered instances; a fetch never overwrites an object's pending
    /// values with stored ones.
    /// - Throws: `.unknownKey` for an unknown entity or key path, `.invalidArgument` for a
    ///   negative window or a key path of the wrong kind, `.noStore`, predicate evaluation
    ///   errors, store errors; `.typeMismatch` naming the object when a result is not a
    ///   `ResultType` (its entity's class is not the request's class or a subclass).
    /// - Complexity: the store's query, plus O(k log n) for k pending objects of the entity.
    public func fetch<ResultType: ManagedObject>(_ request: FetchRequest<ResultType>) throws -> [ResultType] {
        enter()
        let resolved = try request.resolve(in: model)
        // Read before the store is: objects stamped with it are never newer than their values.
        let generation = pinnedGeneration?.generation ?? coordinator.generation
        let withValues = readsValuesWithIDs(resolved)
        var matched = try matchingRecords(resolved, windowed: true, withValues: withValues, streaming: withValues)
        let objects = matched.ids.map { object(with: $0) }
        // The objects hold the IDs now: no second list of them is kept while they load.
        matched.ids = []
        try load(objects, for: resolved, read: &matched, generation: generation)
        return try objects.map { try Self.typed($0, as: ResultType.self) }
    }

    /// The objects matching a request, as instances of a subclass.
    ///
    /// ```swift
    /// let employees: [Employee] = try context.fetch(FetchRequest(entityName: "Employee"), as: Employee.self)
    /// ```
    /// - Throws: as ``fetch(_:)``; `.typeMismatch` naming the entity when a result is not a `T`.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<ManagedObject>, as type: T.Type) throws -> [T] {
        try fetch(request.retyped(as: T.self))
    }

    /// An object as an instance of a class, or a `.typeMismatch` error naming it.
    static func typed<T: ManagedObject>(_ object: ManagedObject, as type: T.Type) throws -> T {
        guard let typed = object as? T else {
            throw StrataError(.typeMismatch, "\(object.entity.name) \(object.objectID) is \(withArticle(Swift.type(of: object))), not \(withArticle(T.self)).",
                              context: .init { $0.entity = object.entity.name; $0.object = object.objectID.description })
        }
        return typed
    }

    /// The IDs of the records matching a request, in its order and window. Loads no object.
    /// - Throws: as ``fetch(_:)``.
    public func fetchObjectIDs<ResultType>(_ request: FetchRequest<ResultType>) throws -> [ManagedObjectID] {
        enter()
        return try matchingIDs(try request.resolve(in: model), windowed: true)
    }

    /// The number of records a fetch would return: the window and pending changes applied
    /// as in ``fetch(_:)``.
    /// - Throws: as ``fetch(_:)``.
    /// - Complexity: the store's count when no pending object of the entity exists.
    public func count<ResultType>(for request: FetchRequest<ResultType>) throws -> Int {
        enter()
        let resolved = try request.resolve(in: model)
        // A child counts what its fetch would return: the parent's answer is a list anyway.
        if parent != nil { return try matchingIDs(resolved, windowed: true).count }
        if request.includesPendingChanges { processPendingChanges() }
        let stores = try self.stores(serving: resolved)
        let overlay = request.includesPendingChanges ? pendingOverlay(for: resolved) : [:]
        if overlay.isEmpty {
            if stores.count == 1 { return try stores[0].countObjects(resolved.storeRequest) }
            var whole = resolved.storeRequest
            (whole.fetchOffset, whole.fetchLimit) = (0, 0)
            let total = try stores.reduce(0) { $0 + (try $1.countObjects(whole)) }
            return StoreFetchMerge.windowCount(total: total, offset: request.fetchOffset, limit: request.fetchLimit)
        }
        // Order does not change a count: merge without sort keys.
        var unordered = resolved.storeRequest
        (unordered.fetchOffset, unordered.fetchLimit) = (0, 0)
        let base = try storeIDs(unordered, from: stores)
        let all = try StoreFetchMerge.merge(
            base: base, overlay: overlay, sortDescriptors: [], offset: 0, limit: 0,
            matches: { _, object in try request.predicate?.evaluate(with: object) ?? true },
            sortKeys: { _, _ in [] })
        return StoreFetchMerge.windowCount(total: all.count, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    /// Runs a request and returns what its ``FetchRequest/resultType`` asks for.
    ///
    /// ```swift
    /// request.resultType = .count
    /// if case .count(let n) = try context.execute(request) { print(n) }
    /// ```
    /// - Throws: as ``fetch(_:)``.
    public func execute<ResultType>(_ request: FetchRequest<ResultType>) throws -> FetchResults {
        switch request.resultType {
        case .managedObject: return .objects(try fetch(request.untyped))
        case .managedObjectID: return .objectIDs(try fetchObjectIDs(request))
        case .dictionary: return .dictionaries(try fetchDictionaries(request))
        case .count: return .count(try count(for: request))
        }
    }

    // MARK: Matching

    /// The matching IDs in order: the stores' answer (a child: its parent's, pending changes
    /// included) merged with the pending changes. `windowed: false` ignores the request's
    /// offset and limit; `includingPending` overrides the request's `includesPendingChanges`.
    func matchingIDs(_ resolved: ResolvedFetchRequest, windowed: Bool, includingPending: Bool? = nil) throws -> [ManagedObjectID] {
        try matchingRecords(resolved, windowed: windowed, includingPending: includingPending, withValues: false).ids
    }

    /// The matching IDs in order, as ``matchingIDs(_:windowed:includingPending:)``, and with
    /// `withValues` the stored values of the records the stores returned, read in the same
    /// pass (``PersistentStore/fetchRecords(_:)``; docs/ARCHITECTURE.md, "Reads: one pass
    /// from SQL to objects"). A child reads its parent's IDs only.
    /// - Parameter streaming: a fetch of objects may have the values of a plain read of
    ///   one document store streamed into batches (``MatchedRecords/batches``) instead.
    func matchingRecords(_ resolved: ResolvedFetchRequest, windowed: Bool, includingPending: Bool? = nil,
                         withValues: Bool, streaming: Bool = false) throws -> MatchedRecords {
        let request = resolved.request
        let pending = includingPending ?? request.includesPendingChanges
        if pending { processPendingChanges() }
        let stores = try self.stores(serving: resolved)
        let overlay = pending ? pendingOverlay(for: resolved) : [:]
        let offset = windowed ? request.fetchOffset : 0
        let limit = windowed ? request.fetchLimit : 0
        var storeRequest = resolved.storeRequest
        let base: MatchedRecords
        if let parent {
            // The parent is this context's store: its whole answer, its own pending changes
            // on top of its source's, in the request's order.
            let all = try parent.onQueue { try parent.matchingIDs(resolved, windowed: false, includingPending: true) }
            guard !overlay.isEmpty else { return MatchedRecords(ids: StoreFetchMerge.window(all, offset: offset, limit: limit)) }
            base = MatchedRecords(ids: all)
        } else {
            guard !overlay.isEmpty else {
                (storeRequest.fetchOffset, storeRequest.fetchLimit) = (offset, limit)
                if streaming, stores.count == 1, let streamed = try streamedRecords(storeRequest, from: stores[0]) { return streamed }
                return try storeRecords(storeRequest, from: stores, withValues: withValues)
            }
            (storeRequest.fetchOffset, storeRequest.fetchLimit) =
                StoreFetchMerge.storeWindow(offset: offset, limit: limit, overlayCount: overlay.count)
            base = try storeRecords(storeRequest, from: stores, withValues: withValues)
        }
        let descriptors = request.sortDescriptors
        let rows = storeRowSource
        let read = base.valuesByID()
        let ids = try StoreFetchMerge.merge(
            base: base.ids, overlay: overlay, sortDescriptors: descriptors, offset: offset, limit: limit,
            matches: { _, object in try request.predicate?.evaluate(with: object) ?? true },
            sortKeys: { id, object in
                if let object { return try FetchSortDescriptor.sortKeys(of: object, for: descriptors) }
                guard let values = try read[id] ?? rows(id) else { return [] }
                return try FetchSortDescriptor.sortKeys(of: RowSubject(objectID: id, values: values, rowSource: rows), for: descriptors)
            })
        guard !read.isEmpty else { return MatchedRecords(ids: ids) }
        // Pending objects have no stored values here: they are registered and loaded.
        return MatchedRecords(ids: ids, values: ids.map { read[$0] }, read: base.read)
    }

    /// Whether a fetch of objects reads its records' values with their IDs: when it loads
    /// them all (``FetchRequest/returnsObjectsAsFaults`` false, or prefetching), with no
    /// ``FetchRequest/fetchBatchSize`` (which loads a batch at a time) and from a store (a
    /// child reads through its parent).
    func readsValuesWithIDs(_ resolved: ResolvedFetchRequest) -> Bool {
        let request = resolved.request
        return parent == nil && request.fetchBatchSize == 0
            && (!request.returnsObjectsAsFaults || !resolved.prefetchPaths.isEmpty)
    }

    /// The stored values of any record, through the coordinator (nil for temporary IDs);
    /// for a child, the parent's current values.
    var storeRowSource: (ManagedObjectID) throws -> [PropertyValue]? {
        { [self] id in try self.sourceValues(for: id) }
    }

    /// The stores holding records of the request's entity (and its sub-entities).
    /// - Throws: `.noStore` naming the entity when none does.
    func stores(serving resolved: ResolvedFetchRequest) throws -> [FetchSource] {
        let entities = resolved.request.includesSubentities ? resolved.entity.selfAndDescendants : [resolved.entity]
        var result: [FetchSource] = []
        for entity in entities {
            guard let store = try? coordinator.store(for: entity) else { continue }
            if !result.contains(where: { $0.store === store }) {
                result.append(FetchSource(store: store, generation: pinnedGeneration?.readers[ObjectIdentifier(store)]))
            }
        }
        guard !result.isEmpty else {
            throw StrataError(.noStore, "No store holds records of entity '\(resolved.entity.name)'.",
                              context: .init { $0.entity = resolved.entity.name })
        }
        return result
    }

    /// The stores' matching IDs in the request's order and window. Several stores are each
    /// asked for the first offset + limit records, then merged by the shared comparator.
    func storeIDs(_ request: StoreFetchRequest, from stores: [FetchSource]) throws -> [ManagedObjectID] {
        try storeRecords(request, from: stores, withValues: false).ids
    }

    /// The stores' matching records in the request's order and window, with their values
    /// when `withValues` (read in the same pass: ``PersistentStore/fetchRecords(_:)``).
    /// Several stores are each asked for the first offset + limit records, then merged by
    /// the shared comparator, which reads the sort keys from the values.
    func storeRecords(_ request: StoreFetchRequest, from stores: [FetchSource], withValues: Bool) throws -> MatchedRecords {
        if stores.count == 1 {
            guard withValues else { return MatchedRecords(ids: try stores[0].fetchObjectIDs(request)) }
            return MatchedRecords(records: try stores[0].fetchRecords(request))
        }
        var each = request
        (each.fetchOffset, each.fetchLimit) = StoreFetchMerge.storeWindow(offset: request.fetchOffset, limit: request.fetchLimit, overlayCount: 0)
        let rows = storeRowSource
        var records: [(id: ManagedObjectID, keys: [PropertyValue])] = []
        var read: [ManagedObjectID: StoreRecord] = [:]
        for store in stores {
            // The sort reads every record's values anyway: read them with the IDs.
            let found: [StoreRecord]
            if withValues || !request.sortDescriptors.isEmpty {
                found = try store.fetchRecords(each)
            } else {
                found = try store.fetchObjectIDs(each).map { StoreRecord(objectID: $0, values: []) }
            }
            for record in found {
                var keys: [PropertyValue] = []
                if !request.sortDescriptors.isEmpty {
                    keys = try FetchSortDescriptor.sortKeys(of: RowSubject(objectID: record.objectID, values: record.values, rowSource: rows),
                                                            for: request.sortDescriptors)
                }
                records.append((record.objectID, keys))
                if withValues { read[record.objectID] = record }
            }
        }
        let sorted = FetchSortDescriptor.sort(records, by: request.sortDescriptors).map(\.id)
        let ids = StoreFetchMerge.window(sorted, offset: request.fetchOffset, limit: request.fetchLimit)
        guard withValues else { return MatchedRecords(ids: ids) }
        return MatchedRecords(records: ids.compactMap { read[$0] })
    }

    /// The pending objects that can change the answer: every changed (inserted, updated,
    /// deleted) object of the request's entity, and — when the predicate or order reads
    /// related objects — the objects of the entity directly related to a changed object
    /// (through its current or saved relationship values), so `department.name == 'X'`
    /// sees a department renamed in memory.
    func pendingOverlay(for resolved: ResolvedFetchRequest) -> [ManagedObjectID: StoreFetchMerge.Overlay<ManagedObject>] {
        let entity = resolved.entity
        let subentities = resolved.request.includesSubentities
        func wanted(_ candidate: EntityDescription) -> Bool {
            subentities ? candidate.isKind(of: entity) : candidate === entity
        }
        func entry(_ object: ManagedObject) -> StoreFetchMerge.Overlay<ManagedObject> {
            object.state.isDeleted ? .deleted : .values(object)
        }
        var overlay: [ManagedObjectID: StoreFetchMerge.Overlay<ManagedObject>] = [:]
        for object in dirtySet.values where !object.state.isInvalid && wanted(object.entity) {
            overlay[object.objectID] = entry(object)
        }
        guard resolved.readsRelatedObjects else { return overlay }
        for object in Array(dirtySet.values) where !object.state.isInvalid && !object.state.isFault {
            for relationship in object.entity.relationships {
                var ids = object.storage[relationship.slot].objectIDs
                if let committed = object.committedOld?[relationship.slot] { ids += committed.objectIDs }
                for id in ids where overlay[id] == nil && wanted(id.entity) {
                    let dependent = self.object(with: id)
                    guard !dependent.state.isInvalid, (try? materialize(dependent)) != nil else { continue }
                    overlay[id] = entry(dependent)
                }
            }
        }
        return overlay
    }
}
