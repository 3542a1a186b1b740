import CLZ4
import Foundation
import Testing
@testable import Strata

/// The v6 golden files pin format v6 (docs/FORMAT.md §22: version 5 plus a group's
/// persistent metadata) byte for byte. Written only when STRATA_WRITE_GOLDEN=1 is set
/// (Fixtures/segments/README.md); they must never change.
@Suite struct SegmentV6GoldenFiles {
    static let bodyFile = "v6-metadata.bin"
    static let frameFile = "v6-metadata.lz4"
    static let storeTag = SegmentFixture.storeTag

    /// The v4 golden model: a note whose title and body are texts, and a plain tag.
    static func makeModel() throws -> ManagedObjectModel { try SegmentV4GoldenFiles.makeModel() }

    /// The JSON a selection of two offsets encodes to, and bytes that are no JSON at all:
    /// the format holds any bytes.
    static let selection = Array(#"{"end":5,"start":3}"#.utf8)
    static let binary: [UInt8] = [0x00, 0xFF, 0x80, 0x7F]

    /// The v5 golden segment with metadata on three of its five groups: the first (before
    /// any previous action name), a group repeating the previous action name, and the undo
    /// group; the others have none.
    static func goldenSegment(_ model: ManagedObjectModel) -> Segment {
        var segment = SegmentV5GoldenFiles.goldenSegment(model)
        segment.groups[0].metadata = selection
        segment.groups[2].metadata = []
        segment.groups[3].metadata = binary
        return segment
    }

    @Test func writesTheGoldenFilesOnlyWhenAsked() throws {
        try SegmentFixture.writeGoldenFilesIfAsked(body: Self.bodyFile, frame: Self.frameFile) {
            let model = try Self.makeModel()
            return try SegmentEncoder.encode(Self.goldenSegment(model), model: model, version: 6)
        }
    }

    @Test func encodingTheGoldenSegmentProducesExactlyTheGoldenBody() throws {
        let model = try Self.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        // Version 6 is what the encoder chooses for a segment with a group's metadata.
        #expect(try SegmentEncoder.encode(Self.goldenSegment(model), model: model) == golden)
        #expect(Array(golden.prefix(6)) == [0x53, 0x54, 0x52, 0x53, 0x06, 0x07])
    }

    @Test func decodingTheGoldenBodyAndFrameGivesTheSegmentWithItsMetadata() throws {
        let model = try Self.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        let decoded = try SegmentDecoder.decode(golden, model: model, storeTag: Self.storeTag, sequenceHint: 7)
        #expect(decoded == Self.goldenSegment(model))
        #expect(decoded.groups.map(\.metadata) == [Self.selection, nil, [], Self.binary, nil])
        let frame = try SegmentFixture.readGolden(Self.frameFile)
        #expect(try LZ4Frame.decompress(frame, maxContentSize: 1 << 20) == golden)
        if LZ4_versionNumber() == SegmentGoldenFiles.generatorLZ4Version {
            #expect(try SegmentCodec.compressedBody(Self.goldenSegment(model), model: model) == frame)
        }
        // A replay reads past the metadata to the same rows as the v5 golden body's.
        var rows = RowTable()
        let summary = try SegmentDecoder.replay(golden, model: model, storeTag: Self.storeTag, sequenceHint: 7, into: &rows)
        #expect(summary.groupCount == 5 && summary.largestGroupID == 25)
        let note = ManagedObjectID(entity: model.entitiesByName["Note"]!, storeTag: Self.storeTag, primaryKey: 1)
        #expect(rows.values(for: note)?[0] == .string("HJKi worldx"))
    }

    @Test func withoutMetadataTheSegmentIsWrittenInTheLowestVersionAsBefore() throws {
        let model = try Self.makeModel()
        var segment = Self.goldenSegment(model)
        for index in segment.groups.indices { segment.groups[index].metadata = nil }
        // Exactly the v5 golden body: metadata is what makes a segment version 6.
        #expect(try SegmentEncoder.encode(segment, model: model) == SegmentFixture.readGolden(SegmentV5GoldenFiles.bodyFile))
        // Asked for version 5, the metadata is left out.
        #expect(try SegmentEncoder.encode(Self.goldenSegment(model), model: model, version: 5)
                == SegmentFixture.readGolden(SegmentV5GoldenFiles.bodyFile))
        // A segment without text edits but with metadata is version 6 too, even over a
        // model without texts.
        let plain = try SegmentFixture.makeModel()
        var golden = SegmentFixture.goldenSegment(plain)
        let v2 = try SegmentEncoder.encode(golden, model: plain)
        #expect(v2[4] == 2)
        golden.groups[0].metadata = Self.selection
        let body = try SegmentEncoder.encode(golden, model: plain)
        #expect(body[4] == 6)
        var expected = try SegmentDecoder.decode(v2, model: plain, storeTag: SegmentFixture.storeTag, sequenceHint: golden.sequence)
        expected.groups[0].metadata = Self.selection
        #expect(try SegmentDecoder.decode(body, model: plain, storeTag: SegmentFixture.storeTag, sequenceHint: golden.sequence) == expected)
    }

