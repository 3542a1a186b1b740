import CLZ4
import Foundation
import Testing
@testable import Strata

/// The v3 golden files pin format v3 (docs/FORMAT.md §15: v2 plus author and context name)
/// byte for byte. Written only when STRATA_WRITE_GOLDEN=1 is set (Fixtures/segments/README.md);
/// they must never change.
@Suite struct SegmentV3GoldenFiles {
    static let bodyFile = "v3-basic.bin"
    static let frameFile = "v3-basic.lz4"

    /// The v2 golden segment, saved by an author from a named context.
    static func goldenSegment(_ model: ManagedObjectModel) -> Segment {
        var segment = SegmentV2Fixture.goldenSegment(model)
        segment.author = "Ada Lovelace"
        segment.contextName = "Import ✓"
        return segment
    }

    static func goldenDecoded(_ model: ManagedObjectModel) -> Segment {
        var segment = SegmentV2Fixture.goldenDecoded(model)
        segment.author = "Ada Lovelace"
        segment.contextName = "Import ✓"
        return segment
    }

    @Test func writesTheGoldenFilesOnlyWhenAsked() throws {
        try SegmentFixture.writeGoldenFilesIfAsked(body: Self.bodyFile, frame: Self.frameFile) {
            let model = try SegmentV2Fixture.makeModel()
            return try SegmentEncoder.encode(Self.goldenSegment(model), model: model)
        }
    }

    @Test func encodingTheGoldenSegmentProducesExactlyTheGoldenBody() throws {
        let model = try SegmentV2Fixture.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        #expect(try SegmentEncoder.encode(Self.goldenSegment(model), model: model) == golden)
        // Magic, version 3, sequence 5, the 6-byte timestamp, then the author flag and string.
        #expect(Array(golden.prefix(6)) == [0x53, 0x54, 0x52, 0x53, 0x03, 0x05])
        #expect(Array(golden[12..<14]) == [0x01, UInt8("Ada Lovelace".utf8.count)])
        // After the header's two fields the body is the v2 body's, byte for byte.
        let v2 = try SegmentFixture.readGolden(SegmentV2GoldenFiles.bodyFile)
        let metadata = 2 + "Ada Lovelace".utf8.count + 2 + "Import ✓".utf8.count
        #expect(Array(golden[(12 + metadata)...]) == Array(v2[12...]))
    }

    @Test func decodingTheGoldenBodyAndFrameGivesTheSegmentWithAuthorAndContextName() throws {
        let model = try SegmentV2Fixture.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        let decoded = try SegmentDecoder.decode(golden, model: model, storeTag: SegmentV2Fixture.storeTag, sequenceHint: 5)
        #expect(decoded == Self.goldenDecoded(model))
        let frame = try SegmentFixture.readGolden(Self.frameFile)
        #expect(try LZ4Frame.decompress(frame, maxContentSize: 1 << 20) == golden)
        if LZ4_versionNumber() == SegmentGoldenFiles.generatorLZ4Version {
            #expect(try SegmentCodec.compressedBody(Self.goldenSegment(model), model: model) == frame)
        }
        // Written as v2 explicitly, the author and context name are dropped, the rest kept.
        let v2 = try SegmentEncoder.encode(Self.goldenSegment(model), model: model, version: 2)
        #expect(v2 == (try SegmentFixture.readGolden(SegmentV2GoldenFiles.bodyFile)))
    }
}
