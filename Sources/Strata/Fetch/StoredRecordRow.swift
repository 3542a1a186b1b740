import Foundation

/// One record a stored-record stream hands on (``ManagedObjectContext/forEachStoredRow(matching:_:)``),
/// read slot by slot: for writers that print each value once and keep none.
///
/// When the record comes straight from a document's snapshot cursor, a slot's column is
/// read where SQLite holds it — an integer, a number, a date or ASCII text as it is, with
/// no `PropertyValue` row and no `String` per value (docs/BENCHMARKS.md, W13) —; otherwise
/// (unsaved changes, uncompacted segments, other stores) it is read from the record's
/// values. Either way a slot reads as the same value ``PersistentStore/values(for:)-(ManagedObjectID)``
/// gives.
///
/// ```swift
/// try context.forEachStoredRow(matching: request) { row in
///     if case .text(let bytes) = try row.column(slot) { output.append(contentsOf: bytes) }
/// }
/// ```
///
/// A row is valid only inside the body it is handed to: its columns are the cursor's
/// current row.
package struct StoredRecordRow {
    /// A slot's value as read. ``text(_:)``'s bytes are valid only until the body returns.
    package enum Column {
        /// No value.
        case null
        /// An integer attribute's value.
        case integer(Int64)
        /// A boolean attribute's value.
        case boolean(Bool)
        /// A floating-point attribute's value.
        case double(Double)
        /// A date attribute's value.
        case date(Date)
        /// A string attribute's value, all ASCII, as the store holds it.
        case text(UnsafeBufferPointer<UInt8>)
        /// Any other value (a string beyond ASCII, a decimal, data, a relationship…), or
        /// every value of a record read from its values.
        case value(PropertyValue)
    }

    private enum Source {
        case values([PropertyValue])
        case cursor(SnapshotColumnCursor)
    }

    /// The record.
    package let id: ManagedObjectID
    private let source: Source

    /// A record whose values (by slot) are `values`.
    package init(id: ManagedObjectID, values: [PropertyValue]) {
        self.id = id
        source = .values(values)
    }

    /// The record on the cursor's current row.
    init(id: ManagedObjectID, cursor: SnapshotColumnCursor) {
        self.id = id
        source = .cursor(cursor)
    }

    /// The value in `slot`: ``Column/null`` for a slot the record does not have.
    /// - Throws: `.corruptDocument` naming the column when a stored value does not fit its
    ///   attribute (as every read of it does).
    package func column(_ slot: Int) throws -> Column {
        switch source {
        case .cursor(let cursor): return try cursor.column(slot)
        case .values(let values): return slot >= 0 && slot < values.count ? .value(values[slot]) : .null
        }
    }
}

extension StoredRecordRow.Column {
    /// The value the column holds, as ``PersistentStore/values(for:)-(ManagedObjectID)``
    /// gives it (text made a `String`).
    package var propertyValue: PropertyValue {
        switch self {
        case .null: return .null
        case .integer(let number): return .integer(number)
        case .boolean(let flag): return .boolean(flag)
        case .double(let number): return .double(number)
        case .date(let date): return .date(date)
        case .text(let bytes): return .string(String(decoding: bytes, as: UTF8.self))
        case .value(let value): return value
        }
    }
}
