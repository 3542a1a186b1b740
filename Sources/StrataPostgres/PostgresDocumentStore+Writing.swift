import Foundation
import PostgresNIO
import Strata

extension PostgresDocumentStore: HeldWriteSaving {
    /// Runs `body` — a context's whole save, or a batch request — inside one server
    /// transaction holding the document's advisory lock: other writers' segments are
    /// written into the replica first, and the replica's write catches up with them once
    /// as it begins and passes `body` the records they changed (a save finds its conflicts
    /// with them); then what `body` saves is inserted on the server and committed there
    /// before it is committed in the replica.
    ///
    /// A save that did not commit on the server did not happen: nothing of it is applied
    /// locally, and the error says so (`.server` with `context.kind == .notCommitted`).
    /// - Throws: `body`'s error; `.server` naming the server.
    public func performWrite<T>(_ body: (_ changedElsewhere: Set<ManagedObjectID>) throws -> T) throws -> T {
        var saved: Int64?
        defer { if let saved { compactOnServerIfDue(savedThrough: saved) } }
        return try withWriteLock { nested in
            if nested { return try replica.performWrite(body) }
            var finished = false
            defer { if !finished { _ = try? session.query("ROLLBACK") } }
            try notCommittedOnFailure {
                try session.query("BEGIN")
                try PostgresLog.lock(documentID, session)
                try pullFromServerLocked()
            }
            return try replica.performWrite { (changedElsewhere: Set<ManagedObjectID>) in
                let start = try replica.lastStoredSequence()
                let result = try body(changedElsewhere)
                let mine = try replica.storedSegments(after: start)
                try notCommittedOnFailure {
                    if !mine.isEmpty {
                        let counters = try replica.counters()
                        try PostgresLog.append(mine, to: documentID, keys: counters.keys, groups: counters.groups, session)
                    }
                    if let hook = beforeServerCommit { try hook(try session.backendPID()) }
                }
                try commitResolvingDoubt(mine)
                finished = true
                saved = mine.last?.sequence
                return result
            }
        }
    }

