import CLZ4
import Foundation

/// One standard LZ4 frame (the format `lz4 -d` reads) around a byte buffer: the wrapper of
/// every segment body (docs/FORMAT.md §9).
///
/// Frames written here always declare their content size in the header and end with a
/// content checksum (XXH32 of the uncompressed bytes); the decoder requires both.
///
/// ```swift
/// let frame = LZ4Frame.compress(body)
/// let again = try LZ4Frame.decompress(frame, maxContentSize: 256 << 20)   // == body
/// ```
package enum LZ4Frame {
    /// The frame magic number, stored little-endian: `04 22 4D 18`.
    static let magic: UInt32 = 0x184D_2204
    /// FLG bit 3: the header carries the content size.
    static let contentSizeFlag: UInt8 = 0x08
    /// FLG bit 2: the frame ends with a content checksum.
    static let contentChecksumFlag: UInt8 = 0x04
    /// FLG bit 0: the header carries a dictionary ID.
    static let dictionaryIDFlag: UInt8 = 0x01

    /// How hard the compressor searches for repeats. Both write the same frame format, and
    /// a reader makes no difference (docs/FORMAT.md §9.1).
    package enum Level: Sendable {
        /// LZ4's fast level: about 480 MB/s on one core here.
        case fast
        /// LZ4's high-compression level 9 (LZ4HC's default): several times slower to write,
        /// as fast to read, and smaller where the bytes repeat at a distance — as a small
        /// body of typed text and near-identical step headers does (docs/FORMAT.md §19.11).
        case high
    }

    /// Compresses `bytes` into one LZ4 frame with the content size in its header and a
    /// content checksum at its end (linked 256 KB blocks, at `level`).
    ///
    /// - Complexity: O(n); at ``Level/fast`` about 480 MB/s on one core here.
    package static func compress(_ bytes: [UInt8], level: Level = .fast) -> [UInt8] {
        var preferences = preferences(contentSize: bytes.count, level: level)
        let bound = LZ4F_compressFrameBound(bytes.count, &preferences)
        // Left uninitialized, not zero-filled: the bound is about the input's size, and
        // zeroing it made every page of it resident, where only the compressed bytes are
        // written (a million-object save held 24 MiB for a frame of a fraction of that).
        var written = 0
        var frame = [UInt8](unsafeUninitializedCapacity: bound) { destination, count in
            written = bytes.withUnsafeBytes { source in
                LZ4F_compressFrame(destination.baseAddress, destination.count,
                                   source.baseAddress, source.count, &preferences)
            }
            count = LZ4F_isError(written) == 0 ? written : 0
        }
        // LZ4F only fails for a destination smaller than its own bound or bad preferences,
        // neither of which depends on the input.
        guard LZ4F_isError(written) == 0 else {
            fatalError("LZ4F_compressFrame failed: \(String(cString: LZ4F_getErrorName(written)))")
        }
        // LZ4F omits the size field for empty content (0 means "unknown" in its API), so
        // insert an explicit zero size: every frame we write declares its size.
        if bytes.isEmpty { frame = declaringZeroContentSize(frame) }
        return frame
    }

    /// The settings of every frame written here (``LZ4FrameWriter``'s too): linked 256 KB
    /// blocks, content checksum, fast level unless asked; `contentSize` 0 leaves the size out.
    static func preferences(contentSize: Int, level: Level = .fast) -> LZ4F_preferences_t {
        var preferences = LZ4F_preferences_t()
        preferences.frameInfo.blockSizeID = LZ4F_max256KB
        preferences.frameInfo.blockMode = LZ4F_blockLinked
        preferences.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled
        preferences.frameInfo.contentSize = UInt64(contentSize)
        preferences.compressionLevel = switch level {
        case .fast: 0
        case .high: 9
        }
        return preferences
    }

    /// Rewrites a frame header without a size field into one declaring size 0.
    private static func declaringZeroContentSize(_ frame: [UInt8]) -> [UInt8] {
        guard frame.count >= 7, frame[4] & contentSizeFlag == 0 else { return frame }
        return headerDeclaringSize(0, plainHeader: frame[0..<7]) + frame[7...]
    }

    /// The header that declares `size`, made from a header without a size field (magic(4)
    /// FLG BD HC): FLG bit 3 set, the 8-byte little-endian size after BD, and the header
    /// checksum byte recomputed over the descriptor.
    static func headerDeclaringSize(_ size: UInt64, plainHeader: ArraySlice<UInt8>) -> [UInt8] {
        let start = plainHeader.startIndex
        var descriptor = [plainHeader[start + 4] | contentSizeFlag, plainHeader[start + 5]]
        withUnsafeBytes(of: size.littleEndian) { descriptor.append(contentsOf: $0) }
        let headerChecksum = UInt8(truncatingIfNeeded: XXH32.hash(descriptor) >> 8)
        return Array(plainHeader[start..<(start + 4)]) + descriptor + [headerChecksum]
    }
}

/// XXH32, the checksum LZ4 frames use (header checksum byte, content checksum); written
/// from the published algorithm description.
package enum XXH32 {
    private static let prime1: UInt32 = 0x9E37_79B1
    private static let prime2: UInt32 = 0x85EB_CA77
    private static let prime3: UInt32 = 0xC2B2_AE3D
    private static let prime4: UInt32 = 0x27D4_EB2F
    private static let prime5: UInt32 = 0x1656_67B1

    /// The 32-bit hash of `bytes` with `seed`.
    package static func hash(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        func read32(_ index: Int) -> UInt32 {
            UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
                | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
        }
        func round(_ accumulator: UInt32, _ lane: UInt32) -> UInt32 {
            rotl(accumulator &+ lane &* prime2, 13) &* prime1
        }
        var index = 0
        var hash: UInt32
        if bytes.count >= 16 {
            var v1 = seed &+ prime1 &+ prime2, v2 = seed &+ prime2, v3 = seed, v4 = seed &- prime1
            while index + 16 <= bytes.count {
                v1 = round(v1, read32(index)); v2 = round(v2, read32(index + 4))
                v3 = round(v3, read32(index + 8)); v4 = round(v4, read32(index + 12))
                index += 16
            }
            hash = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
        } else {
            hash = seed &+ prime5
        }
        hash = hash &+ UInt32(truncatingIfNeeded: bytes.count)
        while index + 4 <= bytes.count {
            hash = rotl(hash &+ read32(index) &* prime3, 17) &* prime4
            index += 4
        }
        while index < bytes.count {
            hash = rotl(hash &+ UInt32(bytes[index]) &* prime5, 11) &* prime1
            index += 1
        }
        hash ^= hash >> 15; hash = hash &* prime2
        hash ^= hash >> 13; hash = hash &* prime3
        hash ^= hash >> 16
        return hash
    }

    private static func rotl(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
