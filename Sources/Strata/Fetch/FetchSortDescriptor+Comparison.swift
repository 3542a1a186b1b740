import Foundation

/// The one ordering of fetch results, shared by the in-memory store, the context's merge of
/// pending changes and (mirrored in `ORDER BY`) the document store's SQL.
///
/// Rules, ascending (a descending key reverses them, NULL included):
/// - NULL (and a Double NaN, which SQLite stores as NULL) sorts first.
/// - Integers, doubles, decimals and booleans compare numerically with each other.
/// - Strings: `.binary` by UTF-8 bytes (SQLite's BINARY collation); `.caseInsensitive` by
///   the bytes of `PredicateText.fold(_, [c])`, then binary; `.localized` by the bytes of
///   `PredicateText.fold(_, [cd])`, then binary. SQL: `ORDER BY fold(x), x`.
/// - Dates by time, data by bytes, UUIDs by their upper-case text, URIs by their text,
///   relationship destinations by primary key (SQL compares the foreign-key column).
/// - Values of different kinds (never in one typed attribute) order by kind:
///   NULL < numbers < dates < text < data < objects.
/// - Records equal on every key come in object ID order: ``compareIDs(_:_:)``
///   (permanent before temporary, then primary key): SQL's last `ORDER BY pk`.
extension FetchSortDescriptor {
    /// -1, 0 or 1 comparing two values in ascending order with the given string comparison.
    ///
    /// ```swift
    /// FetchSortDescriptor.compareValues(.null, .integer(0))                 // -1
    /// FetchSortDescriptor.compareValues("a", "B", comparison: .caseInsensitive) // -1
    /// ```
    public static func compareValues(_ lhs: PropertyValue, _ rhs: PropertyValue, comparison: Comparison = .binary) -> Int {
        let left = kindRank(lhs), right = kindRank(rhs)
        if left != right { return left < right ? -1 : 1 }
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return compareStrings(a, b, comparison: comparison)
        case (.date(let a), .date(let b)): return sign(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
        case (.data(let a), .data(let b)): return compareBytes(Array(a), Array(b))
        case (.uuid(let a), .uuid(let b)): return PredicateText.compare(a.uuidString, b.uuidString)
        case (.uri(let a), .uri(let b)): return PredicateText.compare(a.absoluteString, b.absoluteString)
        case (.object(let a), .object(let b)): return compareIDs(a, b)
        case (.objects(let a), .objects(let b)): return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
        default:
            if left == 0 { return 0 }  // both NULL
            if let order = PredicateValueRules.numeric(lhs, rhs) { return order }
            return PredicateText.compare(lhs.description, rhs.description)
        }
    }

    /// -1, 0 or 1 comparing two values with this descriptor's comparison and direction.
    public func compare(_ lhs: PropertyValue, _ rhs: PropertyValue) -> Int {
        let order = Self.compareValues(lhs, rhs, comparison: comparison)
        return ascending ? order : -order
    }

    /// -1, 0 or 1 comparing two records' sort keys (one value per descriptor, in order).
    /// Missing keys compare as NULL.
    public static func compare(_ lhs: [PropertyValue], _ rhs: [PropertyValue], by descriptors: [FetchSortDescriptor]) -> Int {
        for (index, descriptor) in descriptors.enumerated() {
            let a = index < lhs.count ? lhs[index] : .null
            let b = index < rhs.count ? rhs[index] : .null
            let order = descriptor.compare(a, b)
            if order != 0 { return order }
        }
        return 0
    }

    /// The order of records equal on every sort key: permanent IDs before temporary ones
    /// (objects inserted and not yet saved), then by primary key (for temporary IDs, the
    /// order of insertion), then by entity name.
    public static func compareIDs(_ lhs: ManagedObjectID, _ rhs: ManagedObjectID) -> Int {
        if lhs.isTemporaryID != rhs.isTemporaryID { return lhs.isTemporaryID ? 1 : -1 }
        if lhs.primaryKey != rhs.primaryKey { return lhs.primaryKey < rhs.primaryKey ? -1 : 1 }
        if lhs.entity !== rhs.entity { return lhs.entity.name < rhs.entity.name ? -1 : 1 }
        return 0
    }

    /// -1, 0 or 1 comparing two records by their keys, then by ID: the total order of a fetch.
    public static func compare(
        _ lhs: (id: ManagedObjectID, keys: [PropertyValue]), _ rhs: (id: ManagedObjectID, keys: [PropertyValue]),
        by descriptors: [FetchSortDescriptor]
    ) -> Int {
        let order = compare(lhs.keys, rhs.keys, by: descriptors)
        return order != 0 ? order : compareIDs(lhs.id, rhs.id)
    }

    /// The values of the descriptors' key paths for one record.
    /// - Throws: `.unknownKey` for a key the subject lacks; `.invalidArgument` for a key
    ///   path through a to-many.
    package static func sortKeys(of subject: any PredicateSubject, for descriptors: [FetchSortDescriptor]) throws -> [PropertyValue] {
        try descriptors.map { try subject.resolvedValue(atKeyPath: $0.keyPath) }
    }

    /// Sorts records by their keys, then IDs (a stable, total order).
    /// - Complexity: O(n log n) comparisons.
    package static func sort(
        _ records: [(id: ManagedObjectID, keys: [PropertyValue])], by descriptors: [FetchSortDescriptor]
    ) -> [(id: ManagedObjectID, keys: [PropertyValue])] {
        records.sorted { compare($0, $1, by: descriptors) < 0 }
    }

    private static func compareStrings(_ a: String, _ b: String, comparison: Comparison) -> Int {
        switch comparison {
        case .binary: return PredicateText.compare(a, b)
        case .caseInsensitive:
            let folded = PredicateText.compare(a, b, options: .caseInsensitive)
            return folded != 0 ? folded : PredicateText.compare(a, b)
        case .localized:
            let folded = PredicateText.compare(a, b, options: .caseDiacriticInsensitive)
            return folded != 0 ? folded : PredicateText.compare(a, b)
        }
    }

    /// NULL 0, numbers 1, dates 2, text 3, data 4, objects 5, collections 6.
    private static func kindRank(_ value: PropertyValue) -> Int {
        switch value {
        case .null: return 0
        case .double(let number): return number.isNaN ? 0 : 1
        case .integer, .decimal, .boolean: return 1
        case .date: return 2
        case .string, .uuid, .uri: return 3
        case .data: return 4
        case .object: return 5
        case .objects: return 6
        }
    }

    private static func sign(_ a: Double, _ b: Double) -> Int { a == b ? 0 : (a < b ? -1 : 1) }

    private static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
