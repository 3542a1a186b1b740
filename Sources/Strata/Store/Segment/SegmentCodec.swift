import Foundation

/// A segment as stored in a document: its body (format v1 to v6; the encoder chooses as
/// docs/FORMAT.md §15.2, §19.9 and §22.2 say) inside one LZ4 frame (docs/FORMAT.md §9). `lz4 -d`
/// turns a stored body back into the raw body.
///
/// ```swift
/// let stored = try SegmentCodec.compressedBody(segment, model: model)
/// let again = try SegmentCodec.decodeCompressed(stored, model: model, storeTag: tag,
///                                                sequenceHint: segment.sequence)
/// ```
package enum SegmentCodec {
    /// The largest raw body a stored segment may declare: 256 MiB.
    package static let defaultMaxContentSize = 256 << 20

    /// Encodes `segment` (``SegmentEncoder``) and compresses the body into one LZ4 frame.
    /// - Throws: The encoder's errors.
    /// - Complexity: O(size of the segment).
    package static func compressedBody(_ segment: Segment, model: ManagedObjectModel) throws -> [UInt8] {
        try SegmentEncoder.encodeCompressed(segment, model: model).frame
    }

    /// Decompresses a stored body and decodes it (``SegmentDecoder``).
    ///
    /// - Parameters:
    ///   - frame: The stored bytes.
    ///   - model: The document's model.
    ///   - storeTag: The store the decoded object IDs belong to.
    ///   - sequenceHint: The sequence the segment row claims; named in errors and checked.
    ///   - maxContentSize: The largest raw body accepted (default 256 MiB); a frame
    ///     declaring more is rejected before anything is allocated.
    /// - Throws: ``StrataStorage/StrataError`` `.corruptSegment` with `context.segment` and
    ///   `context.offset`, into the frame when `context.layer` is `.lz4Frame`, into the raw
    ///   body when it is `.segmentBody`.
    /// - Complexity: O(size of the segment).
    package static func decodeCompressed(
        _ frame: [UInt8], model: ManagedObjectModel, storeTag: UInt32, sequenceHint: UInt64?,
        maxContentSize: Int = defaultMaxContentSize
    ) throws -> Segment {
        let body = try rawBody(frame, sequenceHint: sequenceHint, maxContentSize: maxContentSize)
        return try SegmentDecoder.decode(body, model: model, storeTag: storeTag, sequenceHint: sequenceHint)
    }

    /// Decompresses a stored body; errors name the segment and `context.layer` is `.lz4Frame`.
    package static func rawBody(_ frame: [UInt8], sequenceHint: UInt64?, maxContentSize: Int) throws -> [UInt8] {
        do {
            return try LZ4Frame.decompress(frame, maxContentSize: maxContentSize)
        } catch var error as StrataError {
            let label = sequenceHint.map(String.init) ?? "?"
            error.context.segment = sequenceHint
            error.context.layer = .lz4Frame
            error.message = "Segment \(label) is corrupt: \(error.message)"
            throw error
        }
    }
}
