import CSQLite

/// The type SQLite stored a column's value as, in the current row.
package enum SQLiteColumnType {
    case null, integer, real, text, blob
}

extension SQLiteStatement {
    /// The stored type of the column at `index` of the current row: what
    /// ``value(at:)`` would return, without building it.
    package func columnType(at index: Int) -> SQLiteColumnType {
        guard let handle else { return .null }
        switch sqlite3_column_type(handle, Int32(clamping: index)) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    /// The UTF-8 bytes of a text column, as SQLite holds them: valid only until the
    /// statement steps, is reset, or the column is read as another type. Empty for NULL.
    /// For writers that copy the bytes out at once, without a `String` per value
    /// (docs/BENCHMARKS.md, W13); ``string(at:)`` is the safe reading.
    package func unsafeTextBytes(at index: Int) -> UnsafeBufferPointer<UInt8> {
        guard let handle else { return UnsafeBufferPointer(start: nil, count: 0) }
        let column = Int32(clamping: index)
        guard let text = sqlite3_column_text(handle, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
    }
}
