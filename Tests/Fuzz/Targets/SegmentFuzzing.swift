import Foundation
import Strata

/// The segment decoder (docs/FORMAT.md §2–§9, v1 and v2 §13) over the employees example model.
enum SegmentFuzzing {
    static let model = ManagedObjectModel.employeesExample()
    /// A stored frame may declare at most this much content: enough for every seed, small
    /// enough that a hostile size is refused, not allocated.
    static let maxContentSize = 1 << 20
    static let lz4Magic: [UInt8] = [0x04, 0x22, 0x4D, 0x18]

    static func run(_ bytes: [UInt8]) throws {
        let segment: Segment
        if bytes.starts(with: lz4Magic) {
            segment = try SegmentCodec.decodeCompressed(bytes, model: model, storeTag: 1, sequenceHint: nil,
                                                        maxContentSize: maxContentSize)
        } else {
            segment = try SegmentDecoder.decode(bytes, model: model, storeTag: 1, sequenceHint: nil)
        }
        // What decodes is a segment the encoder can write. The encoder leaves out what
        // changes nothing (an update whose changes are all of transient slots or none), so
        // one encoding and decoding gives the canonical form, which must survive another
        // unchanged.
        let canonical = encodeAndDecode(segment)
        precondition(encodeAndDecode(canonical) == canonical, "a decoded segment does not survive encoding and decoding")
        // Format v2/v3 (the encoder's) and v1 (still read) say the same thing: insert runs
        // (§13) decode to the very inserts, in the same order, that v1 writes one by one;
        // v1 has no author or context name (§14), which it drops.
        var withoutMetadata = canonical
        withoutMetadata.author = nil
        withoutMetadata.contextName = nil
        precondition(encodeAndDecode(canonical, version: 1) == withoutMetadata, "v1 and v2 encodings of a segment disagree")
    }

    /// `version` nil: the encoder's choice (v3 with an author or context name, else v2).
    private static func encodeAndDecode(_ segment: Segment, version: UInt64? = nil) -> Segment {
        do {
            let encoded = try SegmentEncoder.encode(segment, model: model, version: version)
            return try SegmentDecoder.decode(encoded, model: model, storeTag: 1, sequenceHint: segment.sequence)
        } catch {
            preconditionFailure("a decoded segment does not encode and decode again: \(error)")
        }
    }
}
