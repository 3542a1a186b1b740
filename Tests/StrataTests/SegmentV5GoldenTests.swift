import CLZ4
import Foundation
import Testing
@testable import Strata

/// The v5 golden files pin format v5 (docs/FORMAT.md §19: text edits packed, compact group
/// headers) byte for byte. Written only when STRATA_WRITE_GOLDEN=1 is set
/// (Fixtures/segments/README.md); they must never change.
@Suite struct SegmentV5GoldenFiles {
    static let bodyFile = "v5-text.bin"
    static let frameFile = "v5-text.lz4"
    static let storeTag = SegmentFixture.storeTag

    /// The v4 golden model: a note whose title and body are texts, and a plain tag.
    static func makeModel() throws -> ManagedObjectModel { try SegmentV4GoldenFiles.makeModel() }

    static func id(_ peer: UInt64, _ counter: UInt32) -> TextElementID { TextElementID(peer: peer, counter: counter) }
    static let typist: UInt64 = 0x2A
    static let paster = UInt64.max - 1

    /// A note inserted; typed into by a peer over three groups (an identity of its own, then
    /// continuing; a deletion of what it just typed and of a first-value character); an undo
    /// putting a character back; a paste outside ASCII into the other text by a peer near
    /// 2^64, then two insertions between first-value characters: every origin mode, both
    /// kinds of deletion, both splice tags, a reverted group and repeated action names.
    static func goldenSegment(_ model: ManagedObjectModel) -> Segment {
        let note = ManagedObjectID(entity: model.entitiesByName["Note"]!, storeTag: storeTag, primaryKey: 1)
        let (a, z, w) = (typist, UInt64(0), paster)
        func scalars(_ text: String) -> [Unicode.Scalar] { Array(text.unicodeScalars) }
        return Segment(sequence: 7, timestamp: Date(timeIntervalSince1970: 1_750_000_000.5), groups: [
            SegmentGroup(id: 20, kind: .user, revertsGroup: nil, actionName: "New Note", operations: [
                .insert(note, values: [.string("Hi"), .string("draft"), .null]),
            ]),
            SegmentGroup(id: 21, kind: .user, revertsGroup: nil, actionName: "Typing", operations: [
                .splice(note, slot: 0, edit: TextEdit(steps: [
                    .insert(id: id(a, 0), originLeft: id(z, 1), originRight: nil, scalars: scalars(" wor")),
                ])),
                .splice(note, slot: 0, edit: TextEdit(steps: [
                    .insert(id: id(a, 4), originLeft: id(a, 3), originRight: nil, scalars: scalars("ld")),
                ])),
            ]),
            SegmentGroup(id: 22, kind: .user, revertsGroup: nil, actionName: "Typing", operations: [
                .splice(note, slot: 0, edit: TextEdit(steps: [
                    .insert(id: id(a, 6), originLeft: id(a, 5), originRight: nil, scalars: scalars("xy")),
                    .delete(start: id(a, 7), scalars: scalars("y")),
                    .delete(start: id(z, 0), scalars: scalars("H")),
                ])),
                .update(note, changes: [SlotChange(slot: 1, old: .string("draft"), new: .string("final"))]),
            ]),
            SegmentGroup(id: 23, kind: .undo, revertsGroup: 22, actionName: "Typing", operations: [
                .splice(note, slot: 0, edit: TextEdit(steps: [
                    .insert(id: id(a, 8), originLeft: nil, originRight: id(z, 0), scalars: scalars("H")),
                ])),
            ]),
            SegmentGroup(id: 25, kind: .user, revertsGroup: nil, actionName: "Paste", operations: [
                .splice(note, slot: 2, edit: TextEdit(steps: [
                    .insert(id: id(w, 0), originLeft: nil, originRight: nil, scalars: scalars("Grüße ✓ 😀")),
                ])),
                .splice(note, slot: 0, edit: TextEdit(steps: [
                    .insert(id: id(a, 9), originLeft: id(z, 0), originRight: id(z, 1), scalars: scalars("J")),
                    .insert(id: id(a, 10), originLeft: id(a, 9), originRight: id(z, 1), scalars: scalars("K")),
                ])),
            ]),
        ], author: nil, contextName: "Editor")
    }

    @Test func writesTheGoldenFilesOnlyWhenAsked() throws {
        try SegmentFixture.writeGoldenFilesIfAsked(body: Self.bodyFile, frame: Self.frameFile) {
            let model = try Self.makeModel()
            return try SegmentEncoder.encode(Self.goldenSegment(model), model: model, version: 5)
        }
    }

    @Test func encodingTheGoldenSegmentProducesExactlyTheGoldenBody() throws {
        let model = try Self.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        // Version 5 is what the encoder chooses for a segment with text edits.
        #expect(try SegmentEncoder.encode(Self.goldenSegment(model), model: model) == golden)
        #expect(Array(golden.prefix(6)) == [0x53, 0x54, 0x52, 0x53, 0x05, 0x07])
        #expect(golden.contains(SegmentFormat.OperationTag.spliceAgain.rawValue))
    }

    @Test func decodingTheGoldenBodyAndFrameGivesTheSegment() throws {
        let model = try Self.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        let decoded = try SegmentDecoder.decode(golden, model: model, storeTag: Self.storeTag, sequenceHint: 7)
        #expect(decoded == Self.goldenSegment(model))
        let frame = try SegmentFixture.readGolden(Self.frameFile)
        #expect(try LZ4Frame.decompress(frame, maxContentSize: 1 << 20) == golden)
        if LZ4_versionNumber() == SegmentGoldenFiles.generatorLZ4Version {
            #expect(try SegmentCodec.compressedBody(Self.goldenSegment(model), model: model) == frame)
        }
        // The same segment written in version 4 says the same.
        let v4 = try SegmentEncoder.encode(Self.goldenSegment(model), model: model, version: 4)
        #expect(try SegmentDecoder.decode(v4, model: model, storeTag: Self.storeTag, sequenceHint: 7) == decoded)
    }

    @Test func aReplayOfTheGoldenBodyGivesTheRowsADecodeDoes() throws {
        let model = try Self.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        var rows = RowTable()
        let summary = try SegmentDecoder.replay(golden, model: model, storeTag: Self.storeTag, sequenceHint: 7, into: &rows)
        #expect(summary.groupCount == 5 && summary.largestGroupID == 25)
        let note = ManagedObjectID(entity: model.entitiesByName["Note"]!, storeTag: Self.storeTag, primaryKey: 1)
        // "Hi" typed on: " world" after the i, "x" kept, the H deleted and put back, "JK"
        // between the H put back and the i.
        #expect(rows.values(for: note)?[0] == .string("HJKi worldx"))
        #expect(rows.values(for: note)?[1] == .string("final"))
        #expect(rows.values(for: note)?[2] == .string("Grüße ✓ 😀"))
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

    @Test func olderVersionsRefuseTheSpliceAgainTagAndAV4ReaderRefusesTheVersion() throws {
        let model = try Self.makeModel()
        var body = try SegmentFixture.readGolden(Self.bodyFile)
        // As a version 4 body, the packed tables after the group count are not groups.
        body[4] = 0x04
        #expect(throws: StrataError.self) { try SegmentDecoder.decode(body, model: model, storeTag: Self.storeTag, sequenceHint: 7) }
        body[4] = 0x07
        let refused = #expect(throws: StrataError.self) {
            try SegmentDecoder.decode(body, model: model, storeTag: Self.storeTag, sequenceHint: 7)
        }
        #expect(refused?.message.contains("unsupported format version 7") == true)
    }
}
