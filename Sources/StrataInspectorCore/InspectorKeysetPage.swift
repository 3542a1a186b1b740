import Strata

/// The objects table's next page read by key instead of by offset: after the previous
/// page's last row, whose sort values and primary key the page seeks past, so a page deep
/// in a million rows costs what the first one does (docs/INSPECTOR.md, "What each
/// request reads"). SQLite's OFFSET walks every row it skips.
///
/// The fetch orders by the sort keys and then by primary key (`StoreFetchRequest`), so
/// the rows after row R are, in order: those tied with R on every sort key with a greater
/// primary key (one fetch in primary-key order), then those strictly after R's sort
/// values (a second fetch, in the request's order, when the first did not fill the page).
struct InspectorKeysetPage {
    /// The request without window: its entity, predicate and order.
    var request: StoreFetchRequest
    /// The rows wanted.
    var limit: Int

    /// Whether a request's order can be sought by key: each sort key is an attribute of
    /// the entity of a type whose predicate comparison orders as the SQL sort does
    /// (numbers, strings compared bytewise, dates, booleans), compared bytewise.
    static func supports(_ descriptors: [FetchSortDescriptor], of entity: EntityDescription) -> Bool {
        descriptors.allSatisfy { descriptor in
            guard descriptor.comparison == .binary, let attribute = entity.attributesByName[descriptor.keyPath] else { return false }
            switch attribute.attributeType {
            case .integer16, .integer32, .integer64, .decimal, .double, .float, .string, .boolean, .date: return true
            default: return false
            }
        }
    }

    /// The page after the object `last` (whose current `values` give its sort keys).
    func records(after last: ManagedObjectID, values: [PropertyValue], in store: DocumentStore) throws -> [StoreRecord] {
        let keys: [(name: String, value: PropertyValue, ascending: Bool)] = request.sortDescriptors.map { descriptor in
            let slot = last.entity.slotNames.firstIndex(of: descriptor.keyPath)
            return (descriptor.keyPath, slot.map { $0 < values.count ? values[$0] : .null } ?? .null, descriptor.ascending)
        }
        // The rest of the tie group: equal on every sort key, a greater primary key.
        var tied = request
        tied.predicate = Self.conjunction([request.predicate].compactMap { $0 } + keys.map { FetchOperand.key($0.name) == .value($0.value) })
        tied.sortDescriptors = []
        tied.primaryKeyAfter = last.primaryKey
        tied.fetchLimit = limit
        var rows = try store.fetchRecords(tied)
        guard rows.count < limit, !keys.isEmpty else { return rows }
        // Then every row strictly after the sort values: for some key i, equal on the keys
        // before it and after on key i.
        let after: [FetchPredicate] = keys.indices.map { index in
            Self.conjunction(keys[..<index].map { FetchOperand.key($0.name) == .value($0.value) } + [Self.strictlyAfter(keys[index])])
        }
        var rest = request
        rest.predicate = Self.conjunction([request.predicate].compactMap { $0 } + [after.count == 1 ? after[0] : .or(after)])
        rest.fetchLimit = limit - rows.count
        rows += try store.fetchRecords(rest)
        return rows
    }

    /// The values after `value` in a key's order; SQL sorts NULL first when ascending and
    /// last when descending, as the fetch's in-memory merge does.
    private static func strictlyAfter(_ key: (name: String, value: PropertyValue, ascending: Bool)) -> FetchPredicate {
        if key.value.isNull {
            return key.ascending ? FetchOperand.key(key.name) != .value(.null) : .constant(false)
        }
        return key.ascending ? FetchOperand.key(key.name) > .value(key.value)
            : .or([FetchOperand.key(key.name) < .value(key.value), FetchOperand.key(key.name) == .value(.null)])
    }

    private static func conjunction(_ terms: [FetchPredicate]) -> FetchPredicate {
        terms.count == 1 ? terms[0] : .and(terms)
    }
}
