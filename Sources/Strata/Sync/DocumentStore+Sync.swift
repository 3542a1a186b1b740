import Foundation

/// What taking in one page of remote segments did.
struct SyncTakeIn {
    var received = 0
    var recognized = 0
    var conflicts: [SyncConflict] = []
}

/// The document side of ``DocumentSync``: each step one write transaction of the document,
/// so an interruption anywhere leaves the document and its sync records consistent.
extension DocumentStore {
    /// What the document records about its remote (nil: it never synced).
    func syncAttachment() throws -> SyncRecords.Attachment? {
        try withOpenState { try SyncRecords.attachment($0.connection) }
    }

    /// The remote this document syncs with (as given to its first push or clone), or nil
    /// when it never synced (docs/SYNC.md).
    public var syncRemoteLocation: String? {
        get throws { try syncAttachment()?.location }
    }

    /// The primary keys this document hands out, when it is a replica of a remote.
    var replicaKeyRange: Range<Int64>? {
        get throws { try withOpenState { try SyncRecords.replicaKeyRange($0.connection) } }
    }

    /// Records the attachment (and the local segments already on the remote); from now on
    /// keys and group ids come from the replica's range.
    func attach(_ attachment: SyncRecords.Attachment, sent: [UInt64] = []) throws {
        try syncWrite { state in
            try SyncRecords.write(state.connection, attachment)
            for sequence in sent {
                try state.connection.prepare("UPDATE strata_sync_segment SET state = ?, replica = ? WHERE seq = ?")
                    .run([.integer(SyncRecords.State.sent.rawValue), .integer(Int64(attachment.replica ?? 0)), .integer(Int64(sequence))])
            }
            // The counters are read again, within the replica's range.
            state.keyCounters = [:]
            state.largestGroupID = 0
        }
    }

    /// The first push: every local segment, which must start at 1 without gaps, recorded as
    /// `sending` at its own sequence, and returned as the remote's first segments.
    func creationSegments(remote location: String) throws -> [RemoteSegment] {
        try syncWrite { state in
            let records = try LogTables.records(state.connection, compactedThrough: state.meta.compactedThrough)
            for (index, record) in records.enumerated() where record.sequence != UInt64(index + 1) {
                throw StrataError(.invalidArgument,
                                  "\(url.path) no longer holds its whole log (segment \(index + 1) was dropped by its history retention), so it cannot start a remote; copy it into a new document with `strata-log recover`, or push a document that keeps its history.",
                                  context: .init { $0.path = url.path; $0.segment = UInt64(index + 1) })
            }
            try SyncRecords.write(state.connection, SyncRecords.Attachment(location: location, replica: nil, remoteSequence: 0))
            return try records.map { record in
                let checksum = SyncRecords.checksum(record.body)
                try SyncRecords.record(state.connection, local: record.sequence, remote: Int64(record.sequence), replica: 0,
                                       checksum: checksum, state: .sending)
                return RemoteSegment(sequence: Int64(record.sequence), time: record.timestamp, groups: record.groupCount,
                                     operations: record.operationCount, rawSize: record.rawSize, body: Data(record.body), replica: 0)
            }
        }
    }

    /// The local segments an interrupted first push of this document created the remote
    /// document with (its segments are this document's `sending` ones, by sequence and
    /// checksum), or nil when the remote document is another one.
    func recognizedCreation(remote: any SegmentRemote, _ document: RemoteDocument) throws -> [UInt64]? {
        let sending = try withOpenState { state -> [UInt64: UInt64] in
            guard try SyncRecords.attachment(state.connection)?.location == remote.location else { return [:] }
            var rows: [UInt64: UInt64] = [:]
            for row in try state.connection.prepare("SELECT seq, checksum FROM strata_sync_segment WHERE state = ? AND replica = 0")
                .rows([.integer(SyncRecords.State.sending.rawValue)]) {
                guard case .integer(let seq) = row[0], case .integer(let sum) = row[1] else { continue }
                rows[UInt64(seq)] = UInt64(bitPattern: sum)
            }
            return rows
        }
        guard !sending.isEmpty || document.lastSequence == 0 else { return nil }
        let first = try remote.segments(after: 0, limit: Int(document.lastSequence))
        guard first.count == Int(document.lastSequence) else { return nil }
        for segment in first where sending[UInt64(segment.sequence)] != SyncRecords.checksum(segment.body) { return nil }
        return first.map { UInt64($0.sequence) }
    }

