import Foundation

/// One stored segment as the log table holds it.
public struct SegmentRecord: Sendable, Hashable {
    /// The segment's sequence number.
    public var sequence: UInt64
    /// When it was saved.
    public var timestamp: Date
    /// Its undo groups.
    public var groupCount: Int
    /// Its operations.
    public var operationCount: Int
    /// The size of the raw body.
    public var rawSize: Int
    /// The stored LZ4 frame.
    public var body: [UInt8]
    /// Whether the snapshot already holds it.
    public var isCompacted: Bool
}

extension SegmentRecord {
    /// The `strata_segment` columns a record is read from, in the order the initializers expect.
    static let columns = "seq, time, groups, operations, raw_size, body"

    /// A record from a row of ``columns``.
    /// - Throws: `.corruptSegment` naming the row when a column has the wrong type.
    init(row: [SQLiteValue], compactedThrough: UInt64) throws {
        guard case .integer(let seq) = row[0], case .real(let time) = row[1], case .integer(let groups) = row[2],
              case .integer(let operations) = row[3], case .integer(let raw) = row[4], case .blob(let body) = row[5]
        else {
            throw StrataError(.corruptSegment, "The log row \(row[0]) is malformed.", context: ["segment": "\(row[0])"])
        }
        self.init(sequence: UInt64(seq), timestamp: Date(timeIntervalSince1970: time), groupCount: Int(groups),
                  operationCount: Int(operations), rawSize: Int(raw), body: body, isCompacted: UInt64(seq) <= compactedThrough)
    }

    /// A record from a row of ``columns`` that may be damaged, for the tools that report and
    /// salvage damage: a column of the wrong type reads as -1 (an empty body), so the
    /// segment then fails its checks by name instead of hiding the rest of the log.
    init(salvaging row: [SQLiteValue], compactedThrough: UInt64) {
        func integer(_ index: Int) -> Int64 { if case .integer(let value) = row[index] { value } else { -1 } }
        var time = 0.0
        if case .real(let value) = row[1] { time = value } else if case .integer(let value) = row[1] { time = Double(value) }
        var body: [UInt8] = []
        if case .blob(let bytes) = row[5] { body = bytes }
        let sequence = UInt64(max(0, integer(0)))
        self.init(sequence: sequence, timestamp: Date(timeIntervalSince1970: time), groupCount: Int(integer(2)),
                  operationCount: Int(integer(3)), rawSize: Int(integer(4)), body: body, isCompacted: sequence <= compactedThrough)
    }
}

/// One undo group as the group table records it.
public struct GroupRecord: Sendable, Hashable {
    /// The segment that holds it.
    public var sequence: UInt64
    /// When that segment was saved.
    public var timestamp: Date
    /// The group.
    public var info: ChangeGroupInfo
}

extension DocumentStore {
    /// The stored segments with sequence in `range`, oldest first (without decoding).
    ///
    /// - Complexity: O(bytes of the segments read).
    public func segmentRecords(in range: ClosedRange<UInt64> = 0...UInt64(Int64.max)) throws -> [SegmentRecord] {
        try withOpenState { state in
            let compacted = state.meta.compactedThrough
            let rows = try state.connection.prepare(
                "SELECT \(SegmentRecord.columns) FROM strata_segment WHERE seq BETWEEN ? AND ? ORDER BY seq"
            ).rows([.integer(Int64(range.lowerBound)), .integer(Int64(min(range.upperBound, UInt64(Int64.max))))])
            return try rows.map { try SegmentRecord(row: $0, compactedThrough: compacted) }
        }
    }

    /// Decodes a stored segment.
    /// - Throws: `.corruptSegment` naming the segment and byte offset.
    public func decode(_ record: SegmentRecord) throws -> Segment {
        try SegmentCodec.decodeCompressed(
            record.body, model: model, storeTag: tag, sequenceHint: record.sequence, maxContentSize: configuration.maxSegmentSize)
    }

