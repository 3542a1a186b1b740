import Foundation

extension DocumentReplay {
    /// How many segment rows ``append(_:of:to:)`` reads at a time, so that a long span never
    /// holds the whole log in memory.
    static let appendWindow: UInt64 = 512

    /// Appends segments `range` of `source` to `target`, a replay of `source` through
    /// `range.lowerBound - 1` (or an empty document of the same model when the range starts
    /// at 1), as ``replay(_:through:to:overwrite:settings:progress:)`` appends them: groups,
    /// action names, authors and timestamps kept, object keys kept. The inspector continues
    /// a replay it already made this way instead of replaying from the first save
    /// (docs/INSPECTOR.md, "Time travel"). Returns the number of segments appended.
    ///
    /// - Throws: `.invalidArgument` when the span starts before the document's current
    ///   model (a migration's segments need ``replay(_:through:to:overwrite:settings:progress:)``,
    ///   which migrates the copy where the document was migrated); `.corruptSegment` for a
    ///   damaged segment on the way.
    /// - Complexity: O(bytes of the segments in `range`).
    @discardableResult
    package static func append(_ range: ClosedRange<UInt64>, of source: DocumentStore, to target: DocumentStore) throws -> Int {
        let since = try source.withOpenState { $0.meta.modelSince }
        guard range.lowerBound >= since else {
            throw StrataError(.invalidArgument,
                              "Segments before \(since) were saved in an earlier model version of \(source.url.path); they cannot be appended to a document of the current model.",
                              context: .init { $0.segment = range.lowerBound; $0.boundarySegment = since })
        }
        var appended = 0
        var low = range.lowerBound
        while low <= range.upperBound {
            let high = min(range.upperBound, low + appendWindow - 1)
            for record in try source.segmentRecords(in: low...high) {
                try appendSaved(try source.decode(record), to: target)
                appended += 1
            }
            if high == UInt64(Int64.max) { break }
            low = high + 1
        }
        return appended
    }

    /// Saves a segment of another document into `store` as it was saved there: its groups
    /// (action names, undo structure), object keys, timestamp, author and context name; the
    /// objects' IDs are rewritten to name `store`.
    static func appendSaved(_ segment: Segment, to store: DocumentStore) throws {
        let tag = store.tag
        let groups = segment.groups.map { group in
            SegmentGroup(group.info, operations: group.operations.map {
                $0.mapIDs { ManagedObjectID(entity: $0.entity, storeTag: tag, primaryKey: $0.primaryKey) }
            })
        }
        try store.save(StoreSaveRequest(groups: groups, timestamp: segment.timestamp,
                                        author: segment.author, contextName: segment.contextName))
    }
}
