import Foundation

/// Reads the primitive encodings of docs/FORMAT.md §1 from untrusted bytes. Every read is
/// bounds-checked; every failure is a ``StrataError`` `.corruptSegment` whose context holds
/// the byte `offset` where the bad item starts and the `reason`.
///
/// ```swift
/// var reader = ByteReader([0xAC, 0x02])
/// let value = try reader.readVarint()   // 300
/// try reader.expectEnd()
/// ```
package struct ByteReader: Sendable {
    /// The bytes being read.
    @usableFromInline package let bytes: [UInt8]
    /// The position of the next byte to read.
    @usableFromInline package internal(set) var offset: Int = 0

    /// Creates a reader at the start of `bytes`.
    @inlinable
    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The number of bytes left.
    @inlinable
    package var remaining: Int { bytes.count - offset }

    /// Whether every byte has been read.
    @inlinable
    package var isAtEnd: Bool { offset == bytes.count }

    /// The error for malformed input at `offset` (default: the current position).
    @usableFromInline
    package func failure(_ reason: String, at position: Int? = nil) -> StrataError {
        let where_ = position ?? offset
        return StrataError(.corruptSegment, "Malformed data at byte \(where_): \(reason).",
                           context: .init { $0.offset = where_; $0.reason = reason })
    }

    /// Reads one byte.
    @inlinable @inline(__always)
    package mutating func readByte() throws -> UInt8 {
        guard offset < bytes.count else { throw failure("unexpected end of data") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads `count` bytes as they are.
    @inlinable
    package mutating func readRaw(count: Int) throws -> [UInt8] {
        guard count >= 0, count <= remaining else {
            throw failure("\(count) bytes needed, \(remaining) left")
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// The next byte without reading it, or nil at the end.
    @inlinable @inline(__always)
    package func peekByte() -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// Reads an unsigned LEB128 varint (§1.1). Rejects more than 10 bytes, a value above
    /// `UInt64.max`, and non-shortest forms (a final zero byte after the first).
    @inlinable @inline(__always)
    package mutating func readVarint() throws -> UInt64 {
        // Most varints in a segment (tags, slots, small keys and values) are one byte.
        if offset < bytes.count {
            let byte = bytes[offset]
            if byte < 0x80 {
                offset += 1
                return UInt64(byte)
            }
        }
        return try readLongVarint()
    }

    /// A varint of more than one byte, or a malformed one.
    @inlinable
    package mutating func readLongVarint() throws -> UInt64 {
        // Two and three bytes (keys, edited numbers) without the loop; anything unusual,
        // errors included, goes through the loop below.
        if bytes.count - offset >= 3 {
            let first = UInt64(bytes[offset] & 0x7F), second = bytes[offset + 1]
            if second & 0x80 == 0 {
                if second != 0 {
                    offset += 2
                    return first | UInt64(second) << 7
                }
            } else {
                let third = bytes[offset + 2]
                if third & 0x80 == 0 && third != 0 {
                    offset += 3
                    return first | UInt64(second & 0x7F) << 7 | UInt64(third) << 14
                }
            }
        }
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else { throw failure("unexpected end of data inside a varint", at: start) }
            let byte = bytes[offset]
            offset += 1
            if shift == 63 {
                // The tenth byte holds bit 63 only: a continuation means an 11th byte.
                if byte & 0x80 != 0 { throw failure("varint is longer than 10 bytes", at: start) }
                if byte > 1 { throw failure("varint overflows 64 bits", at: start) }
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 { throw failure("varint is not in its shortest form", at: start) }
                return value
            }
            shift += 7
        }
    }

    /// Reads a zigzag-encoded signed integer (§1.2).
    @inlinable @inline(__always)
    package mutating func readZigzag() throws -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// Reads a varint that must fit in an `Int` no larger than `limit`.
    @inlinable
    package mutating func readInt(limit: Int = Int.max, what: String) throws -> Int {
        let start = offset
        let raw = try readVarint()
        guard raw <= UInt64(max(0, limit)) else {
            throw failure("\(what) \(raw) is out of range (at most \(limit))", at: start)
        }
        return Int(raw)
    }

    /// Reads a count of items that each take at least `minimumItemSize` bytes, and rejects
    /// it unless the remaining bytes could hold that many: callers may then reserve capacity.
    @inlinable
    package mutating func readCount(minimumItemSize: Int, what: String) throws -> Int {
        let start = offset
        let raw = try readVarint()
        let room = remaining / max(1, minimumItemSize)
        guard raw <= UInt64(room) else {
            throw failure("\(what) \(raw) is larger than the \(remaining) remaining bytes can hold", at: start)
        }
        return Int(raw)
    }

    /// Skips `count` bytes and returns the offset of the first, so that the caller reads
    /// them in place from ``bytes`` (no copy).
    @inlinable
    package mutating func skip(count: Int) throws -> Int {
        guard count >= 0, count <= remaining else {
            throw failure("\(count) bytes needed, \(remaining) left")
        }
        defer { offset += count }
        return offset
    }

    /// Reads length-prefixed bytes (§1.5) in place: the range of the payload in ``bytes``.
    @inlinable
    package mutating func readByteRange() throws -> Range<Int> {
        let start = offset
        let count = try readVarint()
        guard count <= UInt64(remaining) else {
            throw failure("\(count) bytes declared, which runs past the end (\(remaining) bytes left)", at: start)
        }
        let first = offset
        offset += Int(count)
        return first..<offset
    }

    /// Reads a 64-bit little-endian word (§1.3).
    @inlinable
    package mutating func readFixed64() throws -> UInt64 {
        guard remaining >= 8 else { throw failure("8 bytes needed, \(remaining) left") }
        var value: UInt64 = 0
        for index in (offset..<offset + 8).reversed() { value = value << 8 | UInt64(bytes[index]) }
        offset += 8
        return value
    }

    /// Reads a double from its little-endian bit pattern (§1.3).
    @inlinable
    package mutating func readDouble() throws -> Double { Double(bitPattern: try readFixed64()) }

    /// Reads a length-prefixed UTF-8 string (§1.4), rejecting invalid UTF-8.
    @inlinable
    package mutating func readString() throws -> String {
        let start = offset
        let declared = try readVarint()
        guard declared <= UInt64(remaining) else {
            throw failure("string of \(declared) bytes runs past the end (\(remaining) bytes left)", at: start)
        }
        let count = Int(declared)
        // Over a buffer, not an array slice: the slice's generic metadata was looked up at
        // run time for every string, a tenth of a bulk decode.
        let first = offset
        let text = bytes.withUnsafeBufferPointer { buffer in
            String(validating: UnsafeBufferPointer(rebasing: buffer[first..<first + count]), as: UTF8.self)
        }
        guard let text else {
            throw failure("string is not valid UTF-8", at: start)
        }
        offset += count
        return text
    }

    /// Reads length-prefixed bytes (§1.5).
    @inlinable
    package mutating func readBytes() throws -> [UInt8] {
        let start = offset
        let count = try readVarint()
        guard count <= UInt64(remaining) else {
            throw failure("\(count) bytes declared, which runs past the end (\(remaining) bytes left)", at: start)
        }
        return try readRaw(count: Int(count))
    }

    /// 16 raw bytes, in `uuid_t` order, as a UUID (docs/FORMAT.md §6), read in place.
    @inlinable
    package mutating func readUUID() throws -> UUID {
        let start = try skip(count: 16)
        return bytes.withUnsafeBufferPointer { buffer in
            let b = buffer.baseAddress! + start
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                               b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        }
    }

    /// A string (§1.4) that must be a URI (§6), failing at the string's offset when it is not.
    @inlinable
    package mutating func readURI() throws -> URL {
        let textOffset = offset
        let text = try readString()
        guard let url = URL(string: text) else { throw failure("\(text.debugDescription) is not a URI", at: textOffset) }
        return url
    }

    /// Throws unless every byte has been read.
    @inlinable
    package func expectEnd() throws {
        guard isAtEnd else { throw failure("\(remaining) trailing bytes after the end") }
    }
}