    /// The local segments not yet on the remote, oldest first, encoded as the remote's
    /// segments `last + 1`, `last + 2`… and recorded as `sending` there (before they are
    /// appended: an interrupted push recognizes them on the remote by checksum).
    func outgoingSegments(after last: Int64, replica: Int) throws -> [(local: UInt64, segment: RemoteSegment)] {
        try syncWrite { state in
            let connection = state.connection
            let done = try SyncRecords.sequences(connection, in: [.pulled, .sent])
            // A segment neither on the remote nor in the log was dropped by a history
            // retention before it was pushed: say so rather than lose it silently.
            let stored = Set(try LogTables.sequences(connection))
            if state.lastSequence > 0, let lost = (1...state.lastSequence).first(where: { !stored.contains($0) && !done.contains($0) }) {
                throw StrataError(.invalidArgument,
                                  "Segment \(lost) of \(url.path) was dropped by its history retention before it was pushed to the remote; a document that syncs must keep its log (retention all) until it is pushed.",
                                  context: .init { $0.path = url.path; $0.segment = lost })
            }
            var outgoing: [(local: UInt64, segment: RemoteSegment)] = []
            for record in try LogTables.records(connection, compactedThrough: state.meta.compactedThrough) where !done.contains(record.sequence) {
                var segment = try SegmentCodec.decodeCompressed(record.body, model: model, storeTag: state.storeTag,
                                                                sequenceHint: record.sequence, maxContentSize: state.maxSegmentSize)
                let sequence = last + Int64(outgoing.count) + 1
                segment.sequence = UInt64(sequence)
                // Compressed as a save's segment is, at its version's level (docs/FORMAT.md §9.1).
                let (body, rawSize) = try SegmentEncoder.encodeCompressed(segment, model: model)
                let checksum = SyncRecords.checksum(body)
                try SyncRecords.record(connection, local: record.sequence, remote: sequence, replica: replica, checksum: checksum, state: .sending)
                outgoing.append((record.sequence, RemoteSegment(sequence: sequence, time: record.timestamp, groups: record.groupCount,
                                                                operations: record.operationCount, rawSize: rawSize, body: Data(body),
                                                                replica: replica)))
            }
            return outgoing
        }
    }

    /// Marks pushed segments `sent` and moves the remote position to `through`.
    func markSent(_ locals: [UInt64], through: Int64) throws {
        try syncWrite { state in
            let update = try state.connection.prepare("UPDATE strata_sync_segment SET state = ? WHERE seq = ?")
            for local in locals { try update.run([.integer(SyncRecords.State.sent.rawValue), .integer(Int64(local))]) }
            try DocumentFile.writeMeta(state.connection, key: SyncRecords.remoteSequenceKey, .integer(through))
        }
    }

    /// Takes in one page of remote segments (which must follow the last one taken in):
    /// recognizes this replica's own, appends the others' to the local log as new local
    /// segments, resolves conflicts with local segments not yet pushed by `policy` (a
    /// resolution is one more local segment, a `.merge` group), all in one transaction;
    /// then contexts are told as of another process's save.
    func takeIn(_ page: [RemoteSegment], replica: Int, remote location: String, policy: MergePolicy) throws -> SyncTakeIn {
        let outcome = try syncWrite { state in
            try Self.takeIn(page, into: &state, replica: replica, remote: location, policy: policy, model: model, path: url.path)
        }
        deliverRemoteChanges()
        return outcome
    }