    /// Saves through `performWrite` (a direct save gets its own server transaction).
    @discardableResult
    public func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try performWrite { try replica.save(request) }
    }

    /// Runs a batch request as a save: in the replica, inside `performWrite`.
    public func executeBatch(_ request: StoreBatchRequest) throws -> StoreBatchOutcome {
        try performWrite { try replica.executeBatch(request) }
    }

    /// Reserves keys on the server: above every key any writer used or reserved, in one
    /// server transaction holding the document's lock.
    public func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> ClosedRange<Int64> {
        try withWriteLock { nested in
            guard !nested else { return try replica.allocatePrimaryKeys(for: entity, count: count) }
            return try session.transaction {
                try PostgresLog.lock(documentID, session)
                try pullFromServerLocked()
                let range = try replica.allocatePrimaryKeys(for: entity, count: count)
                let counters = try replica.counters()
                try PostgresLog.raiseCounters(documentID, keys: counters.keys, groups: counters.groups, session)
                return range
            }
        }
    }

    /// Writes a context's save into the replica, inside the write the calling thread holds
    /// through `performWrite` (whose server transaction sends it): no lock taken again.
    package func saveInHeldWrite(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try replica.saveInHeldWrite(request)
    }

    /// Reserves keys in the replica, inside the write the calling thread holds through
    /// `performWrite`: the server's counters are raised as that write commits there.
    package func allocatePrimaryKeysInHeldWrite(for entity: EntityDescription, count: Int) throws -> ClosedRange<Int64> {
        try replica.allocatePrimaryKeysInHeldWrite(for: entity, count: count)
    }

    // MARK: Reads: the replica

    /// A record's persistent values, from the replica.
    public func values(for objectID: ManagedObjectID) throws -> [PropertyValue]? {
        try replica.values(for: objectID)
    }

    /// Several records' persistent values, from the replica in one batched read.
    public func values(for objectIDs: [ManagedObjectID]) throws -> [[PropertyValue]?] {
        try replica.values(for: objectIDs)
    }

    /// The matching records with their values, from the replica in one pass.
    public func fetchRecords(_ request: StoreFetchRequest) throws -> [StoreRecord] {
        try replica.fetchRecords(request)
    }

    /// Every record of an entity (and its sub-entities when asked), from the replica.
    public func objectIDs(for entity: EntityDescription, includingSubentities: Bool) throws -> [ManagedObjectID] {
        try replica.objectIDs(for: entity, includingSubentities: includingSubentities)
    }

    /// The largest undo group id the replica has seen.
    public func largestGroupID() throws -> UInt64 {
        try replica.largestGroupID()
    }

    /// The IDs of the matching records, from the replica.
    public func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        try replica.fetchObjectIDs(request)
    }

    /// The number of matching records, from the replica.
    public func countObjects(_ request: StoreFetchRequest) throws -> Int {
        try replica.countObjects(request)
    }

    // MARK: Helpers

    /// Runs `body` holding the write lock; `nested` says this thread already is in a write.
    private func withWriteLock<T>(_ body: (_ nested: Bool) throws -> T) throws -> T {
        writer.lock()
        defer { writer.unlock() }
        guard isOpenLocked else {
            throw StrataError(.invalidArgument, "The document \(input: location.document) on \(location.server) is closed.",
                              context: .init { $0.server = location.server; $0.document = location.document })
        }
        if inWriteLocked { return try body(true) }
        inWriteLocked = true
        defer { inWriteLocked = false }
        return try body(false)
    }

    /// Runs a step of a save on the server: a server failure means the save did not happen.
    /// Commits the save's server transaction. When the connection fails before the server
    /// answers the COMMIT, the save may have committed or not; the store asks the server
    /// (on a new connection, trying for ``inDoubtResolutionTime`` seconds, long enough for
    /// a restart or a failover) whether its first segment is there with its bytes, so that
    /// "did not happen" is only said when true (docs/POSTGRES.md, "Errors").
    /// - Throws: `.server` with `kind` `.notCommitted`: it did not happen, or, when the
    ///   server could not be asked, that it may not have.
    private func commitResolvingDoubt(_ mine: [RemoteSegment]) throws {
        let failure: StrataError
        do {
            try session.query("COMMIT")
            try afterServerCommit?()
            return
        } catch let error as StrataError where error.code == .server && error.context.sqlState == nil && !mine.isEmpty {
            failure = error
        } catch let error as StrataError where error.code == .server {
            throw notCommitted(error)
        }
        // No answer from the server: did the commit happen?
        let deadline = Date().addingTimeInterval(Self.inDoubtResolutionTime)
        var delay = 0.05
        while true {
            do {
                if try PostgresLog.holds(mine[0], document: documentID, session) { return }
                throw notCommitted(failure)
            } catch let error as StrataError where error.code == .server && error.context.kind != .notCommitted
                        && error.context.sqlState == nil {
                guard Date() < deadline else {
                    throw StrataError(.server,
                                      "The connection to \(location.server) was lost as the save committed, and the server could not be asked whether it did, so it may not have happened: if it did, the next catch-up shows it (\(failure.message))",
                                      context: failure.context.with { $0.server = location.server; $0.kind = .notCommitted })
                }
                Thread.sleep(forTimeInterval: delay)
                delay = min(delay * 2, 1)
            }
        }
    }

    /// A server error as the save's "did not happen".
    private func notCommitted(_ error: StrataError) -> StrataError {
        StrataError(.server,
                    "The save was not committed to \(location.server), so it did not happen (nothing was applied locally): \(error.message)",
                    context: error.context.with { $0.server = location.server; $0.kind = .notCommitted })
    }

    private func notCommittedOnFailure(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as StrataError where error.code == .server && error.context.kind != .notCommitted {
            throw notCommitted(error)
        }
    }
}
