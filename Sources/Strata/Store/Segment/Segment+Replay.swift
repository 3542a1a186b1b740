import Foundation

/// What a streaming replay read besides the operations it applied.
struct SegmentReplaySummary {
    /// The body's sequence and timestamp.
    var sequence: UInt64
    var timestamp: Date
    /// The number of groups and the largest group ID (0 without groups).
    var groupCount: Int
    var largestGroupID: UInt64
    /// The number of operations applied.
    var operationCount: Int
}

extension SegmentDecoder {
    /// Decodes a raw body and applies each operation to `rows` as soon as it is read, with
    /// the same checks as ``decode(_:model:storeTag:sequenceHint:)``: the rows end up as
    /// `decode` followed by ``RowTable/applyAtomically(groups:model:)`` would leave them,
    /// without building the segment's operations (for an edit log, building them costs
    /// more than applying them).
    ///
    /// The caller runs this inside ``RowTable/applyAtomically(_:)``, which puts the rows
    /// back when it throws. As with decoding first, a malformed body is reported even when
    /// an earlier operation could not be applied: after an apply error, operations are only
    /// decoded, and the apply error is thrown once the whole body has been read.
    ///
    /// - Throws: `.corruptSegment` (located as by `decode`), or the row table's error
    ///   (`.corruptDocument`) for an operation on a missing record.
    /// - Complexity: O(size of the body).
    static func replay(
        _ bytes: [UInt8], model: ManagedObjectModel, storeTag: UInt32, sequenceHint: UInt64?, into rows: inout RowTable
    ) throws -> SegmentReplaySummary {
        var decoder = SegmentDecoder(bytes: bytes, model: model, storeTag: storeTag, sequenceHint: sequenceHint)
        do {
            return try decoder.replaySegment(sequenceHint: sequenceHint, into: &rows)
        } catch let error as StrataError where error.code == .corruptSegment {
            throw decoder.located(error)
        }
    }

    private mutating func replaySegment(sequenceHint: UInt64?, into rows: inout RowTable) throws -> SegmentReplaySummary {
        let header = try readHeader(sequenceHint: sequenceHint)
        var summary = SegmentReplaySummary(sequence: header.sequence, timestamp: header.timestamp,
                                           groupCount: header.groupCount, largestGroupID: 0, operationCount: 0)
        var failure: (any Error)?
        var changes: [SlotChange] = []
        var run: [ChangeOperation] = []
        for _ in 0..<header.groupCount {
            let group = try readGroupHeader()
            summary.largestGroupID = max(summary.largestGroupID, group.id)
            summary.operationCount += group.operationCount
            var done = 0
            while done < group.operationCount {
                done += 1
                if version >= 2, reader.peekByte() == SegmentFormat.OperationTag.insertRun.rawValue {
                    // An insert run (§13.2) is read whole, then applied row by row.
                    if !run.isEmpty { run.removeAll(keepingCapacity: true) }
                    try readInsertRun(into: &run, limit: group.operationCount - done + 1)
                    done += run.count - 1
                    if failure == nil {
                        for operation in run {
                            do { try rows.apply(operation, model: model) } catch { failure = error; break }
                        }
                    }
                    continue
                }
                guard reader.peekByte() == SegmentFormat.OperationTag.update.rawValue else {
                    let operation = try readOperation()
                    if failure == nil {
                        do { try rows.apply(operation, model: model) } catch { failure = error }
                    }
                    continue
                }
                _ = try reader.readByte()
                let plan = plans.plan(try readEntityIndex())
                let key = try reader.readZigzag()
                if reader.peekByte() == 1 {
                    // One change (the usual edit): applied without an array.
                    _ = try reader.readCount(minimumItemSize: SegmentFormat.minimumSlotChangeSize, what: "change count")
                    let (slot, info) = try readPersistentSlot(of: plan)
                    _ = try readValue(for: info, shape: plan.shapes[slot])
                    let new = try readValue(for: info, shape: plan.shapes[slot])
                    if failure == nil {
                        let id = scopes.id(plan.entity, storeTag: storeTag, primaryKey: key)
                        do { try rows.update(id, slot: slot, to: new) } catch { failure = error }
                    }
                    continue
                }
                if !changes.isEmpty { changes = [] }
                try readChanges(of: plan, into: &changes)
                if failure == nil {
                    let id = scopes.id(plan.entity, storeTag: storeTag, primaryKey: key)
                    do { try rows.update(id, changes) } catch { failure = error }
                }
            }
        }
        try finishBody()
        if let failure { throw failure }
        return summary
    }
}