    /// Applies a stored segment to an in-memory store while decoding it: `target` ends up
    /// holding what `try target.save(StoreSaveRequest(groups: decode(record).groups))`
    /// would leave, without the segment's operations ever being built, which makes
    /// replaying a long log several times faster. The records keep this store's object
    /// IDs. All or nothing: when the segment is corrupt or an operation changes a record
    /// `target` lacks, `target` is left as it was.
    ///
    /// ```swift
    /// let replica = InMemoryStore(model: document.model)
    /// for record in try document.segmentRecords() { try document.replay(record, into: replica) }
    /// ```
    /// - Throws: `.corruptSegment` naming the segment and byte offset; `.corruptDocument`
    ///   when an operation changes a record that does not exist.
    /// - Complexity: O(size of the segment).
    public func replay(_ record: SegmentRecord, into target: InMemoryStore) throws {
        _ = try target.replay(storedSegment: record.body, model: model, storeTag: tag, sequenceHint: record.sequence,
                              maxContentSize: configuration.maxSegmentSize)
    }

    /// The undo groups of the retained log, oldest first, from the group table (no
    /// decoding).
    public func groupRecords() throws -> [GroupRecord] {
        try withOpenState { state in
            let rows = try state.connection.prepare("""
                SELECT g.seq, s.time, g.id, g.kind, g.reverts, g.action FROM strata_group g
                JOIN strata_segment s ON s.seq = g.seq ORDER BY g.seq, g.id
                """).rows()
            return rows.compactMap { row in
                guard case .integer(let seq) = row[0], case .real(let time) = row[1], case .integer(let id) = row[2],
                      case .integer(let kind) = row[3], case .text(let action) = row[5],
                      let groupKind = ChangeGroupKind(rawValue: UInt8(truncatingIfNeeded: kind))
                else { return nil }
                var reverts: UInt64?
                if case .integer(let value) = row[4] { reverts = UInt64(value) }
                return GroupRecord(sequence: UInt64(seq), timestamp: Date(timeIntervalSince1970: time),
                                   info: ChangeGroupInfo(id: UInt64(id), kind: groupKind, revertsGroup: reverts, actionName: action))
            }
        }
    }

    /// The decoded groups of every retained segment, oldest first: the document's history,
    /// from which a context rebuilds its undo and redo stacks.
    ///
    /// - Complexity: O(bytes of the retained log).
    public func historyGroups() throws -> [SegmentGroup] {
        try segmentRecords().flatMap { try decode($0).groups }
    }

    /// The last segment sequence applied, and the last one folded into the snapshot.
    public var logPosition: (last: UInt64, compactedThrough: UInt64) {
        get throws { try withOpenState { ($0.lastSequence, $0.meta.compactedThrough) } }
    }

    /// Takes in segments other processes appended since this store last read the log.
    /// Returns the records they touched.
    @discardableResult
    public func refreshFromLog() throws -> Set<ManagedObjectID> {
        try withOpenState { state in
            try state.catchUp(schema: schema, model: model, storeTag: tag, maxSegmentSize: configuration.maxSegmentSize)
        }
    }
}

extension ManagedObjectContext {
    /// Rebuilds the undo and redo stacks from the history of the context's document stores,
    /// so that undo in a new process reverts the last saved group of an earlier one.
    ///
    /// ```swift
    /// let context = ManagedObjectContext(coordinator: coordinator)
    /// try context.restoreUndoHistory()
    /// try context.undoManager?.undo()      // reverts the last group saved before reopening
    /// ```
    /// - Complexity: O(bytes of the retained log).
    public func restoreUndoHistory() throws {
        guard let undoManager else { return }
        var groups: [SegmentGroup] = []
        for case let store as DocumentStore in coordinator.persistentStores {
            groups += try store.historyGroups()
        }
        undoManager.restoreHistory(groups)
    }
}
