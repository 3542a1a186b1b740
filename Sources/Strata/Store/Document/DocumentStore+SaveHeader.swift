import Foundation

/// What a save is, read without decoding its operations: the segment's header (docs/FORMAT.md
/// §15: author and context name) and the group table's rows for it (kind, action name).
package struct SaveHeader: Sendable {
    /// The segment's sequence.
    package var sequence: UInt64
    /// When it was saved.
    package var timestamp: Date
    /// The saving context's `transactionAuthor`.
    package var author: String?
    /// The saving context's name.
    package var contextName: String?
    /// Its undo groups.
    package var groups: [ChangeGroupInfo]
}

extension DocumentStore {
    /// A stored segment's ``SaveHeader``: the body is decompressed and its header read, but no
    /// operation is decoded, so a save of a million inserts costs its decompression only (the
    /// inspector's timeline lists big saves this way; docs/INSPECTOR.md).
    /// - Throws: `.corruptSegment` naming the segment and offset.
    /// - Complexity: O(compressed size of the segment), without the decoding of its operations.
    package func saveHeader(_ record: SegmentRecord) throws -> SaveHeader {
        let body = try SegmentCodec.rawBody(record.body, sequenceHint: record.sequence, maxContentSize: configuration.maxSegmentSize)
        var decoder = SegmentDecoder(bytes: body, model: try model(forSegment: record.sequence), storeTag: tag,
                                     sequenceHint: record.sequence)
        let header = try decoder.readHeader(sequenceHint: record.sequence)
        let groups = try withOpenState { try LogTables.groups($0.connection, of: record.sequence) }
        return SaveHeader(sequence: record.sequence, timestamp: header.timestamp, author: header.author,
                          contextName: header.contextName, groups: groups)
    }
}
