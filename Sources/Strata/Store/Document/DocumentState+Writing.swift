import Foundation

extension DocumentState {
    /// Appends one segment for the request in one transaction, giving its temporary group
    /// ids permanent ones; the overlay changes only once the transaction committed. Its
    /// records carry permanent IDs already: a temporary one is refused
    /// (docs/ARCHITECTURE.md, "When new objects get their keys").
    ///
    /// Inside a held write (a context's save) the write's catch-up at its start already took
    /// in every other writer's saves. A save of its own (a direct ``DocumentStore/save(_:)``,
    /// a batch request outside a held write) catches up inside its transaction first.
    /// - Throws: `.invalidArgument` for a temporary object ID; `.mergeConflict` when a save
    ///   of its own finds that another connection changed records it changes since the
    ///   caller read them (the caller's answer: catch up and save again); `.corruptDocument`
    ///   when it inserts a record that exists; `.documentBusy`; SQLite errors. Nothing is
    ///   written then.
    mutating func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        var request = request
        var result = StoreSaveResult()
        var patch = OverlayPatch()
        var sequence: UInt64 = 0
        var bodySize = 0
        var rawSize = 0
        var operationCount = 0
        var segmentCount = 0
        var counters = keyCounters
        var largestGroup = largestGroupID
        var formatVersion = meta.formatVersion
        func write() throws {
            if heldWrite == nil { try refuseForeignChanges(to: request) }
            // Group ids are handed out here, inside the write transaction and after the
            // catch-up: every other writer's saves are visible, and no other writer can
            // hand out anything until this transaction ends.
            let stored = try DocumentFile.readCounters(connection)
            counters = keyCounters
            largestGroup = max(largestGroupID, stored.groups)
            for root in model.entities where root.superentity == nil {
                if let saved = stored.keys[root.name], saved > counters[root.index] ?? 0 { counters[root.index] = saved }
            }
            patch = OverlayPatch(knownKeys: counters, reservations: reservationsToSpend, model: model)
            result = try request.assignPermanentGroupIDs {
                largestGroup += 1
                return largestGroup
            }
            // Decided here, where every other writer's saves are visible: an undo or redo of
            // a group someone already reverted is refused (RevertPrecondition).
            try RevertPrecondition.check(request.groups, connection: connection)
            for index in request.groups.indices {
                let gone = try apply(request.groups[index].operations, to: &patch)
                if !gone.isEmpty {
                    let dropped = Set(gone)
                    request.groups[index].operations = request.groups[index].operations.enumerated()
                        .filter { !dropped.contains($0.offset) }.map(\.element)
                }
                largestGroup = max(largestGroup, request.groups[index].id)
            }
            patch.writeTextStrings()
            // One segment, or several when the save is larger than one may be (each read
            // back under maxSegmentSize): all in this transaction, so readers see all or none.
            bodySize = 0
            rawSize = 0
            operationCount = 0
            segmentCount = try SavedSegments.encode(
                request.groups, from: lastSequence + 1, timestamp: request.timestamp, author: request.author,
                contextName: request.contextName, model: model, limit: maxSegmentSize
            ) { piece in
                let record = SegmentRecord(sequence: piece.segment.sequence, timestamp: request.timestamp,
                                           groupCount: piece.segment.groups.count, operationCount: piece.segment.operationCount,
                                           rawSize: piece.rawSize, body: piece.frame, isCompacted: false)
                // A typing session's groups, one per word or so, take a row per segment
                // instead of one each (docs/FORMAT.md §20): in a segment with text edits,
                // which a Strata before format 3 could not read anyway.
                let runs = formatVersion >= DocumentFile.createdFormatVersion && piece.segment.hasTextEdits
                if try LogTables.append(connection, record, groups: piece.segment.groups.map(\.info), runs: runs),
                   formatVersion < DocumentFile.packedFormatVersion {
                    try DocumentFile.raiseToPackedFormat(connection)
                    formatVersion = DocumentFile.packedFormatVersion
                }
                sequence = piece.segment.sequence
                bodySize += piece.frame.count
                rawSize += piece.rawSize
                operationCount += piece.segment.operationCount
            }
            for (root, key) in patch.largestInsertedKey(in: model) where key > counters[root] ?? 0 { counters[root] = key }
            for root in model.entities where root.superentity == nil {
                guard let key = counters[root.index], key > (stored.keys[root.name] ?? 0) else { continue }
                try DocumentFile.writeMeta(connection, key: "keyCounter.\(root.name)", .integer(key))
            }
            // A batch insert folding as it goes: the rows go to the snapshot, not the overlay.
            if heldWrite?.fold != nil { try fold(rows: patch.rows, deleted: patch.deleted) }
        }
        try Self.inWriteTransaction(connection, held: heldWrite != nil, write)
        // The overlay's rows, shared (not copied) with the saving context's objects.
        result.savedRows = patch.rows
        let spent = patch.usedReservations
        // Spent inside the held write: a later save of the write (the next chunk of a batch
        // insert) must look its keys up again.
        if heldWrite != nil {
            for (root, lowerBounds) in spent { heldWrite?.reservations[root]?.removeAll { lowerBounds.contains($0.lowerBound) } }
        }
        let committed: (inout DocumentState) -> Void = { [sequence, segmentCount, bodySize, rawSize, operationCount, counters, largestGroup, formatVersion] state in
            state.meta.formatVersion = max(state.meta.formatVersion, formatVersion)
            for (root, lowerBounds) in spent { state.unwrittenReservations[root]?.removeAll { lowerBounds.contains($0.lowerBound) } }
            state.lastSequence = max(state.lastSequence, sequence)
            state.uncompactedSegments += segmentCount
            state.uncompactedBytes += bodySize
            state.uncompactedOperations += operationCount
            state.uncompactedDecodedBytes += rawSize
            for (root, key) in counters { state.keyCounters[root] = max(state.keyCounters[root] ?? 0, key) }
            state.largestGroupID = max(state.largestGroupID, largestGroup)
            for root in state.model.entities where root.superentity == nil {
                if let key = counters[root.index] { state.meta.keyCounters[root.name] = max(state.meta.keyCounters[root.name] ?? 0, key) }
            }
        }
        // Under a held write the overlay changes only once the context's whole save commits.
        if heldWrite != nil {
            // A catch-up before the commit must not take this segment for another's.
            let before = heldWrite?.sequenceBeforeOwnWrite ?? lastSequence
            heldWrite?.sequenceBeforeOwnWrite = before
            lastSequence = sequence
            heldWrite?.afterCommit.append(committed)
            if heldWrite?.fold == nil {
                heldWrite?.patches.append(patch)
                heldWrite?.pending.add(segmentOf: bodySize, decoded: rawSize, operations: operationCount, segments: segmentCount)
            }
        } else {
            overlay.merge(patch)
            committed(&self)
        }
        return result
    }

    /// Applies a group's operations to the write's patch; returns the positions of the
    /// deletes it leaves out. Deleted on both sides (another writer deleted the record after
    /// this context read it): nothing to write, and the log never deletes a record that is
    /// not there, which replay and verify refuse.
    ///
    /// A method of its own, called once per group: called inside `save`'s `write` closure,
    /// which holds `self` inout, each `apply` took a copy of the whole state (a retain of
    /// every reference it holds) per operation (docs/ARCHITECTURE.md, "A plain CSV goes
    /// from bytes to slots").
    private func apply(_ operations: [ChangeOperation], to patch: inout OverlayPatch) throws -> [Int] {
        var gone: [Int] = []
        // Which of the records the group deletes exist before it, asked in batches
        // (DocumentState+Existence): the patch's own operations are seen below.
        let deletedIDs = operations.compactMap { operation -> ManagedObjectID? in
            if case .delete(let id, _) = operation { id } else { nil }
        }
        let existing = deletedIDs.isEmpty ? [] : try existingInWrite(deletedIDs)
        // So are the records it inserts whose keys may name one (a redo of an undone
        // import inserts its records again): one lookup each cost the redo of 1,000,000
        // rows a sixth of its time (docs/ARCHITECTURE.md, "Undo").
        let insertedIDs = operations.compactMap { operation -> ManagedObjectID? in
            if case .insert(let id, _) = operation, patch.mayNameExisting(id) { id } else { nil }
        }
        let existingInserted = insertedIDs.isEmpty ? [] : try existingInWrite(insertedIDs)
        for position in operations.indices {
            if case .delete(let id, _) = operations[position], try !patch.holds(id, existing: { existing.contains($0) }) {
                gone.append(position)
                continue
            }
            try apply(operations[position], to: &patch, inWrite: true, existing: { existingInserted.contains($0) })
        }
        return gone
    }

    /// A save of its own catches up inside its transaction; a record it changes that
    /// another connection changed since this one last read the log is refused.
    /// - Throws: `.mergeConflict` naming those records.
    private mutating func refuseForeignChanges(to request: StoreSaveRequest) throws {
        let foreign = try catchUp()
        guard !foreign.isEmpty else { return }
        let mine = Set(request.groups.flatMap { $0.operations.map(\.objectID) })
        let clashes = mine.intersection(foreign).sorted()
        guard !clashes.isEmpty else { return }
        throw StrataError(
            .mergeConflict,
            "Another process changed \(clashes.count) of the records this save changes: \(clashes.prefix(5).map(\.description).joined(separator: ", ")).",
            context: .init { $0.objects = clashes.map(\.description) })
    }

    /// Runs `write` in the write transaction a context's save holds (`DocumentStore.performWrite`),
    /// else in a transaction of its own.
    static func inWriteTransaction(_ connection: SQLiteConnection, held: Bool, _ write: () throws -> Void) throws {
        if held {
            // Within the held transaction: a failure undoes only this write's statements.
            try connection.savepoint(write)
        } else {
            try connection.transaction(.immediate, write)
        }
    }

    /// Reserves keys above every key handed out or seen by any writer of the file, durably:
    /// in one write transaction it reads the counter saved in `strata_meta` (which every
    /// save and reservation moves) and writes it past the reserved keys, so no other
    /// connection or process can be given them (``ManagedObjectContext/obtainPermanentIDs(for:)``).
    mutating func allocateKeys(root: Int, name: String, count: Int) throws -> ClosedRange<Int64> {
        // Inside a held write the counters go back if it rolls back (`rollBackHeldWrite`),
        // and the records that took the keys take temporary IDs again
        // (`ManagedObjectContext.takeBackPermanentIDs`).
        if heldWrite != nil, heldWrite?.countersBeforeReservations == nil {
            heldWrite?.countersBeforeReservations = (keyCounters, meta.keyCounters)
        }
        var counters = keyCounters
        var range: ClosedRange<Int64> = 1...1
        try Self.inWriteTransaction(connection, held: heldWrite != nil) {
            if let saved = try DocumentFile.readCounters(connection).keys[name], saved > counters[root] ?? 0 { counters[root] = saved }
            range = counters.reserveKeys(root: root, count: count)
            try DocumentFile.writeMeta(connection, key: "keyCounter.\(name)", .integer(range.upperBound))
        }
        keyCounters = counters
        meta.keyCounters[name] = range.upperBound
        // Only once durable: a reservation inside a held write may still be rolled back, so
        // it joins the others when the write commits (`commitHeldWrite`). Until then the
        // write's own saves use it (a context's save reserves its keys there).
        if heldWrite == nil {
            unwrittenReservations[root, default: []].append(range)
        } else {
            heldWrite?.reservations[root, default: []].append(range)
        }
        return range
    }

    /// The key ranges reserved and not yet written that an insert may take without a
    /// lookup: the durable ones and those reserved inside the held write.
    private var reservationsToSpend: [Int: [ClosedRange<Int64>]] {
        guard let held = heldWrite?.reservations, !held.isEmpty else { return unwrittenReservations }
        return unwrittenReservations.merging(held) { $0 + $1 }
    }
}
