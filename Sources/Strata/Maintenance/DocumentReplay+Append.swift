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
    /// With `folding`, consecutive segments are saved together, as one save of their groups
    /// in order (at most ``foldedOperationLimit`` operations each, a bigger segment alone):
    /// the state after the last one is the same, the copy's log has fewer, larger segments
    /// with the last one's time and no author. That is for a copy whose history nobody reads
    /// (the inspector's replays keep none), and it spares a save per segment.
    ///
    /// - Throws: `.invalidArgument` when the span starts before the document's current
    ///   model (a migration's segments need ``replay(_:through:to:overwrite:settings:progress:)``,
    ///   which migrates the copy where the document was migrated); `.corruptSegment` for a
    ///   damaged segment on the way.
    /// - Complexity: O(bytes of the segments in `range`).
    @discardableResult
    package static func append(_ range: ClosedRange<UInt64>, of source: DocumentStore, to target: DocumentStore,
                               folding: Bool = false) throws -> Int {
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
            var fold = SegmentFold()
            for record in try source.segmentRecords(in: low...high) {
                let segment = try source.decode(record)
                appended += 1
                guard folding else {
                    try appendSaved(segment, to: target)
                    continue
                }
                if fold.operations + segment.operationCount > foldedOperationLimit { try fold.save(to: target) }
                fold.add(segment, naming: target.tag)
            }
            try fold.save(to: target)
            if high == UInt64(Int64.max) { break }
            low = high + 1
        }
        return appended
    }

    /// The most operations one folded save of ``append(_:of:to:folding:)`` holds.
    static let foldedOperationLimit = 50_000

    /// Segments waiting to be saved together, their objects' IDs naming the target store.
    private struct SegmentFold {
        var groups: [SegmentGroup] = []
        var operations = 0
        var timestamp = Date()

        mutating func add(_ segment: Segment, naming tag: UInt32) {
            groups += rebased(segment.groups, to: tag)
            operations += segment.operationCount
            timestamp = segment.timestamp
        }

        /// Saves what was added, if anything, and starts again.
        mutating func save(to store: DocumentStore) throws {
            guard !groups.isEmpty else { return }
            try store.save(StoreSaveRequest(groups: groups, timestamp: timestamp))
            self = SegmentFold()
        }
    }

    /// `groups` with their objects' IDs naming the store tagged `tag`.
    private static func rebased(_ groups: [SegmentGroup], to tag: UInt32) -> [SegmentGroup] {
        groups.map { group in
            SegmentGroup(group.info, operations: group.operations.map {
                $0.mapIDs { ManagedObjectID(entity: $0.entity, storeTag: tag, primaryKey: $0.primaryKey) }
            }, metadata: group.metadata)
        }
    }

    /// Saves a segment of another document into `store` as it was saved there: its groups
    /// (action names, undo structure), object keys, timestamp, author and context name; the
    /// objects' IDs are rewritten to name `store`.
    static func appendSaved(_ segment: Segment, to store: DocumentStore) throws {
        try store.save(StoreSaveRequest(groups: rebased(segment.groups, to: store.tag), timestamp: segment.timestamp,
                                        author: segment.author, contextName: segment.contextName))
    }
}