    @Test func everyTruncationOfTheGoldenBodyIsRefusedWithoutACrash() throws {
        let model = try Self.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        for length in 0..<golden.count {
            #expect(throws: StrataError.self) {
                try SegmentDecoder.decode(Array(golden.prefix(length)), model: model, storeTag: Self.storeTag, sequenceHint: 7)
            }
        }
    }

    /// Where the first group's metadata length is: right after its action name, "New Note".
    static func firstMetadataLength(_ body: [UInt8]) throws -> Int {
        let name = Array("New Note".utf8)
        let start = try #require((0...(body.count - name.count)).first { Array(body[$0..<($0 + name.count)]) == name })
        return start + name.count
    }

    @Test func aTruncatedMetadataFieldIsACorruptSegmentNamingTheByte() throws {
        let model = try Self.makeModel()
        let body = try SegmentFixture.readGolden(Self.bodyFile)
        let offset = try Self.firstMetadataLength(body)
        #expect(body[offset] == UInt8(Self.selection.count))
        expectCorruptSegment(Array(body.prefix(offset + 5)), model: model, offset: offset,
                             reason: "19 bytes declared, which runs past the end (4 bytes left)", segment: "7", sequenceHint: 7)
    }

    @Test func metadataOverTheLimitIsRefusedByTheEncoderAndTheDecoder() throws {
        let model = try Self.makeModel()
        var segment = Self.goldenSegment(model)
        segment.groups[0].metadata = Array(repeating: 0x20, count: PersistentGroupMetadata.maximumSize + 1)
        let refused = #expect(throws: StrataError.self) { try SegmentEncoder.encode(segment, model: model) }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.message.contains("group 20 is 65537 bytes, more than the 65536") == true, "\(refused?.message ?? "")")

        // The largest allowed is written and read; one byte more in its place is refused.
        segment.groups[0].metadata = Array(repeating: 0x20, count: PersistentGroupMetadata.maximumSize)
        let largest = try SegmentEncoder.encode(segment, model: model)
        #expect(try SegmentDecoder.decode(largest, model: model, storeTag: Self.storeTag, sequenceHint: 7) == segment)
        let offset = try Self.firstMetadataLength(largest)
        #expect(Array(largest[offset..<(offset + 3)]) == [0x80, 0x80, 0x04])
        var over = largest
        over[offset] = 0x81
        over.insert(0x20, at: offset + 3)
        expectCorruptSegment(over, model: model, offset: offset, reason: "the saved metadata of group 20 is 65537 bytes",
                             segment: "7", sequenceHint: 7)
    }

    @Test func aV5ReaderRefusesTheMetadataFlagAndVersion7IsUnsupported() throws {
        let model = try Self.makeModel()
        var body = try SegmentFixture.readGolden(Self.bodyFile)
        // As a version 5 body, the first group's header has an unknown bit.
        body[4] = 0x05
        let asV5 = #expect(throws: StrataError.self) { try SegmentDecoder.decode(body, model: model, storeTag: Self.storeTag, sequenceHint: 7) }
        #expect(asV5?.message.contains("unknown group header 0x") == true, "\(asV5?.message ?? "")")
        body[4] = 0x07
        let refused = #expect(throws: StrataError.self) {
            try SegmentDecoder.decode(body, model: model, storeTag: Self.storeTag, sequenceHint: 7)
        }
        #expect(refused?.message.contains("unsupported format version 7 (this build reads versions 1–6)") == true)
    }
}
