import CLZ4
import Foundation
import Testing
@testable import Strata

/// The v4 golden files pin format v4 (docs/FORMAT.md §17: v3 plus text edits) byte for
/// byte. Written only when STRATA_WRITE_GOLDEN=1 is set (Fixtures/segments/README.md);
/// they must never change. Since version 5 (§19) text edits are written packed; the
/// encoder still writes version 4 when asked, and the decoder reads it.
@Suite struct SegmentV4GoldenFiles {
    static let bodyFile = "v4-text.bin"
    static let frameFile = "v4-text.lz4"
    static let storeTag = SegmentFixture.storeTag

    /// A note whose title and body are texts, and a plain tag. Must not change.
    static func makeModel() throws -> ManagedObjectModel {
        func text(_ name: String) -> AttributeDescription {
            var attribute = AttributeDescription(name, .string)
            attribute.isText = true
            return attribute
        }
        return try ManagedObjectModel(entities: [
            EntityDescription("Note", attributes: [text("title"), AttributeDescription("tag", .string), text("body")]),
        ])
    }

    /// A note inserted, typed into by two peers, a deletion, and an edit outside ASCII.
    static func goldenSegment(_ model: ManagedObjectModel) -> Segment {
        let note = ManagedObjectID(entity: model.entitiesByName["Note"]!, storeTag: storeTag, primaryKey: 1)
        func id(_ peer: UInt64, _ counter: UInt32) -> TextElementID { TextElementID(peer: peer, counter: counter) }
        let typing = TextEdit(steps: [
            .insert(id: id(0x2A, 0), originLeft: id(0, 1), originRight: nil, scalars: Array(" world".unicodeScalars)),
            .delete(start: id(0, 0), scalars: Array("H".unicodeScalars)),
            .insert(id: id(0x2A, 6), originLeft: nil, originRight: id(0, 0), scalars: Array("J".unicodeScalars)),
        ])
        let other = TextEdit(steps: [
            .insert(id: id(UInt64.max - 1, 0), originLeft: nil, originRight: nil, scalars: Array("Grüße ✓ 😀".unicodeScalars)),
        ])
        return Segment(sequence: 7, timestamp: Date(timeIntervalSince1970: 1_750_000_000.5), groups: [
            SegmentGroup(id: 20, kind: .user, revertsGroup: nil, actionName: "New Note", operations: [
                .insert(note, values: [.string("Hi"), .string("draft"), .null]),
            ]),
            SegmentGroup(id: 21, kind: .user, revertsGroup: nil, actionName: "Typing", operations: [
                .splice(note, slot: 0, edit: typing),
                .update(note, changes: [SlotChange(slot: 1, old: .string("draft"), new: .string("final"))]),
                .splice(note, slot: 2, edit: other),
            ]),
        ], author: nil, contextName: "Editor")
    }

    @Test func writesTheGoldenFilesOnlyWhenAsked() throws {
        try SegmentFixture.writeGoldenFilesIfAsked(body: Self.bodyFile, frame: Self.frameFile) {
            let model = try Self.makeModel()
            return try SegmentEncoder.encode(Self.goldenSegment(model), model: model, version: 4)
        }
    }

    @Test func encodingTheGoldenSegmentProducesExactlyTheGoldenBody() throws {
        let model = try Self.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        #expect(try SegmentEncoder.encode(Self.goldenSegment(model), model: model, version: 4) == golden)
        // Magic, version 4, sequence 7.
        #expect(Array(golden.prefix(6)) == [0x53, 0x54, 0x52, 0x53, 0x04, 0x07])
        #expect(golden.contains(SegmentFormat.OperationTag.splice.rawValue))
    }

    @Test func decodingTheGoldenBodyAndFrameGivesTheSegment() throws {
        let model = try Self.makeModel()
        let golden = try SegmentFixture.readGolden(Self.bodyFile)
        let decoded = try SegmentDecoder.decode(golden, model: model, storeTag: Self.storeTag, sequenceHint: 7)
        #expect(decoded == Self.goldenSegment(model))
        let frame = try SegmentFixture.readGolden(Self.frameFile)
        #expect(try LZ4Frame.decompress(frame, maxContentSize: 1 << 20) == golden)
        if LZ4_versionNumber() == SegmentGoldenFiles.generatorLZ4Version {
            #expect(LZ4Frame.compress(try SegmentEncoder.encode(Self.goldenSegment(model), model: model, version: 4)) == frame)
        }
    }

    @Test func olderVersionsRefuseTextEditsAndASpliceOfAPlainStringIsRefused() throws {
        let model = try Self.makeModel()
        let asV3 = #expect(throws: StrataError.self) {
            try SegmentEncoder.encode(Self.goldenSegment(model), model: model, version: 3)
        }
        #expect(asV3?.message.contains("format version 4") == true)
        let note = ManagedObjectID(entity: model.entitiesByName["Note"]!, storeTag: Self.storeTag, primaryKey: 1)
        let plain = Segment(sequence: 1, timestamp: Date(timeIntervalSince1970: 0), groups: [
            SegmentGroup(id: 1, kind: .user, revertsGroup: nil, actionName: "", operations: [
                .splice(note, slot: 1, edit: TextEdit(steps: [.insert(id: TextElementID(peer: 1, counter: 0), originLeft: nil, originRight: nil, scalars: ["x"])])),
            ]),
        ])
        let refused = #expect(throws: StrataError.self) { try SegmentEncoder.encode(plain, model: model) }
        #expect(refused?.message.contains("Note.tag is not a text attribute") == true)
        // A v3 body whose operation tag is a splice is refused as an unknown tag.
        var body = try SegmentFixture.readGolden(Self.bodyFile)
        body[4] = 0x03
        #expect(throws: StrataError.self) { try SegmentDecoder.decode(body, model: model, storeTag: Self.storeTag, sequenceHint: 7) }
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
}
