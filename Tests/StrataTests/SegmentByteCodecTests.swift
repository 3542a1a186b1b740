import Foundation
import Testing
@testable import Strata

@Suite struct SegmentByteCodec {
    @Test func varintsUseTheShortestLEB128Form() throws {
        let cases: [(UInt64, [UInt8])] = [
            (0, [0x00]), (1, [0x01]), (127, [0x7F]), (128, [0x80, 0x01]), (300, [0xAC, 0x02]),
            (16_383, [0xFF, 0x7F]), (16_384, [0x80, 0x80, 0x01]),
            (UInt64.max, [UInt8](repeating: 0xFF, count: 9) + [0x01]),
        ]
        for (value, bytes) in cases {
            var writer = ByteWriter()
            writer.writeVarint(value)
            #expect(writer.bytes == bytes, "\(value)")
            var reader = ByteReader(bytes)
            #expect(try reader.readVarint() == value)
            #expect(reader.isAtEnd)
        }
    }

    @Test func zigzagMapsSmallMagnitudesToSmallCodes() throws {
        let cases: [(Int64, UInt64)] = [(0, 0), (-1, 1), (1, 2), (-2, 3), (2, 4), (Int64.max, UInt64.max - 1), (Int64.min, UInt64.max)]
        for (value, code) in cases {
            var writer = ByteWriter()
            writer.writeZigzag(value)
            var expected = ByteWriter()
            expected.writeVarint(code)
            #expect(writer.bytes == expected.bytes, "\(value)")
            var reader = ByteReader(writer.bytes)
            #expect(try reader.readZigzag() == value)
        }
    }

    @Test func fixedWordsAreLittleEndian() throws {
        var writer = ByteWriter()
        writer.writeFixed64(0x0102_0304_0506_0708)
        writer.writeDouble(-0.0)
        #expect(writer.bytes == [8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0x80])
        var reader = ByteReader(writer.bytes)
        #expect(try reader.readFixed64() == 0x0102_0304_0506_0708)
        #expect(try reader.readDouble().bitPattern == (-0.0).bitPattern)
        #expect(throws: StrataError.self) { try reader.readFixed64() }
    }

    @Test func stringsAndBytesAreLengthPrefixed() throws {
        var writer = ByteWriter()
        writer.writeString("é")
        writer.writeBytes([9, 9, 9])
        writer.writeString("")
        #expect(writer.bytes == [2, 0xC3, 0xA9, 3, 9, 9, 9, 0])
        var reader = ByteReader(writer.bytes)
        #expect(try reader.readString() == "é")
        #expect(try reader.readBytes() == [9, 9, 9])
        #expect(try reader.readString() == "")
        try reader.expectEnd()
    }

    @Test func malformedInputFailsWithItsOffset() {
        func failure(_ bytes: [UInt8], skip: Int = 0, _ read: (inout ByteReader) throws -> Void) -> StrataError? {
            var reader = ByteReader(bytes)
            do {
                _ = try reader.readRaw(count: skip)
                try read(&reader)
                return nil
            } catch {
                return error as? StrataError
            }
        }
        let overlong = failure([0xAA] + [UInt8](repeating: 0x80, count: 10) + [0x00], skip: 1) { _ = try $0.readVarint() }
        #expect(overlong?.context.offset == 1)
        #expect(overlong?.message.contains("longer than 10 bytes") == true)
        let overflow = failure([UInt8](repeating: 0xFF, count: 9) + [0x7F]) { _ = try $0.readVarint() }
        #expect(overflow?.message.contains("overflows 64 bits") == true)
        let padded = failure([0, 0x80, 0x80, 0x00], skip: 1) { _ = try $0.readVarint() }
        #expect(padded?.context.offset == 1)
        #expect(padded?.message.contains("shortest form") == true)
        let badUTF8 = failure([0, 0, 2, 0xFF, 0xFE], skip: 2) { _ = try $0.readString() }
        #expect(badUTF8?.context.offset == 2)
        #expect(badUTF8?.code == .corruptSegment)
        let longBytes = failure([0, 5, 1, 2], skip: 1) { _ = try $0.readBytes() }
        #expect(longBytes?.context.offset == 1)
        let count = failure([0x64, 0, 0, 0]) { _ = try $0.readCount(minimumItemSize: 2, what: "item count") }
        #expect(count?.message.contains("item count 100 is larger than the 3 remaining bytes can hold") == true)
        let trailing = failure([1, 2]) { reader in _ = try reader.readByte(); try reader.expectEnd() }
        #expect(trailing?.context.offset == 1)
        #expect(failure([]) { _ = try $0.readByte() }?.message.contains("unexpected end of data") == true)
    }
}
