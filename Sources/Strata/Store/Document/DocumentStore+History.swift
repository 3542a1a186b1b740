import Foundation

extension DocumentStore {
    /// The stored segments with sequence in `range`, oldest first (without decoding).
    ///
    /// - Throws: `.corruptSegment` naming a malformed log row.
    /// - Complexity: O(bytes of the segments read).
    public func segmentRecords(in range: ClosedRange<UInt64> = 0...UInt64(Int64.max)) throws -> [SegmentRecord] {
        try withOpenState { state in
            try LogTables.records(state.connection, in: range, compactedThrough: state.meta.compactedThrough)
        }
    }

    /// Decodes a stored segment with the model version it was written with: a segment
    /// saved before the document was migrated decodes in that version's model (its object
    /// IDs are of that version's entities), since segments name entities and properties by
    /// position in their own model (docs/MIGRATION.md, "History").
    /// - Throws: `.corruptSegment` naming the segment and byte offset.
    public func decode(_ record: SegmentRecord) throws -> Segment {
        try SegmentCodec.decodeCompressed(
            record.body, model: try model(forSegment: record.sequence), storeTag: tag, sequenceHint: record.sequence,
            maxContentSize: configuration.maxSegmentSize)
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
    ///   when an operation changes a record that does not exist; `.invalidArgument` for a
    ///   segment saved before the document was migrated (it is in another model version).
    /// - Complexity: O(size of the segment).
    public func replay(_ record: SegmentRecord, into target: InMemoryStore) throws {
        let since = try withOpenState { $0.meta.modelSince }
        if record.sequence < since {
            // The target is in the current model; the segment's slots are another version's.
            let version = try segmentModelVersions().version(forSegment: record.sequence)
            throw StrataError(.invalidArgument,
                              "Segment \(record.sequence) was saved in model version \(version.map(String.init) ?? "?") of \(url.path), before the document was migrated at segment \(since); it cannot be replayed into a store of the current model (`strata-log replay` rebuilds across migrations).",
                              context: .init { $0.segment = record.sequence; $0.boundarySegment = since })
        }
        _ = try target.replay(storedSegment: record.body, model: model, storeTag: tag, sequenceHint: record.sequence,
                              maxContentSize: configuration.maxSegmentSize)
    }

    /// The undo groups of the retained log, oldest first, from the group table (no
    /// decoding).
    /// - Throws: `.corruptSegment` naming a malformed group row.
    public func groupRecords() throws -> [GroupRecord] {
        try withOpenState { try LogTables.groupRecords($0.connection) }
    }

    /// The decoded groups of every retained segment, oldest first: the document's history,
    /// from which a context rebuilds its undo and redo stacks.
    ///
    /// - Complexity: O(bytes of the retained log).
    /// Only segments written with the current model count: an undo never crosses a
    /// migration (``undoBoundary``). Segments taken in from a remote (``DocumentSync``)
    /// are other people's saves and do not count either: undo stays local.
    public func historyGroups() throws -> [SegmentGroup] {
        let (since, pulled) = try withOpenState { ($0.meta.modelSince, try SyncRecords.sequences($0.connection, in: [.pulled])) }
        return try segmentRecords(in: since...UInt64(Int64.max)).filter { !pulled.contains($0.sequence) }.flatMap { try decode($0).groups }
    }

    /// The groups of the retained history as ``historyGroups()`` reads them, oldest first,
    /// each with its operations or, for a group alone in its segment (each chunk of an
    /// import or of its undo is), a reader of them: only segments holding several groups
    /// are decoded, in their own order. Reverting one group of a long history then decodes
    /// that group alone, not every retained segment (docs/ARCHITECTURE.md, "Undo").
    ///
    /// The readers decode the segments when called: this suits a caller that reverts at once
    /// inside the write it holds (`strata undo`), not stacks kept while the log may change.
    /// - Complexity: O(groups) and O(bytes of the segments holding several groups).
    package func historyGroupsReadLater() throws -> [(info: ChangeGroupInfo, operations: HistoryOperations)] {
        let (since, pulled) = try withOpenState { ($0.meta.modelSince, try SyncRecords.sequences($0.connection, in: [.pulled])) }
        var bySegment: [(sequence: UInt64, groups: [ChangeGroupInfo])] = []
        for record in try groupRecords() where record.sequence >= since && !pulled.contains(record.sequence) {
            if bySegment.last?.sequence == record.sequence {
                bySegment[bySegment.count - 1].groups.append(record.info)
            } else {
                bySegment.append((record.sequence, [record.info]))
            }
        }
        var result: [(info: ChangeGroupInfo, operations: HistoryOperations)] = []
        for (sequence, groups) in bySegment {
            if groups.count == 1 {
                result.append((groups[0], .inSegments([sequence])))
                continue
            }
            for record in try segmentRecords(in: sequence...sequence) {
                for group in try decode(record).groups { result.append((group.info, .decoded(group.operations))) }
            }
        }
        return result
    }

    /// The operations of group `id` in the segments `sequences`, oldest first.
    /// - Throws: `.corruptSegment` naming a malformed segment.
    func operations(ofGroup id: UInt64, inSegments sequences: [UInt64]) throws -> [ChangeOperation] {
        var operations: [ChangeOperation] = []
        for sequence in sequences {
            for record in try segmentRecords(in: sequence...sequence) {
                for group in try decode(record).groups where group.id == id { operations += group.operations }
            }
        }
        return operations
    }

    /// The first segment written with the current model, when the document was migrated
    /// (nil otherwise): the history before it was written with an earlier model version,
    /// and undo stops there.
    public var undoBoundary: UInt64? {
        get throws { try withOpenState { $0.meta.modelSince > 1 ? $0.meta.modelSince : nil } }
    }

    /// The operations of one saved group, oldest first, read back from the retained log
    /// the way ``historyGroups()`` reads it (a group written in several segments, as a
    /// chunked batch insert is, is read from each in turn). An undoable batch insert's undo
    /// group reads its operations here when it is undone instead of holding them.
    ///
    /// - Throws: `.undo` when the log no longer holds the group; `.corruptSegment` naming
    ///   a malformed segment.
    /// - Complexity: O(bytes of the segments holding the group).
    func loggedOperations(ofGroup id: UInt64) throws -> [ChangeOperation] {
        let sequences = try withOpenState { try LogTables.sequences($0.connection, ofGroup: id) }
        guard !sequences.isEmpty else {
            throw StrataError(.undo, "The log of \(url.path) no longer holds group \(id), so it cannot be undone.",
                              context: .init { $0.group = id })
        }
        let since = try withOpenState { $0.meta.modelSince }
        if let first = sequences.first, first < since {
            throw StrataError(.undo, "Group \(id) was saved before the document was migrated to its current model (segment \(since)); an undo cannot cross a migration.",
                              context: .init { $0.group = id; $0.boundarySegment = since })
        }
        return try operations(ofGroup: id, inSegments: sequences)
    }

    /// Whether the log ends with group `id`: its segments are the last ones, one after the
    /// other, and hold no other group. Then nothing has changed its records since it was
    /// saved (every change to a document is a segment of its log, docs/FORMAT.md), which
    /// an undo of an import relies on to take the records' values from the group instead
    /// of reading them back (``ContextUndoManager/undoSavingInStore(redo:)``).
    /// - Complexity: a few statements per segment of the group.
    func logEnds(withGroup id: UInt64) throws -> Bool {
        try withOpenState { state in
            let sequences = try LogTables.sequences(state.connection, ofGroup: id)
            guard let first = sequences.first, sequences.last == state.lastSequence,
                  UInt64(sequences.count) == state.lastSequence - first + 1 else { return false }
            for sequence in sequences {
                guard try LogTables.groups(state.connection, of: sequence).map(\.id) == [id] else { return false }
            }
            return true
        }
    }

    /// The last segment sequence applied, and the last one folded into the snapshot.
    public var logPosition: (last: UInt64, compactedThrough: UInt64) {
        get throws { try withOpenState { ($0.lastSequence, $0.meta.compactedThrough) } }
    }

    /// Takes in segments other processes appended since this store last read the log.
    /// Returns the records they touched. Coordinators are told as by ``catchUp()``, which
    /// also says which records were inserted, updated and deleted.
    @discardableResult
    public func refreshFromLog() throws -> Set<ManagedObjectID> {
        let touched = try withOpenState { state in
            try state.catchUp()
        }
        deliverRemoteChanges()
        return touched
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

    /// Rebuilds the stacks as ``restoreUndoHistory()`` does, decoding only segments that
    /// hold several groups: a group alone in its segments reads its operations from the log
    /// when it is reverted (``DocumentStore/historyGroupsReadLater()``). For a caller that
    /// reverts at once inside the write it holds — `strata undo` and `strata redo` — where
    /// nothing can change the log in between; the stacks are the same.
    /// - Complexity: O(groups), and O(bytes) of the segments holding several groups.
    package func restoreUndoHistoryReadingOperationsWhenReverted() throws {
        guard let undoManager else { return }
        var groups: [(info: ChangeGroupInfo, read: () throws -> [ChangeOperation])] = []
        for case let store as DocumentStore in coordinator.persistentStores {
            for (info, operations) in try store.historyGroupsReadLater() {
                switch operations {
                case .decoded(let decoded):
                    groups.append((info, { decoded }))
                case .inSegments(let sequences):
                    groups.append((info, { [weak store] in
                        guard let store else {
                            throw StrataError(.undo, "The document that saved group \(info.id) is closed, so the group cannot be reverted.",
                                              context: .init { $0.group = info.id })
                        }
                        return try store.operations(ofGroup: info.id, inSegments: sequences)
                    }))
                }
            }
        }
        undoManager.restoreHistory(readingLater: groups)
    }
}

/// A restored group's operations: decoded already, or to be read from the segments that
/// hold it (``DocumentStore/historyGroupsReadLater()``).
package enum HistoryOperations {
    case decoded([ChangeOperation])
    case inSegments([UInt64])
}
