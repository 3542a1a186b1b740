import Foundation
import Strata

/// The segment decoder over a model with texts (docs/FORMAT.md §17, §19): a raw body or a
/// stored LZ4 frame whose splices reach the text codecs, version 4's and version 5's packed
/// steps, peer table and text, which the employees model of ``SegmentFuzzing`` refuses
/// before reading them.
enum TextSegmentFuzzing {
    /// The v4 and v5 golden files' model: a note whose title and body are texts, and a tag.
    static let model: ManagedObjectModel = {
        func text(_ name: String) -> AttributeDescription {
            var attribute = AttributeDescription(name, .string)
            attribute.isText = true
            return attribute
        }
        do {
            return try ManagedObjectModel(entities: [
                EntityDescription("Note", attributes: [text("title"), AttributeDescription("tag", .string), text("body")]),
            ])
        } catch {
            preconditionFailure("the text fuzzing model is invalid: \(error)")
        }
    }()

    static func run(_ bytes: [UInt8]) throws {
        let segment: Segment
        if bytes.starts(with: SegmentFuzzing.lz4Magic) {
            segment = try SegmentCodec.decodeCompressed(bytes, model: model, storeTag: 1, sequenceHint: nil,
                                                        maxContentSize: SegmentFuzzing.maxContentSize)
        } else {
            segment = try SegmentDecoder.decode(bytes, model: model, storeTag: 1, sequenceHint: nil)
        }
        // What decodes is a segment the encoder writes back (packed when it has text edits)
        // to itself, and version 4 (unpacked) says the same.
        let canonical = encodeAndDecode(segment)
        precondition(encodeAndDecode(canonical) == canonical, "a decoded text segment does not survive encoding and decoding")
        precondition(encodeAndDecode(canonical, version: 4) == canonical, "v4 and v5 encodings of a text segment disagree")
    }

    private static func encodeAndDecode(_ segment: Segment, version: UInt64? = nil) -> Segment {
        do {
            let encoded = try SegmentEncoder.encode(segment, model: model, version: version)
            return try SegmentDecoder.decode(encoded, model: model, storeTag: 1, sequenceHint: segment.sequence)
        } catch {
            preconditionFailure("a decoded text segment does not encode and decode again: \(error)")
        }
    }
}
