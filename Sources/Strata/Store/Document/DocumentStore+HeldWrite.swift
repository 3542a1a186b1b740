import Foundation

extension DocumentStore {
    /// Runs `body` — a context's whole save: catching up, finding and resolving conflicts,
    /// writing — inside one write transaction of the document, committed when `body`
    /// returns and rolled back when it throws.
    ///
    /// No other connection or process can write between the catch-up and the write, so a
    /// save never races another process's save and never has to try again; and no other
    /// thread of this process writes through this store meanwhile. Saves made inside
    /// change the overlay only once the transaction commits.
    ///
    /// - Throws: `body`'s error; `.invalidArgument` when the store is read-only;
    ///   `.documentBusy` when another process holds the document's
    ///   write lock longer than ``Configuration/busyTimeout``; SQLite errors from COMMIT.
    public func performWrite<T>(_ body: () throws -> T) throws -> T {
        try requireWritable()
        writer.lock()
        defer { writer.unlock() }
        if try withOpenState({ $0.heldWrite != nil }) { return try body() }
        try withOpenState { state in
            try state.connection.execute("BEGIN IMMEDIATE TRANSACTION")
            state.heldWrite = DocumentState.HeldWrite()
        }
        let result: T
        do {
            result = try body()
            try withOpenState { state in
                try state.commitHeldWrite()
                compactIfDue(&state)
            }
        } catch {
            state.withLock { $0.rollBackHeldWrite() }
            throw error
        }
        return result
    }
}

extension DocumentState {
    /// Commits the held write and applies what its writes saved.
    mutating func commitHeldWrite() throws {
        guard let held = heldWrite else { return }
        if let fold = held.fold { try finishFold(fold) }
        try connection.commit()
        heldWrite = nil
        for patch in held.patches { overlay.merge(patch) }
        for apply in held.afterCommit { apply(&self) }
        if held.fold != nil { completeFold() }
    }

    /// Rolls the held write back: nothing it wrote stays, in the file or in memory. What
    /// catch-ups read inside it stays (those segments were committed by others).
    mutating func rollBackHeldWrite() {
        guard let held = heldWrite else { return }
        heldWrite = nil
        if !connection.isAutocommit { try? connection.execute("ROLLBACK TRANSACTION") }
        // The snapshot is back as it was, so the overlay folded into it is too.
        if let fold = held.fold { overlay = fold.overlayBefore }
        if let sequence = held.sequenceBeforeOwnWrite { lastSequence = sequence }
    }
}
