import CSQLite

extension SQLiteStatement {
    /// A 64-bit digest of the column's value in the current row, its storage class
    /// included, read in place (no copy of text or blob). A whole number stored as REAL
    /// digests as the INTEGER of the same value, as SQLite compares them equal: a REAL
    /// column may keep it either way. Two equal values give one digest; different values
    /// give different ones but by a 2⁻⁶⁴ chance.
    package func fingerprint(at index: Int) -> UInt64 {
        guard let handle else { return 0 }
        let column = Int32(clamping: index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return Self.mix(1, UInt64(bitPattern: sqlite3_column_int64(handle, column)))
        case SQLITE_FLOAT:
            let number = sqlite3_column_double(handle, column)
            if number.rounded() == number, let whole = Int64(exactly: number) { return Self.mix(1, UInt64(bitPattern: whole)) }
            return Self.mix(2, number.bitPattern)
        case SQLITE_TEXT:
            let text = UnsafeRawPointer(sqlite3_column_text(handle, column))
            return Self.digest(3, text, Int(sqlite3_column_bytes(handle, column)))
        case SQLITE_BLOB:
            let blob = sqlite3_column_blob(handle, column)
            return Self.digest(4, blob, Int(sqlite3_column_bytes(handle, column)))
        default:
            return Self.nullFingerprint
        }
    }

    /// The digest of NULL: a value whose digest this is is NULL but by a 2⁻⁶⁴ chance.
    package static let nullFingerprint = mix(5, 0)

    /// Folds `value` into `state` (splitmix64's finaliser over their sum): every bit of
    /// both reaches every bit of the result.
    package static func mix(_ state: UInt64, _ value: UInt64) -> UInt64 {
        var z = state &* 0x9E37_79B9_7F4A_7C15 &+ value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func digest(_ kind: UInt64, _ bytes: UnsafeRawPointer?, _ count: Int) -> UInt64 {
        var state = mix(kind, UInt64(count))
        guard let bytes, count > 0 else { return state }
        var offset = 0
        while offset + 8 <= count {
            state = mix(state, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < count {
            var tail: UInt64 = 0
            for position in offset..<count { tail = tail << 8 | UInt64(bytes.load(fromByteOffset: position, as: UInt8.self)) }
            state = mix(state, tail)
        }
        return state
    }
}
