import CSQLite
import Foundation

/// Checks that the rows a statement reads come in an index's order — its key columns in
/// SQLite's order for BINARY collation (NULL, then numbers by value, then text and blobs
/// byte by byte), each ascending or descending, then the rowid ascending — keeping only
/// the previous row's keys, in buffers reused from row to row.
package struct SQLiteIndexOrder {
    private enum Kept {
        case null
        case integer(Int64)
        case real(Double)
        /// Text (`isBlob` false) or blob bytes, in ``SQLiteIndexOrder/bytes``.
        case bytes(isBlob: Bool)
    }

    private let descending: [Bool]
    private var kept: [Kept]
    private var bytes: [[UInt8]]
    private var rowid: Int64 = .min
    private var isFirst = true

    /// - Parameter descending: per key column, whether the index sorts it descending.
    package init(descending: [Bool]) {
        self.descending = descending
        kept = Array(repeating: .null, count: descending.count)
        bytes = Array(repeating: [], count: descending.count)
    }

    /// Whether the statement's current row — its key columns first, then the rowid at
    /// column `descending.count` — sorts after the previous one; keeps it for the next.
    package mutating func follows(_ statement: SQLiteStatement) -> Bool {
        guard let handle = statement.handle else { return false }
        var order = 0
        for column in descending.indices {
            let current = read(handle, column)
            if order == 0, !isFirst {
                let compared = Self.compare(kept[column], bytes[column], current, handle, column)
                order = descending[column] ? -compared : compared
            }
            keep(current, handle, column)
        }
        let currentRowid = sqlite3_column_int64(handle, Int32(descending.count))
        defer {
            rowid = currentRowid
            isFirst = false
        }
        if isFirst { return true }
        return order > 0 || (order == 0 && currentRowid > rowid)
    }

    private func read(_ handle: OpaquePointer, _ column: Int) -> Kept {
        let index = Int32(column)
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .bytes(isBlob: false)
        case SQLITE_BLOB: return .bytes(isBlob: true)
        default: return .null
        }
    }

    private mutating func keep(_ value: Kept, _ handle: OpaquePointer, _ column: Int) {
        kept[column] = value
        guard case .bytes(let isBlob) = value else { return }
        let raw = Self.raw(handle, column, isBlob: isBlob)
        bytes[column].removeAll(keepingCapacity: true)
        bytes[column].append(contentsOf: raw)
    }

    private static func raw(_ handle: OpaquePointer, _ column: Int, isBlob: Bool) -> UnsafeRawBufferPointer {
        let index = Int32(column)
        let start = isBlob ? sqlite3_column_blob(handle, index) : UnsafeRawPointer(sqlite3_column_text(handle, index))
        let count = Int(sqlite3_column_bytes(handle, index))
        return UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count)
    }

    private static func rank(_ value: Kept) -> Int {
        switch value {
        case .null: return 0
        case .integer, .real: return 1
        case .bytes(let isBlob): return isBlob ? 3 : 2
        }
    }

    /// -1, 0 or 1 as `current` sorts before, with or after the kept value.
    private static func compare(_ previous: Kept, _ previousBytes: [UInt8], _ current: Kept,
                                _ handle: OpaquePointer, _ column: Int) -> Int {
        let ranks = (rank(previous), rank(current))
        if ranks.0 != ranks.1 { return ranks.1 > ranks.0 ? 1 : -1 }
        switch (previous, current) {
        case (.integer(let a), .integer(let b)): return b == a ? 0 : (b > a ? 1 : -1)
        case (.integer(let a), .real(let b)): return order(a, b)
        case (.real(let a), .integer(let b)): return -order(b, a)
        case (.real(let a), .real(let b)): return order(a, b)
        case (.bytes, .bytes(let isBlob)):
            let currentBytes = raw(handle, column, isBlob: isBlob)
            let common = min(previousBytes.count, currentBytes.count)
            let compared = previousBytes.withUnsafeBytes { kept in
                common == 0 ? 0 : Int(memcmp(kept.baseAddress!, currentBytes.baseAddress!, common))
            }
            if compared != 0 { return compared < 0 ? 1 : -1 }
            return currentBytes.count == previousBytes.count ? 0 : (currentBytes.count > previousBytes.count ? 1 : -1)
        default:
            return 0
        }
    }

    private static func order(_ a: Double, _ b: Double) -> Int { b == a ? 0 : (b > a ? 1 : -1) }

    /// -1, 0 or 1 as the real `b` is below, equal to or above the integer `a`, exactly, as
    /// SQLite compares them: through `Double`, 2⁵³ + 1 and 2⁵³ would be one value.
    private static func order(_ a: Int64, _ b: Double) -> Int {
        if b >= 0x1p63 { return 1 }
        if b < -0x1p63 { return -1 }
        let whole = Int64(b.rounded(.down))
        if whole != a { return whole > a ? 1 : -1 }
        return b > b.rounded(.down) ? 1 : 0
    }
}
