import CSQLite
import Foundation

extension SQLiteConnection {
    /// How a transaction takes its locks (`BEGIN DEFERRED | IMMEDIATE | EXCLUSIVE`).
    package enum TransactionKind: String, Sendable {
        /// Locks are taken by the first read or write (SQLite's default).
        case deferred = "DEFERRED"
        /// The write lock is taken at once: a save fails early when another writer is active.
        case immediate = "IMMEDIATE"
        /// No other connection may read or write until the transaction ends.
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` inside a transaction that commits when it returns and rolls back when it
    /// throws (the error is rethrown).
    ///
    /// ```swift
    /// try connection.transaction(.immediate) {
    ///     try connection.prepare("INSERT INTO t(x) VALUES (1)").run()
    /// }
    /// ```
    /// - Parameters:
    ///   - kind: How locks are taken; default `.deferred`.
    ///   - body: The work; use ``savepoint(_:)`` for a nested scope.
    /// - Throws: `body`'s error, or ``StrataError`` `.sqlite` / `.documentBusy` when BEGIN or
    ///   COMMIT fails (a failed COMMIT is rolled back), or `.invalidArgument` when a
    ///   transaction is already open.
    package func transaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        guard isAutocommit else {
            throw StrataError(.invalidArgument,
                              "A transaction is already open on this connection; use savepoint { } to nest.",
                              context: .init { $0.path = path })
        }
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        let result: T
        do {
            result = try body()
            try commit()
        } catch {
            rollbackIfOpen()
            throw error
        }
        return result
    }

    /// Runs `body` inside a savepoint: released when it returns, rolled back to (and
    /// released) when it throws. Works inside or outside a transaction.
    ///
    /// ```swift
    /// try connection.transaction {
    ///     try connection.savepoint { try riskyStep() }   // undone alone if it throws
    /// }
    /// ```
    /// - Throws: `body`'s error, or ``StrataError`` `.sqlite` when the savepoint commands fail.
    package func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointCounter += 1
        let name = "strata_savepoint_\(savepointCounter)"
        try execute("SAVEPOINT \(name)")
        let result: T
        do {
            result = try body()
            try execute("RELEASE SAVEPOINT \(name)")
        } catch {
            // When SQLite already rolled back the whole transaction the savepoint is gone.
            try? execute("ROLLBACK TO SAVEPOINT \(name)")
            try? execute("RELEASE SAVEPOINT \(name)")
            throw error
        }
        return result
    }

    /// Commits the open transaction.
    ///
    /// A COMMIT that fails after writing its frames to the WAL (its sync failed) leaves
    /// them there beyond the WAL's last valid commit: SQLite rolls the transaction back,
    /// but if the process died before the next write or checkpoint overwrote them, the
    /// next open would recover them and bring back a save that was reported failed. So
    /// after a failed COMMIT the WAL is checkpointed and truncated at once, without
    /// waiting for other connections (best effort: their readers keep the WAL, and a
    /// failing disk may refuse the truncate).
    /// - Throws: the COMMIT's error, after the transaction is rolled back.
    package func commit() throws {
        do {
            try execute("COMMIT TRANSACTION")
        } catch {
            rollbackIfOpen()
            if let handle, isAutocommit {
                sqlite3_busy_timeout(handle, 0)
                _ = try? prepare("PRAGMA wal_checkpoint(TRUNCATE)").rows()
                sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
            }
            throw error
        }
    }

    /// Rolls back the open transaction, if SQLite has not done so already.
    private func rollbackIfOpen() {
        guard !isAutocommit else { return }
        try? execute("ROLLBACK TRANSACTION")
    }
}
