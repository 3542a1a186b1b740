import Foundation

extension DocumentStore: RemoteChangeAnnouncing {}

/// A document file used as the local replica of a shared log (StrataPostgres keeps one per
/// open store): segments another writer appended elsewhere are written into the file as
/// another process's save would be, so the store's catch-up — conflicts, merge policies,
/// remote-change notifications — takes them in unchanged.
extension DocumentStore {
    /// Creates a document file with a given store identifier (the shared document's, so
    /// object URIs mean the same in every replica).
    package convenience init(creatingReplicaAt url: URL, model: ManagedObjectModel, identifier: String,
                             configuration: Configuration) throws {
        try self.init(creatingAt: url, model: model, overwrite: true, configuration: configuration,
                      identity: (identifier, nil))
    }

    /// The sequence of the last segment the file holds (0 when none), committed or
    /// written inside the write this thread holds.
    package func lastStoredSequence() throws -> Int64 {
        try withOpenState { state in
            let rows = try state.connection.prepare("SELECT MAX(seq) FROM strata_segment").rows()
            var last = Int64(state.meta.compactedThrough)
            if case .integer(let value)? = rows.first?.first { last = max(last, value) }
            return last
        }
    }

    /// Writes segments appended elsewhere into the file (one transaction of its own),
    /// skipping those it already holds, and raises its key and group counters to the
    /// shared ones. Nothing is applied to the overlay: the next catch-up (a save's, or
    /// ``catchUp()``) takes them in as another process's save.
    /// - Throws: `.corruptSegment` when a segment is damaged or leaves a gap.
    package func ingest(_ segments: [RemoteSegment], keyCounters: [String: Int64], groupCounter: UInt64) throws {
        try writing {
            try withOpenState { state in
                try state.connection.transaction(.immediate) {
                    var last = Int64(state.meta.compactedThrough)
                    if case .integer(let value)? = try state.connection.prepare("SELECT MAX(seq) FROM strata_segment").rows().first?.first {
                        last = max(last, value)
                    }
                    for segment in segments where segment.sequence > last {
                        guard segment.sequence == last + 1 else {
                            throw StrataError(.corruptSegment, "The shared log jumps from segment \(last) to \(segment.sequence).",
                                              context: .init { $0.segment = UInt64(exactly: segment.sequence) })
                        }
                        let body = [UInt8](segment.body)
                        let decoded = try SegmentCodec.decodeCompressed(body, model: state.model, storeTag: state.storeTag,
                                                                        sequenceHint: UInt64(segment.sequence),
                                                                        maxContentSize: state.maxSegmentSize)
                        let record = SegmentRecord(sequence: UInt64(segment.sequence), timestamp: segment.time,
                                                   groupCount: segment.groups, operationCount: segment.operations,
                                                   rawSize: segment.rawSize, body: body, isCompacted: false)
                        try LogTables.append(state.connection, record, groups: decoded.groups.map(\.info))
                        last = segment.sequence
                    }
                    let stored = try DocumentFile.readCounters(state.connection)
                    for (name, key) in keyCounters where key > (stored.keys[name] ?? 0) {
                        try DocumentFile.writeMeta(state.connection, key: "keyCounter.\(name)", .integer(key))
                    }
                    if groupCounter > stored.groups {
                        try DocumentFile.writeMeta(state.connection, key: "groupCounter", .integer(Int64(groupCounter)))
                    }
                }
            }
        }
    }

    /// The segments after `sequence` as the file holds them (inside a held write, with
    /// the write's own), oldest first.
    package func storedSegments(after sequence: Int64) throws -> [RemoteSegment] {
        try withOpenState { state in
            try LogTables.records(state.connection, in: UInt64(sequence + 1)...UInt64(Int64.max),
                                  compactedThrough: state.meta.compactedThrough).map {
                RemoteSegment(sequence: Int64($0.sequence), time: $0.timestamp, groups: $0.groupCount,
                              operations: $0.operationCount, rawSize: $0.rawSize, body: Data($0.body), replica: 0)
            }
        }
    }

    /// The key counters (by root entity name) and group counter the file holds, with the
    /// largest keys and group id this store has seen: what a shared document must keep
    /// every other writer above.
    package func counters() throws -> (keys: [String: Int64], groups: UInt64) {
        try withOpenState { state in
            var stored = try DocumentFile.readCounters(state.connection)
            for root in state.model.entities where root.superentity == nil {
                if let key = state.keyCounters[root.index] { stored.keys[root.name] = max(stored.keys[root.name] ?? 0, key) }
            }
            stored.groups = max(stored.groups, state.largestGroupID)
            return stored
        }
    }
}

extension DocumentStore {
    /// Catches up with the file without reporting anything: what a replica held when its
    /// store opened is not news to anyone (no remote change, no change elsewhere for the
    /// next write).
    package func catchUpWithoutReporting() throws {
        try withOpenState { state in
            try state.catchUp()
            state.pendingRemoteChanges = PendingRemoteChanges()
            state.externalChanges.removeAll()
        }
    }
}
