import Foundation

/// A description of what to fetch from a context: Core Data's `NSFetchRequest<ResultType>`.
///
/// A request typed with a ``ManagedObject`` subclass fetches instances of it, and names
/// the class's entity (``ManagedObject/entityName``) unless told otherwise:
///
/// ```swift
/// let request = FetchRequest<Employee>(
///     predicate: #Predicate { $0.salary > 50_000 },
///     sortBy: [SortDescriptor(\.lastName)])
/// request.fetchLimit = 20
/// let employees: [Employee] = try context.fetch(request)
/// ```
///
/// Without a type it fetches ``ManagedObject``s, named by entity: the form for dynamic
/// queries and the command line.
///
/// ```swift
/// let request = try FetchRequest(
///     entityName: "Employee",
///     predicate: FetchPredicate(format: "salary > %d", 50_000),
///     sortDescriptors: [FetchSortDescriptor("lastName", comparison: .caseInsensitive)])
/// ```
///
/// By default a fetch includes sub-entities and the context's pending changes (inserted
/// objects that match appear, deleted ones do not, updated ones are judged by their
/// current values), and returns objects as faults.
public final class FetchRequest<ResultType: FetchRequestResult> {
    /// The name of the entity fetched.
    public var entityName: String
    /// The filter; nil matches every record.
    public var predicate: FetchPredicate? {
        didSet { predicateTranslationError = nil }
    }
    /// The order (key paths through to-ones allowed); records equal on every key come in
    /// object ID order. Default: none (ID order).
    public var sortDescriptors: [FetchSortDescriptor] {
        didSet { sortTranslationError = nil }
    }
    /// Why the Swift `Predicate` the request was made with could not be translated: the
    /// fetch throws it (SwiftData's choice: the initializer does not throw, the fetch
    /// does). Setting ``predicate`` forgets it.
    var predicateTranslationError: (any Error)?
    /// Why a Swift `SortDescriptor` the request was made with could not be translated;
    /// setting ``sortDescriptors`` forgets it.
    var sortTranslationError: (any Error)?
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
    public var resultType: FetchRequestResultType = .managedObject
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

    /// Creates a fetch request for an entity whose results are `ResultType`s.
    ///
    /// ```swift
    /// let all = FetchRequest<Department>(entityName: "Department")
    /// ```
    public convenience init(entityName: String, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = []) {
        self.init(naming: entityName, predicate: predicate, sortDescriptors: sortDescriptors)
    }

    // The one designated initializer: the public ones share names across constrained
    // extensions, where `self.init(entityName:…)` would call itself.
    init(naming entityName: String, predicate: FetchPredicate?, sortDescriptors: [FetchSortDescriptor]) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }

    /// A copy with the same settings.
    public func copy() -> FetchRequest<ResultType> {
        retyped(as: ResultType.self)
    }

    /// A copy with the same settings whose results are typed `Other`: how the engine,
    /// which reads a request's settings alone, takes requests of any result type.
    func retyped<Other>(as type: Other.Type) -> FetchRequest<Other> {
        let copy = FetchRequest<Other>(naming: entityName, predicate: predicate, sortDescriptors: sortDescriptors)
        copy.predicateTranslationError = predicateTranslationError
        copy.sortTranslationError = sortTranslationError
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

extension FetchRequest where ResultType == ManagedObject {
    /// Creates a fetch request for an entity whose results are plain ``ManagedObject``s:
    /// the form for dynamic queries, where the entity is known by name alone.
    ///
    /// ```swift
    /// let all = FetchRequest(entityName: "Department")
    /// ```
    public convenience init(entityName: String, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = []) {
        self.init(naming: entityName, predicate: predicate, sortDescriptors: sortDescriptors)
    }

    /// The request itself: the engine's currency is a request for managed objects.
    var untyped: FetchRequest<ManagedObject> { self }
}

extension FetchRequest where ResultType: ManagedObject {
    /// Creates a fetch request for every object of the class's entity
    /// (``ManagedObject/entityName``).
    ///
    /// ```swift
    /// let everyone = try context.fetch(FetchRequest<Employee>())
    /// ```
    public convenience init() {
        self.init(naming: ResultType.entityName, predicate: nil, sortDescriptors: [])
    }

    /// Creates a fetch request for the entity of a ``ManagedObject`` subclass
    /// (``ManagedObject/entityName``).
    ///
    /// ```swift
    /// let rich = try FetchRequest<Employee>(predicate: FetchPredicate(format: "salary > 100000"))
    /// ```
    public convenience init(predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = []) {
        self.init(naming: ResultType.entityName, predicate: predicate, sortDescriptors: sortDescriptors)
    }
}

extension FetchRequest {
    /// The request as the engine reads it (its settings; the result type is the caller's).
    var untyped: FetchRequest<ManagedObject> { retyped(as: ManagedObject.self) }
}

/// What a ``FetchRequest`` can be typed with: Core Data's `NSFetchRequestResult`.
///
/// ``ManagedObject`` (and so every subclass), ``ManagedObjectID`` and a dictionary of
/// fetched values conform; ``FetchRequest/resultType`` says which of them
/// ``ManagedObjectContext/execute(_:)`` returns.
public protocol FetchRequestResult {}

extension ManagedObject: FetchRequestResult {}
extension ManagedObjectID: FetchRequestResult {}
extension Dictionary: FetchRequestResult where Key == String, Value == PropertyValue {}

/// What a fetch returns, for ``ManagedObjectContext/execute(_:)``: Core Data's
/// `NSFetchRequestResultType`.
public enum FetchRequestResultType: String, Hashable, Sendable, CaseIterable {
    /// Managed objects (the default).
    case managedObject
    /// Object IDs.
    case managedObjectID
    /// One dictionary per record, of ``FetchRequest/propertiesToFetch``.
    case dictionary
    /// The number of matching records.
    case count
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
