import CLZ4
import Foundation
import Testing
@testable import Strata

/// The golden files pin format v1 byte for byte (the encoder still writes v1 when asked). They are written only when
/// STRATA_WRITE_GOLDEN=1 is set (see Fixtures/segments/README.md) and must never change.
@Suite struct SegmentGoldenFiles {
    static let bodyFile = "v1-basic.bin"
    static let frameFile = "v1-basic.lz4"
    /// The LZ4 library the .lz4 golden was made with (1.9.4); compressed bytes may differ
    /// between LZ4 versions, the decompressed content never does.
    static let generatorLZ4Version: Int32 = 10904

    @Test func writesTheGoldenFilesOnlyWhenAsked() throws {
        try SegmentFixture.writeGoldenFilesIfAsked(body: Self.bodyFile, frame: Self.frameFile) {
            let model = try SegmentFixture.makeModel()
            return try SegmentEncoder.encode(SegmentFixture.goldenSegment(model), model: model, version: 1)
        }
    }

    @Test func encodingTheGoldenSegmentProducesExactlyTheGoldenBody() throws {
        let model = try SegmentFixture.makeModel()
        let body = try SegmentEncoder.encode(SegmentFixture.goldenSegment(model), model: model, version: 1)
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        #expect(body == golden)
        // Spot checks of the layout (docs/FORMAT.md §2): magic, version, sequence.
        #expect(Array(golden.prefix(6)) == [0x53, 0x54, 0x52, 0x53, 0x01, 0x03])
    }

    @Test func decodingTheGoldenBodyGivesTheExpectedSegment() throws {
        let model = try SegmentFixture.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        let decoded = try SegmentDecoder.decode(golden, model: model, storeTag: SegmentFixture.storeTag, sequenceHint: 3)
        let expected = SegmentFixture.goldenDecoded(model)
        #expect(decoded == expected)
        // The transient-only update and the transient relate were not written.
        #expect(decoded.groups.map(\.operations.count) == [3, 3, 2])
        if case .insert(_, let values) = decoded.groups[0].operations[1] {
            #expect(values[SegmentFixture.draft] == .null)
            #expect(values[SegmentFixture.recentDepartments] == .objects([]))
        } else {
            Issue.record("expected an insert")
        }
    }

    @Test func theGoldenFrameDecompressesToTheGoldenBody() throws {
        let model = try SegmentFixture.makeModel()
        let frame = try SegmentFixture.readGolden(Self.frameFile)
        let body = try SegmentFixture.readGolden(Self.bodyFile)
        #expect(try LZ4Frame.decompress(frame, maxContentSize: 1 << 20) == body)
        let decoded = try SegmentCodec.decodeCompressed(frame, model: model, storeTag: SegmentFixture.storeTag,
                                                        sequenceHint: 3)
        #expect(decoded == SegmentFixture.goldenDecoded(model))
        if LZ4_versionNumber() == Self.generatorLZ4Version {
            let body = try SegmentEncoder.encode(SegmentFixture.goldenSegment(model), model: model, version: 1)
            #expect(LZ4Frame.compress(body) == frame)
        }
    }

    @Test func theLZ4CommandDecompressesAStoredBodyToTheRawBody() throws {
        let lz4 = URL(fileURLWithPath: "/usr/bin/lz4")
        guard FileManager.default.isExecutableFile(atPath: lz4.path) else {
            Issue.record("/usr/bin/lz4 is not installed")
            return
        }
        let model = try SegmentFixture.makeModel()
        let segment = SegmentFixture.goldenSegment(model)
        let raw = try SegmentEncoder.encode(segment, model: model)
        // A segment with text edits is stored at LZ4's high level (docs/FORMAT.md §9.1): the
        // same frame format, which the command reads as it reads the fast level's.
        let textModel = try SegmentV5GoldenFiles.makeModel()
        let textSegment = SegmentV5GoldenFiles.goldenSegment(textModel)
        let textRaw = try SegmentEncoder.encode(textSegment, model: textModel)
        let temporary = try TemporaryDirectory()
        let directory = temporary.url

        for (name, expected, frame) in [
            ("segment.lz4", raw, try SegmentCodec.compressedBody(segment, model: model)),
            ("text-segment.lz4", textRaw, try SegmentCodec.compressedBody(textSegment, model: textModel)),
            ("empty.lz4", [], LZ4Frame.compress([])),
        ] {
            let file = directory.appendingPathComponent(name)
            try Data(frame).write(to: file)
            let process = Process()
            process.executableURL = lz4
            process.arguments = ["-d", "-c", file.path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = Pipe()
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "lz4 -d failed for \(name)")
            #expect([UInt8](data) == expected, "\(name)")
        }
    }
}
