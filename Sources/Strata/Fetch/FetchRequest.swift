import Foundation

/// A description of what to fetch from a context: Core Data's `NSFetchRequest`.
///
/// ```swift
/// let request = try FetchRequest(
///     entityName: "Employee",
///     predicate: FetchPredicate(format: "salary > %d", 50_000),
///     sortDescriptors: [FetchSortDescriptor("lastName", comparison: .caseInsensitive)])
/// request.fetchLimit = 20
/// let employees = try context.fetch(request)
/// ```
///
/// By default a fetch includes sub-entities and the context's pending changes (inserted
/// objects that match appear, deleted ones do not, updated ones are judged by their
/// current values), and returns objects as faults.
public final class FetchRequest {
    /// What a fetch returns, for ``ManagedObjectContext/execute(_:)``.
    public enum ResultType: String, Hashable, Sendable, CaseIterable {
        /// Managed objects (the default).
        case managedObject
        /// Object IDs.
        case managedObjectID
        /// One dictionary per record, of ``FetchRequest/propertiesToFetch``.
        case dictionary
        /// The number of matching records.
        case count
    }

    /// The name of the entity fetched.
    public var entityName: String
    /// The filter; nil matches every record.
    public var predicate: FetchPredicate?
    /// The order (key paths through to-ones allowed); records equal on every key come in
    /// object ID order. Default: none (ID order).
    public var sortDescriptors: [FetchSortDescriptor]
    /// The most results returned; 0 (the default) means no limit.
    public var fetchLimit: Int = 0
    /// How many results to skip first (default 0).
    public var fetchOffset: Int = 0
    /// With a value n > 0, only the first n objects are loaded by the fetch; the rest stay
    /// faults, in batches of n, until touched: as in Core Data, touching one fault of a
    /// batch loads the whole batch with one read
    /// (``PersistentStore/values(for:)-([ManagedObjectID])``). Default 0: every result is
    /// treated alike.
    ///
    /// ```swift
    /// request.fetchBatchSize = 50
    /// let employees = try context.fetch(request)   // 50 loaded, the rest faults
    /// _ = try employees[120].value(forKey: "salary")   // loads results 100…149 in one read
    /// ```
    public var fetchBatchSize: Int = 0
    /// Whether records of sub-entities are included (default `true`).
    public var includesSubentities = true
    /// Whether the context's unsaved changes are taken into account (default `true`).
    /// With `false`, the stores answer alone: inserted objects do not appear and records
    /// are judged by their saved values.
    public var includesPendingChanges = true
    /// Whether objects not yet loaded are returned as faults (default `true`); `false`
    /// loads their values with the fetch.
    public var returnsObjectsAsFaults = true
    /// Relationship key paths (`"department"`, `"manager.department"`, `"projects"`)
    /// whose destinations are loaded with the results, as Core Data's: one read per
    /// relationship a key path crosses, for all the results at once, not one per object.
    /// Default: none.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// What ``ManagedObjectContext/execute(_:)`` returns (default `.managedObject`).
    public var resultType: ResultType = .managedObject
    /// For dictionary results: the attribute and to-one key paths to return
    /// (`"department.name"`; a relationship gives its destination's object ID) and computed
    /// values (``FetchProperty/expression(_:)``, aggregates included). Nil (the default)
    /// returns every persistent attribute and to-one relationship.
    public var propertiesToFetch: [FetchProperty]?
    /// For dictionary results: the key paths or expressions whose values form the groups;
    /// each result dictionary is one group, its aggregates computed over the group's
    /// records. Every fetched property that is not an aggregate must be one of them.
    /// Needs ``resultType`` `.dictionary`. Default nil: no grouping.
    public var propertiesToGroupBy: [FetchProperty]?
    /// For grouped results: which groups are returned. It names fetched properties by
    /// their names (`total > 100000`) and may apply aggregates itself (`count:(salary) >= 2`).
    /// Needs ``propertiesToGroupBy``. Default nil.
    public var havingPredicate: FetchPredicate?
    /// For dictionary results: drop dictionaries equal to an earlier one (default `false`).
    public var returnsDistinctResults = false

    /// Creates a fetch request for an entity.
    ///
    /// ```swift
    /// let all = FetchRequest(entityName: "Department")
    /// ```
    public init(entityName: String, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }

    /// A copy with the same settings.
    public func copy() -> FetchRequest {
        let copy = FetchRequest(entityName: entityName, predicate: predicate, sortDescriptors: sortDescriptors)
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.resultType = resultType
        copy.propertiesToFetch = propertiesToFetch
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.returnsDistinctResults = returnsDistinctResults
        return copy
    }
}

/// The result of ``ManagedObjectContext/execute(_:)``, by the request's result type.
public enum FetchResults {
    /// Managed objects.
    case objects([ManagedObject])
    /// Object IDs.
    case objectIDs([ManagedObjectID])
    /// Dictionaries of the fetched properties.
    case dictionaries([[String: PropertyValue]])
    /// A count.
    case count(Int)

    /// The number of results (the count itself for `.count`).
    public var count: Int {
        switch self {
        case .objects(let objects): return objects.count
        case .objectIDs(let ids): return ids.count
        case .dictionaries(let rows): return rows.count
        case .count(let count): return count
        }
    }
}

extension FetchRequest: CustomStringConvertible {
    /// `FetchRequest(Employee where salary > 5000 sorted by lastName)`, for logs.
    public var description: String {
        var text = "FetchRequest(\(entityName)"
        if let predicate { text += " where \(predicate.predicateFormat)" }
        if !sortDescriptors.isEmpty {
            text += " sorted by " + sortDescriptors.map { $0.keyPath + ($0.ascending ? "" : " desc") }.joined(separator: ", ")
        }
        if fetchOffset > 0 { text += " offset \(fetchOffset)" }
        if fetchLimit > 0 { text += " limit \(fetchLimit)" }
        return text + ")"
    }
}
