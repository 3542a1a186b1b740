import Foundation

/// One key of a fetch's order: a key path, a direction, and how strings compare.
///
/// ```swift
/// FetchSortDescriptor("salary", ascending: false)
/// FetchSortDescriptor("lastName", comparison: .caseInsensitive)
/// ```
public struct FetchSortDescriptor: Hashable, Sendable {
    /// How strings are compared.
    public enum Comparison: String, Hashable, Sendable, Codable {
        /// By Unicode scalar (UTF-8 byte) order, as SQLite's BINARY collation.
        case binary
        /// Case folded first (`[c]`), then binary.
        case caseInsensitive
        /// Case and diacritics folded (`[cd]`), then binary: a locale-independent stand-in
        /// for `localizedStandardCompare` that SQL can reproduce exactly.
        case localized
    }

    /// The key path sorted on (through to-ones).
    public var keyPath: String
    /// Ascending (the default) or descending.
    public var ascending: Bool
    /// How strings compare.
    public var comparison: Comparison

    /// Creates a sort descriptor.
    public init(_ keyPath: String, ascending: Bool = true, comparison: Comparison = .binary) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }
}

/// A fetch as a store runs it: one entity (and its sub-entities), a predicate, an order and
/// a window. Contexts build these from a `FetchRequest` and overlay their pending changes.
public struct StoreFetchRequest: Sendable {
    /// The entity fetched.
    public var entity: EntityDescription
    /// Whether sub-entities' records are included (default `true`).
    public var includesSubentities: Bool
    /// The filter; nil matches every record.
    public var predicate: FetchPredicate?
    /// The order; records equal on every key come in primary-key order.
    public var sortDescriptors: [FetchSortDescriptor]
    /// The most records returned; 0 means no limit.
    public var fetchLimit: Int
    /// How many records to skip first.
    public var fetchOffset: Int
    /// Only records whose primary key is greater (nil: every record): with an equality on
    /// every sort key in the predicate, the rest of one tie group after a page's last row,
    /// which is how the inspector pages by key instead of by offset (docs/INSPECTOR.md,
    /// "What each request reads").
    package var primaryKeyAfter: Int64?

    /// Creates a store fetch request.
    public init(entity: EntityDescription, includesSubentities: Bool = true, predicate: FetchPredicate? = nil,
                sortDescriptors: [FetchSortDescriptor] = [], fetchLimit: Int = 0, fetchOffset: Int = 0) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }
}
