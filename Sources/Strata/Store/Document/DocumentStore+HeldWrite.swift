import Foundation

extension DocumentStore {
    /// Runs `body` — a context's whole save: finding and resolving conflicts, writing —
    /// inside one write transaction of the document, committed when `body` returns and
    /// rolled back when it throws.
    ///
    /// The write catches up with the segments other connections appended once, right after
    /// `BEGIN IMMEDIATE` — which no other connection or process can hold at the same time —
    /// and passes `body` the records they changed or deleted (with those earlier catch-ups
    /// found since a write last asked). Nothing can land between that catch-up and the
    /// save's write, so a save never races another process's save; and no other thread of
    /// this process writes through this store meanwhile. Saves made inside change the
    /// overlay only once the transaction commits. A call nested in the same thread's write
    /// runs `body` in it, with what the outer call caught up with.
    ///
    /// - Throws: `body`'s error; `.invalidArgument` when the store is read-only;
    ///   `.documentBusy` when another process holds the document's
    ///   write lock longer than ``Configuration/busyTimeout``; `.corruptSegment` from the
    ///   catch-up; SQLite errors from COMMIT.
    public func performWrite<T>(_ body: (_ changedElsewhere: Set<ManagedObjectID>) throws -> T) throws -> T {
        try requireWritable()
        writer.lock()
        activity.tookWriter()
        defer { writer.unlock() }
        // One acquisition of the state lock begins the write and catches up.
        let (began, changedElsewhere) = try withOpenState { state in
            if let held = state.heldWrite { return (false, held.changedElsewhere) }
            try state.beginHeldWrite()
            return (true, state.heldWrite?.changedElsewhere ?? [])
        }
        guard began else { return try body(changedElsewhere) }
        let result: T
        do {
            result = try body(changedElsewhere)
            try withOpenState { state in
                try state.commitHeldWrite()
                compactIfDue(&state)
            }
        } catch {
            state.withLock { state in
                activity.tookState()
                state.rollBackHeldWrite()
            }
            throw error
        }
        return result
    }

    /// Writes a context's save inside the write this thread holds (`performWrite`, taken by
    /// the coordinator's save lock): the writer lock and the catch-up are the held
    /// write's, so this takes the state lock only.
    /// - Throws: `.invalidArgument` when no write is held; the save's errors.
    package func saveInHeldWrite(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try withOpenState { state in
            guard state.heldWrite != nil else {
                throw StrataError(.invalidArgument, "A save inside a held write was made outside one (document \(url.path)).",
                                  context: .init { $0.path = url.path })
            }
            return try state.save(request)
        }
    }

    /// Reserves keys inside the write this thread holds (`performWrite`), in a savepoint of
    /// its transaction: the writer lock is the held write's, so this takes the state lock
    /// only.
    /// - Throws: `.invalidArgument` when no write is held; SQLite errors.
    package func allocatePrimaryKeysInHeldWrite(for entity: EntityDescription, count: Int) throws -> ClosedRange<Int64> {
        try withOpenState { state in
            guard state.heldWrite != nil else {
                throw StrataError(.invalidArgument, "A reservation inside a held write was made outside one (document \(url.path)).",
                                  context: .init { $0.path = url.path })
            }
            return try state.allocateKeys(root: entity.rootEntity.index, name: entity.rootEntity.name, count: count)
        }
    }
}

extension DocumentState {
    /// Begins the held write: `BEGIN IMMEDIATE`, then the write's one catch-up, whose
    /// changed records (with those earlier catch-ups found) the write hands to its body.
    mutating func beginHeldWrite() throws {
        try connection.execute("BEGIN IMMEDIATE TRANSACTION")
        do {
            try catchUp()
        } catch {
            try? connection.execute("ROLLBACK TRANSACTION")
            throw error
        }
        heldWrite = HeldWrite(changedElsewhere: externalChanges)
        externalChanges.removeAll()
    }

    /// Commits the held write and applies what its writes saved.
    mutating func commitHeldWrite() throws {
        guard let held = heldWrite else { return }
        if let fold = held.fold { try finishFold(fold) }
        try connection.commit()
        heldWrite = nil
        // Durable now; the `afterCommit` updates below drop the ones the write spent.
        for (root, ranges) in held.reservations where !ranges.isEmpty { unwrittenReservations[root, default: []] += ranges }
        for patch in held.patches { overlay.merge(patch) }
        for apply in held.afterCommit { apply(&self) }
        if held.fold != nil { completeFold() }
    }

    /// Rolls the held write back: nothing it wrote stays, in the file or in memory. What
    /// catch-ups read inside it stays (those segments were committed by others), and the
    /// records they changed are reported to the next write.
    mutating func rollBackHeldWrite() {
        guard let held = heldWrite else { return }
        heldWrite = nil
        externalChanges.formUnion(held.changedElsewhere)
        // Keys reserved inside it are not reserved: the next write hands them out again.
        if let counters = held.countersBeforeReservations {
            keyCounters = counters.keys
            meta.keyCounters = counters.meta
        }
        if !connection.isAutocommit { try? connection.execute("ROLLBACK TRANSACTION") }
        // The snapshot is back as it was, so the overlay folded into it is too.
        if let fold = held.fold { overlay = fold.overlayBefore }
        if let sequence = held.sequenceBeforeOwnWrite { lastSequence = sequence }
    }
}

extension DocumentStore: HeldWriteSaving {}
