/// How a dictionary fetch makes its result rows without hashing a key per row and column:
/// one dictionary holding every column's key is built per fetch, and each row starts as a
/// copy of it (the copy keeps the template's buckets, so no key is hashed again) whose
/// values are written by position. The keys of NULL values are removed afterwards, as
/// ``ManagedObjectContext/fetchDictionaries(_:)`` leaves them out (docs/ARCHITECTURE.md,
/// "Reads: one pass from SQL to objects").
struct DictionaryRowTemplate {
    private let template: [String: PropertyValue]
    /// Each column's entry in ``template`` (columns with the same key share it).
    private let positions: [Dictionary<String, PropertyValue>.Index]
    private let paths: [String]

    init(_ columns: [DictionaryColumn]) {
        var template: [String: PropertyValue] = [:]
        template.reserveCapacity(columns.count)
        for column in columns { template[column.path] = .null }
        paths = columns.map(\.path)
        // Every path was just inserted, so each has an index.
        positions = paths.compactMap { template.index(forKey: $0) }
        self.template = template
    }

    /// A row of the columns' values, in the columns' order; NULL values leave their key out.
    /// `value(i)` gives column i's value.
    func row(_ value: (Int) throws -> PropertyValue) rethrows -> [String: PropertyValue] {
        var row = template
        var hasNull = false
        for (column, position) in positions.enumerated() {
            let value = try value(column)
            if value.isNull { hasNull = true } else { row.values[position] = value }
        }
        guard hasNull else { return row }
        // A key two columns share holds its non-NULL value either way.
        for path in paths where row[path]?.isNull == true { row[path] = nil }
        return row
    }
}
