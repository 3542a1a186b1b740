import Foundation

/// A save's groups encoded as segments whose raw bodies each fit the document's largest
/// segment (``DocumentStore/Configuration/maxSegmentSize``, the size every reader decodes):
/// one segment, as almost every save is, or — for a save too big for one — several
/// consecutive segments written in the save's one transaction (docs/FORMAT.md, "A save in
/// several segments").
///
/// A group split across segments keeps its id, kind and action name in each, which is how
/// a chunked batch insert has always been written: catching up, replay, history and undo
/// read its parts in order as one group.
enum SavedSegments {
    /// One encoded segment of a save.
    struct Encoded {
        var segment: Segment
        var frame: [UInt8]
        var rawSize: Int
    }

    /// Encodes `groups` as segments numbered from `sequence` on, handing each to `write` as
    /// soon as it is encoded (so one frame at a time is in memory); returns how many.
    /// - Throws: `.invalidArgument` when a single operation is larger than `limit` (nothing
    ///   can hold it; the message says which and how to raise the limit); the encoder's and
    ///   `write`'s errors.
    /// - Complexity: O(size of the save) when it fits one segment; otherwise each attempt
    ///   stops after at most `limit` bytes, O(size · log(size / limit)).
    @discardableResult
    static func encode(_ groups: [SegmentGroup], from sequence: UInt64, timestamp: Date, author: String?,
                       contextName: String?, model: ManagedObjectModel, limit: Int,
                       write: (Encoded) throws -> Void) throws -> Int {
        var count = 0
        // A save writes each group's keystrokes of one text as one splice (docs/FORMAT.md
        // §19.8); a model without texts has none to join.
        let groups = model.hasTexts ? groups.map { $0.foldingTextEdits() } : groups
        func encode(_ groups: [SegmentGroup]) throws {
            let segment = Segment(sequence: sequence + UInt64(count), timestamp: timestamp, groups: groups,
                                  author: author, contextName: contextName)
            let encoded: Encoded
            do {
                // Compressed as it is encoded: the raw body is never whole in memory beside
                // the frame (docs/ARCHITECTURE.md, "Saves").
                let (frame, rawSize) = try SegmentEncoder.encodeCompressed(segment, model: model, limit: limit)
                encoded = Encoded(segment: segment, frame: frame, rawSize: rawSize)
            } catch is SegmentEncoder.BodyTooLarge {
                guard let (first, second) = halves(groups) else { throw tooLarge(groups, limit: limit) }
                try encode(first)
                try encode(second)
                return
            }
            count += 1
            try write(encoded)
        }
        try encode(groups)
        return count
    }

    /// The groups cut in two at half their operations (a group cut in the middle goes on
    /// in the second half under the same id); nil for one operation or none.
    static func halves(_ groups: [SegmentGroup]) -> ([SegmentGroup], [SegmentGroup])? {
        let total = groups.reduce(0) { $0 + $1.operations.count }
        guard total >= 2 else { return nil }
        var first: [SegmentGroup] = [], second: [SegmentGroup] = []
        var remaining = total / 2
        for group in groups {
            if remaining == 0 {
                second.append(group)
            } else if group.operations.count <= remaining {
                first.append(group)
                remaining -= group.operations.count
            } else {
                var head = group, tail = group
                head.operations = Array(group.operations[..<remaining])
                tail.operations = Array(group.operations[remaining...])
                first.append(head)
                second.append(tail)
                remaining = 0
            }
        }
        return (first, second)
    }

    private static func tooLarge(_ groups: [SegmentGroup], limit: Int) -> StrataError {
        let operation = groups.lazy.flatMap(\.operations).first
        let what = operation.map { "one change to \($0.objectID.entity.name) \($0.objectID)" } ?? "the save's group headers"
        return StrataError(
            .invalidArgument,
            "Cannot save: \(what) is larger than a segment may hold (\(limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes") decoded; DocumentStore.Configuration.maxSegmentSize). Nothing was saved; store such values outside the document (a file it names) or raise maxSegmentSize for every process that opens it.",
            context: .init { $0.object = operation?.objectID.description })
    }
}
