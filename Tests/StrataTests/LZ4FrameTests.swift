import Foundation
import Testing
@testable import Strata

@Suite struct LZ4Frames {
    static let limit = 64 << 20

    /// Compressible but not trivial: words with a counter.
    static func sample(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 32)
        var index = 0
        while bytes.count < count {
            bytes.append(contentsOf: "employee \(index) salary \(index * 37 % 1000); ".utf8)
            index += 1
        }
        return Array(bytes.prefix(count))
    }

    func expectCorrupt(_ frame: [UInt8], offset: Int? = nil, _ reason: String, maxContentSize: Int = limit,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) {
            try LZ4Frame.decompress(frame, maxContentSize: maxContentSize)
        } throws: { error in
            guard let error = error as? StrataError, error.code == .corruptSegment,
                  error.message.hasPrefix("LZ4 frame: "), error.message.contains(reason) else { return false }
            guard let offset else { return error.context.offset != nil }
            return error.context.offset == offset
        }
    }

    @Test func smallAndEmptyInputsRoundTrip() throws {
        for input in [[], [0x41], Array("hello, hello, hello, hello".utf8), Self.sample(70_000)] {
            let frame = LZ4Frame.compress(input)
            #expect(try LZ4Frame.decompress(frame, maxContentSize: Self.limit) == input)
        }
    }

    @Test func theHeaderDeclaresTheContentSizeAndAChecksum() throws {
        for input in [[], Self.sample(1_000)] {
            let frame = LZ4Frame.compress(input)
            #expect(Array(frame.prefix(4)) == [0x04, 0x22, 0x4D, 0x18])
            #expect(frame[4] & 0x0C == 0x0C, "content size and content checksum flags")
            var size: UInt64 = 0
            for index in (6..<14).reversed() { size = size << 8 | UInt64(frame[index]) }
            #expect(size == UInt64(input.count))
        }
        // XXH32 of nothing, the checksum an empty frame ends with.
        #expect(XXH32.hash([]) == 0x02CC_5D05)
        #expect(Array(LZ4Frame.compress([]).suffix(4)) == [0x05, 0x5D, 0xCC, 0x02])
    }

    @Test func aFrameWrittenInChunksDecompressesToTheChunksJoined() throws {
        // Chunk sizes that do and do not line up with the 256 KB blocks, and empty ones.
        let input = Self.sample(3 << 20)
        for chunk in [1 << 20, 100_003, 256 << 10] {
            let writer = LZ4FrameWriter()
            var start = 0
            while start < input.count {
                let end = min(start + chunk, input.count)
                input[start..<end].withUnsafeBytes { writer.append($0) }
                [UInt8]().withUnsafeBytes { writer.append($0) }
                start = end
            }
            let frame = writer.finish()
            #expect(frame.count < input.count / 2)
            #expect(try LZ4Frame.decompress(frame, maxContentSize: Self.limit) == input)
            #expect(frame[4] & 0x0C == 0x0C, "content size and content checksum flags")
        }
        // Incompressible bytes: a frame of several of the writer's 1 MiB pieces, joined.
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<(3 << 20) + 12_345).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let writer = LZ4FrameWriter()
        for start in stride(from: 0, to: noise.count, by: 300_007) {
            noise[start..<min(start + 300_007, noise.count)].withUnsafeBytes { writer.append($0) }
        }
        let frame = writer.finish()
        #expect(frame.count > noise.count)
        #expect(try LZ4Frame.decompress(frame, maxContentSize: Self.limit) == noise)
        // Nothing appended: an empty frame that still declares its size.
        let empty = LZ4FrameWriter().finish()
        #expect(try LZ4Frame.decompress(empty, maxContentSize: Self.limit) == [])
        #expect(empty[4] & 0x08 == 0x08)
    }

    @Test func tenMegabytesRoundTrip() throws {
        let input = Self.sample(10 << 20)
        let frame = LZ4Frame.compress(input)
        #expect(frame.count < input.count / 2)
        #expect(try LZ4Frame.decompress(frame, maxContentSize: Self.limit) == input)
        // Random bytes do not compress but still round trip.
        var rng = SeededGenerator(seed: 42)
        let noise = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        #expect(try LZ4Frame.decompress(LZ4Frame.compress(noise), maxContentSize: Self.limit) == noise)
    }

    @Test func aBadMagicNumberIsRejected() {
        var frame = LZ4Frame.compress(Self.sample(100))
        frame[0] = 0x05
        expectCorrupt(frame, offset: 0, "bad magic number 0x184D2205")
        expectCorrupt(Array("STRS....".utf8), offset: 0, "not an LZ4 frame")
        expectCorrupt([0x04, 0x22], offset: 2, "truncated")
        expectCorrupt([], offset: 0, "truncated")
    }

    @Test func truncatedFramesAreRejected() {
        let frame = LZ4Frame.compress(Self.sample(300_000))
        for length in [5, 14, 15, 16, 100, frame.count / 2, frame.count - 4, frame.count - 1] {
            expectCorrupt(Array(frame.prefix(length)), "truncated")
        }
    }

    @Test func aFlippedByteFailsTheContentChecksum() {
        let input = Self.sample(1_000)
        var frame = LZ4Frame.compress(input)
        // The last 4 bytes are the content checksum; the error points at them.
        frame[frame.count - 1] ^= 0x01
        expectCorrupt(frame, offset: frame.count - 4, "content checksum mismatch")
        // A flipped literal inside the block decompresses to different content.
        var inBlock = LZ4Frame.compress(input)
        inBlock[30] ^= 0x20
        expectCorrupt(inBlock, "LZ4 frame")
        var header = LZ4Frame.compress(input)
        header[7] ^= 0x01   // part of the content size: the header checksum no longer matches
        expectCorrupt(header, offset: 4, "header checksum mismatch")
    }

    @Test func aHugeClaimedSizeIsRejectedBeforeAllocating() {
        var frame = LZ4Frame.compress(Self.sample(100))
        // Declare 2^62 bytes; the size check comes before the header checksum.
        for index in 6..<14 { frame[index] = 0 }
        frame[13] = 0x40
        expectCorrupt(frame, offset: 6, "exceeds the limit")
        expectCorrupt(LZ4Frame.compress(Self.sample(100)), offset: 6, "the declared content size 100 exceeds the limit of 99 bytes",
                      maxContentSize: 99)
        #expect(throws: Never.self) { try LZ4Frame.decompress(LZ4Frame.compress(Self.sample(100)), maxContentSize: 100) }
    }

    /// The frame with another declared size and a header checksum that matches it.
    static func redeclared(_ frame: [UInt8], size: UInt64) -> [UInt8] {
        var patched = frame
        for index in 0..<8 { patched[6 + index] = UInt8(truncatingIfNeeded: size >> UInt64(8 * index)) }
        patched[14] = UInt8(truncatingIfNeeded: XXH32.hash(Array(patched[4..<14])) >> 8)
        return patched
    }

    @Test func contentThatDisagreesWithTheDeclaredSizeIsRejected() throws {
        let input = Self.sample(300_000)   // two blocks
        let frame = LZ4Frame.compress(input)
        #expect(try LZ4Frame.decompress(Self.redeclared(frame, size: 300_000), maxContentSize: Self.limit) == input)
        // Declared smaller than the content: output stays bounded by the declared size.
        for size: UInt64 in [0, 1, 1_000, 262_144, 299_999] {
            expectCorrupt(Self.redeclared(frame, size: size), "LZ4 frame")
        }
        // Declared larger than the content.
        for size: UInt64 in [300_001, 600_000] {
            expectCorrupt(Self.redeclared(frame, size: size), "LZ4 frame")
        }
    }

    @Test func trailingGarbageIsRejected() {
        let frame = LZ4Frame.compress(Self.sample(500))
        expectCorrupt(frame + [0], offset: frame.count, "1 trailing bytes after the frame")
        expectCorrupt(frame + frame, offset: frame.count, "trailing bytes")
    }

    @Test func framesWithoutSizeOrChecksumAreRefused() {
        let frame = LZ4Frame.compress(Self.sample(100))
        var noSize = frame
        noSize[4] &= ~0x08
        expectCorrupt(noSize, offset: 4, "declares no content size")
        var noChecksum = frame
        noChecksum[4] &= ~0x04
        expectCorrupt(noChecksum, offset: 4, "no content checksum")
        var dictionary = frame
        dictionary[4] |= 0x01
        expectCorrupt(dictionary, offset: 4, "dictionary frames are not supported")
        var version = frame
        version[4] = (version[4] & 0x3F) | 0x80
        expectCorrupt(version, offset: 4, "unsupported frame version 2")
    }
}
