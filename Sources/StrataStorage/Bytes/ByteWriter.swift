import Foundation

/// Appends the primitive encodings of docs/FORMAT.md §1 to a byte buffer: unsigned LEB128
/// varints, zigzag signed integers, fixed little-endian 64-bit words, length-prefixed
/// UTF-8 and bytes.
///
/// ```swift
/// var writer = ByteWriter()
/// writer.writeVarint(300)          // AC 02
/// writer.writeZigzag(-1)           // 01
/// writer.writeString("é")          // 02 C3 A9
/// let bytes = writer.bytes
/// ```
package struct ByteWriter: Sendable {
    /// The bytes written so far.
    @usableFromInline package internal(set) var bytes: [UInt8] = []

    /// Creates an empty writer, optionally reserving room for `capacity` bytes.
    @inlinable
    package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// The number of bytes written.
    @inlinable
    package var count: Int { bytes.count }

    /// Makes room for `additional` more bytes, so that writing them does not grow the buffer
    /// step by step (each step copying it beside the old one). At least doubles when it
    /// grows, so that many small reservations stay linear.
    @inlinable
    package mutating func reserveCapacity(additional: Int) {
        let needed = bytes.count + additional
        guard needed > bytes.capacity else { return }
        bytes.reserveCapacity(Swift.max(needed, bytes.capacity * 2))
    }

    /// Forgets the bytes written, keeping the buffer (a body streamed to its compressor
    /// reuses it chunk after chunk).
    @inlinable
    package mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// Appends one byte.
    @inlinable
    package mutating func writeByte(_ byte: UInt8) { bytes.append(byte) }

    /// Appends bytes as they are (no length prefix).
    @inlinable
    package mutating func writeRaw<Bytes: Sequence>(_ raw: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: raw)
    }

    /// Appends an unsigned LEB128 varint (§1.1): 7 bits a byte, low bits first, the high bit
    /// set on every byte but the last; the shortest form, 1 to 10 bytes.
    @inlinable
    package mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Appends a signed integer as a zigzag varint (§1.2): 0, -1, 1, -2... map to 0, 1, 2, 3...
    @inlinable
    package mutating func writeZigzag(_ value: Int64) {
        writeVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Appends a 64-bit word little-endian (§1.3).
    @inlinable
    package mutating func writeFixed64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// Appends a double as its IEEE 754 bit pattern, little-endian (§1.3); NaN payloads and
    /// the sign of zero are kept.
    @inlinable
    package mutating func writeDouble(_ value: Double) { writeFixed64(value.bitPattern) }

    /// Appends a length-prefixed UTF-8 string (§1.4): varint byte count, then the bytes.
    @inlinable
    package mutating func writeString(_ value: String) {
        // A native string lends its UTF-8 as it is; only a bridged one is copied to make
        // it contiguous (a copy per string cost a retain and a release for every value of
        // a bulk save's text columns).
        let lent: Void? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            writeVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        if lent != nil { return }
        var text = value
        text.withUTF8 { utf8 in
            writeVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends length-prefixed bytes (§1.5): varint byte count, then the bytes.
    @inlinable
    package mutating func writeBytes<Bytes: Collection>(_ value: Bytes) where Bytes.Element == UInt8 {
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }
}
