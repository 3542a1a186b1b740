import CLZ4
import Foundation
import Testing
@testable import Strata

/// The v2 golden files pin format v2 (docs/FORMAT.md §13) byte for byte. They are written
/// only when STRATA_WRITE_GOLDEN=1 is set (see Fixtures/segments/README.md) and must never
/// change.
@Suite struct SegmentV2GoldenFiles {
    static let bodyFile = "v2-basic.bin"
    static let frameFile = "v2-basic.lz4"

    @Test func writesTheGoldenFilesOnlyWhenAsked() throws {
        try SegmentFixture.writeGoldenFilesIfAsked(body: Self.bodyFile, frame: Self.frameFile) {
            let model = try SegmentV2Fixture.makeModel()
            return try SegmentEncoder.encode(SegmentV2Fixture.goldenSegment(model), model: model)
        }
    }

    @Test func encodingTheGoldenSegmentProducesExactlyTheGoldenBody() throws {
        let model = try SegmentV2Fixture.makeModel()
        let body = try SegmentEncoder.encode(SegmentV2Fixture.goldenSegment(model), model: model)
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        #expect(body == golden)
        // Magic, version 2, sequence 5, then (after the timestamp) two groups; the first
        // group's first operation is an insert run (tag 05) of entity 0, two rows.
        #expect(Array(golden.prefix(6)) == [0x53, 0x54, 0x52, 0x53, 0x02, 0x05])
        let firstOperation = 6 + 6 + 1 + 1 + 1 + 1 + 1 + "Import".utf8.count + 1
        #expect(Array(golden[firstOperation..<firstOperation + 3]) == [0x05, 0x00, 0x02])
    }

    @Test func decodingTheGoldenBodyGivesTheExpectedSegmentInOrder() throws {
        let model = try SegmentV2Fixture.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        let decoded = try SegmentDecoder.decode(golden, model: model, storeTag: SegmentV2Fixture.storeTag, sequenceHint: 5)
        let expected = SegmentV2Fixture.goldenDecoded(model)
        #expect(decoded == expected)
        #expect(decoded.groups.map(\.operations.count) == [14, 4])
        // The same segment written as v1 reads back the same.
        let v1 = try SegmentEncoder.encode(SegmentV2Fixture.goldenSegment(model), model: model, version: 1)
        #expect(try SegmentDecoder.decode(v1, model: model, storeTag: SegmentV2Fixture.storeTag, sequenceHint: 5) == decoded)
        #expect(golden.count < v1.count, "v2 \(golden.count) bytes, v1 \(v1.count)")
    }

    @Test func theGoldenFrameDecompressesToTheGoldenBody() throws {
        let model = try SegmentV2Fixture.makeModel()
        let frame = try SegmentFixture.readGolden(Self.frameFile)
        let body = try SegmentFixture.readGolden(Self.bodyFile)
        #expect(try LZ4Frame.decompress(frame, maxContentSize: 1 << 20) == body)
        let decoded = try SegmentCodec.decodeCompressed(frame, model: model, storeTag: SegmentV2Fixture.storeTag,
                                                        sequenceHint: 5)
        #expect(decoded == SegmentV2Fixture.goldenDecoded(model))
        if LZ4_versionNumber() == SegmentGoldenFiles.generatorLZ4Version {
            #expect(try SegmentCodec.compressedBody(SegmentV2Fixture.goldenSegment(model), model: model) == frame)
        }
    }

    @Test func replayingTheGoldenBodyLeavesTheRowsDecodingAndApplyingLeaves() throws {
        let model = try SegmentV2Fixture.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        var replayed = RowTable()
        let summary = try SegmentDecoder.replay(golden, model: model, storeTag: SegmentV2Fixture.storeTag,
                                                sequenceHint: 5, into: &replayed)
        #expect(summary.operationCount == 18)
        #expect(summary.largestGroupID == 11)
        var applied = RowTable()
        let decoded = try SegmentDecoder.decode(golden, model: model, storeTag: SegmentV2Fixture.storeTag, sequenceHint: 5)
        try applied.applyAtomically(groups: decoded.groups, model: model)
        #expect(replayed.count == applied.count)
        #expect(replayed.count == 14)
        for entity in model.entities {
            let ids = applied.objectIDs(for: entity, includingSubentities: false).sorted { $0.primaryKey < $1.primaryKey }
            #expect(replayed.objectIDs(for: entity, includingSubentities: false).sorted { $0.primaryKey < $1.primaryKey } == ids)
            for id in ids { #expect(replayed.values(for: id) == applied.values(for: id), "\(id)") }
        }
    }
}
