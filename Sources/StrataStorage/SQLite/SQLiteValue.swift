import CSQLite
import Foundation

/// One SQLite value: what a column holds, what a parameter binds, what a custom SQL
/// function receives and returns.
///
/// ```swift
/// try statement.bind([.integer(42), .text("Ada"), .null])
/// if case .integer(let count) = statement.value(at: 0) { print(count) }
/// ```
package enum SQLiteValue: Hashable, Sendable, CustomStringConvertible {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob([UInt8])

    /// A short rendering for logs and errors (blobs show their length only).
    package var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return value.debugDescription
        case .blob(let bytes): return "<\(bytes.count) bytes>"
        }
    }

    /// Whether the value is NULL.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as a sequence number (a segment's, a group's): a non-negative integer, or
    /// nil; an error about a malformed row names what it can.
    package var sequenceNumber: UInt64? {
        if case .integer(let value) = self { return UInt64(exactly: value) }
        return nil
    }
}

extension SQLiteValue {
    /// Reads an `sqlite3_value` (a function argument) into a ``SQLiteValue``.
    static func _read(_ value: OpaquePointer?) -> SQLiteValue {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            guard let text = sqlite3_value_text(value) else { return .text("") }
            let count = Int(sqlite3_value_bytes(value))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let raw = sqlite3_value_blob(value) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: raw, count: count)))
        default: return .null
        }
    }

    /// Sets a custom function's result from this value.
    func _setResult(in context: OpaquePointer?) {
        switch self {
        case .null: sqlite3_result_null(context)
        case .integer(let value): sqlite3_result_int64(context, value)
        case .real(let value): sqlite3_result_double(context, value)
        case .text(let value): sqlite3_result_text(context, value, -1, SQLITE_TRANSIENT_DESTRUCTOR)
        case .blob(let bytes):
            // An empty blob must not become NULL: SQLite stores a zero-length blob instead.
            if bytes.isEmpty { sqlite3_result_zeroblob(context, 0); return }
            bytes.withUnsafeBytes { raw in
                sqlite3_result_blob64(context, raw.baseAddress, sqlite3_uint64(raw.count),
                                      SQLITE_TRANSIENT_DESTRUCTOR)
            }
        }
    }
}

/// SQLite's `SQLITE_TRANSIENT`, which does not import into Swift: tells SQLite to copy
/// the bytes before the call returns.
let SQLITE_TRANSIENT_DESTRUCTOR = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