    private static func takeIn(_ page: [RemoteSegment], into state: inout DocumentState, replica: Int, remote location: String,
                               policy: MergePolicy, model: ManagedObjectModel, path: String) throws -> SyncTakeIn {
        let connection = state.connection
        var outcome = SyncTakeIn()
        var foreign: [(remote: RemoteSegment, segment: Segment)] = []
        var position = try SyncRecords.attachment(connection)?.remoteSequence ?? 0
        for remoteSegment in page {
            guard remoteSegment.sequence == position + 1 else {
                throw StrataError(.corruptSegment, "The remote \(location) sent segment \(remoteSegment.sequence) after \(position); its log has a gap.",
                                  context: .init { $0.segment = UInt64(exactly: remoteSegment.sequence); $0.remote = location })
            }
            position = remoteSegment.sequence
            let checksum = SyncRecords.checksum(remoteSegment.body)
            if replica != 0, remoteSegment.replica == replica {
                guard let local = try SyncRecords.sending(connection, remote: remoteSegment.sequence, checksum: checksum) else {
                    throw StrataError(.invalidArgument,
                                      "The remote \(location) holds segment \(remoteSegment.sequence) from this replica (\(replica)) that \(path) does not know: was the document replaced by an older copy? Clone the remote again.",
                                      context: .init { $0.segment = UInt64(exactly: remoteSegment.sequence); $0.remote = location })
                }
                try SyncRecords.record(connection, local: local, remote: remoteSegment.sequence, replica: replica, checksum: checksum, state: .sent)
                outcome.recognized += 1
                continue
            }
            do {
                let segment = try SegmentCodec.decodeCompressed([UInt8](remoteSegment.body), model: model, storeTag: state.storeTag,
                                                                sequenceHint: UInt64(remoteSegment.sequence), maxContentSize: state.maxSegmentSize)
                foreign.append((remoteSegment, segment))
            } catch let error as StrataError {
                throw StrataError(.corruptSegment, "Segment \(remoteSegment.sequence) of the remote \(location) cannot be read: \(error.message)",
                                  context: error.context.with { $0.remote = location; $0.segment = UInt64(exactly: remoteSegment.sequence) })
            }
        }
        // Conflicts: what the local segments not yet on the remote changed, against the page.
        let done = try SyncRecords.sequences(connection, in: [.pulled, .sent])
        var localGroups: [SegmentGroup] = []
        for record in try LogTables.records(connection, compactedThrough: state.meta.compactedThrough) where !done.contains(record.sequence) {
            localGroups += try SegmentCodec.decodeCompressed(record.body, model: model, storeTag: state.storeTag,
                                                             sequenceHint: record.sequence, maxContentSize: state.maxSegmentSize).groups
        }
        let analysis = SyncConflictAnalysis(local: localGroups, remote: foreign.flatMap(\.segment.groups))
        if !analysis.conflicts.isEmpty, policy == .error || analysis.conflicts.contains(where: { $0.unresolvableReason != nil }) {
            throw analysis.error(policy: policy, remote: location)
        }
        let current = state
        let resolution = try analysis.resolution(policy: policy) { try current.currentValues($0) }
        // Everything must apply here before anything is written: a segment that cannot
        // (it changes a record this document lacks) is refused, naming it.
        var trial = OverlayPatch()
        for (remoteSegment, segment) in foreign {
            do {
                for group in segment.groups {
                    for operation in group.operations { try current.apply(operation, to: &trial, inWrite: false) }
                }
            } catch let error as StrataError {
                throw StrataError(error.code, "Segment \(remoteSegment.sequence) of the remote \(location) does not apply to \(path): \(error.message) Nothing was changed.",
                                  context: error.context.with { $0.remote = location; $0.segment = UInt64(exactly: remoteSegment.sequence) })
            }
        }
        var next = state.lastSequence + 1
        func append(_ segment: Segment) throws {
            var segment = segment
            segment.sequence = next
            let (body, rawSize) = try SegmentEncoder.encodeCompressed(segment, model: model)
            try LogTables.append(connection, SegmentRecord(sequence: next, timestamp: segment.timestamp, groupCount: segment.groups.count,
                                                           operationCount: segment.operationCount, rawSize: rawSize, body: body,
                                                           isCompacted: false),
                                 groups: segment.groups.map(\.info))
            next += 1
        }
        for (remoteSegment, segment) in foreign {
            try SyncRecords.record(connection, local: next, remote: remoteSegment.sequence, replica: remoteSegment.replica,
                                   checksum: SyncRecords.checksum(remoteSegment.body), state: .pulled)
            try append(segment)
        }
        if !resolution.isEmpty {
            let stored = try DocumentFile.readCounters(connection).groups
            let group = max(state.largestGroupID, stored) + 1
            try DocumentFile.writeMeta(connection, key: "groupCounter", .integer(Int64(group)))
            try append(Segment(sequence: next, timestamp: Date(), groups: [
                SegmentGroup(id: group, kind: .merge, revertsGroup: nil, actionName: "Sync Merge", operations: resolution),
            ], contextName: "strata sync"))
        }
        outcome.conflicts = analysis.conflicts
        try DocumentFile.writeMeta(connection, key: SyncRecords.remoteSequenceKey, .integer(position))
        outcome.received = foreign.count
        return outcome
    }

    /// Runs `body` in one write transaction of the document, after taking in other
    /// processes' saves; afterwards takes in what `body` appended to the log as another
    /// writer's segments (contexts merge them as another process's save).
    func syncWrite<T>(_ body: (inout DocumentState) throws -> T) throws -> T {
        try writing {
            try withOpenState { state in
                let result = try state.connection.transaction(.immediate) { () throws -> T in
                    try state.catchUp()
                    return try body(&state)
                }
                try state.catchUp()
                return result
            }
        }
    }
}
