import Foundation

extension DocumentStore {
    /// A record's persistent values from the overlay or the snapshot.
    public func values(for objectID: ManagedObjectID) throws -> [PropertyValue]? {
        try withOpenState { try $0.currentValues(objectID) }
    }

    /// Several records' persistent values, in the order asked: the overlay's where it has
    /// them, the others read from the snapshot tables in one statement per table and one
    /// per to-many relationship (docs/ARCHITECTURE.md, "Reads: one pass from SQL to
    /// objects"), under one acquisition of the store's lock.
    public func values(for objectIDs: [ManagedObjectID]) throws -> [[PropertyValue]?] {
        try withOpenState { try $0.currentValues(objectIDs) }
    }

    /// Every record of an entity (and its sub-entities when asked), in ID order.
    public func objectIDs(for entity: EntityDescription, includingSubentities: Bool) throws -> [ManagedObjectID] {
        let entities = includingSubentities ? entity.selfAndDescendants : [entity]
        return try withOpenState { try $0.objectIDs(for: entities) }
    }

    /// Reserves keys above every key any writer of the document has used or reserved,
    /// durably (one small write transaction); inside a held write, in a savepoint of it,
    /// durable when it commits (the writer lock is re-entrant).
    public func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> ClosedRange<Int64> {
        try writing { try withOpenState { try $0.allocateKeys(root: entity.rootEntity.index, name: entity.rootEntity.name, count: count) } }
    }

    /// Appends one segment for the save, giving its temporary group ids permanent ones
    /// inside the write transaction (its records carry permanent IDs: a temporary one is
    /// refused with `.invalidArgument`); compacts afterwards when a threshold is passed.
    @discardableResult
    public func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try writing {
            try withOpenState { state in
                let result = try state.save(request)
                compactIfDue(&state)
                return result
            }
        }
    }

    /// Runs a write while no other thread writes through this store.
    /// - Throws: `.invalidArgument` when the store was opened read-only.
    func writing<T>(_ body: () throws -> T) throws -> T {
        try requireWritable()
        writer.lock()
        activity.tookWriter()
        defer { writer.unlock() }
        return try body()
    }

    /// Compacts when a configured threshold is passed (segments, compressed bytes,
    /// operations, decoded bytes): a bulk save is folded right after it. The save is already
    /// durable and compaction is a transaction of its own, so a failed or interrupted
    /// compaction leaves the saved document as it was; it is retried after the next save.
    func compactIfDue(_ state: inout DocumentState) {
        // Inside a held write the save is not committed yet: compaction waits for the commit.
        guard state.heldWrite == nil, state.isCompactionDue(configuration) else { return }
        _ = try? state.compact(configuration: configuration)
    }

    /// The largest undo group id in the document.
    public func largestGroupID() throws -> UInt64 {
        try withOpenState { $0.largestGroupID }
    }

    /// Folds the uncompacted segments into the snapshot tables now.
    ///
    /// - Parameter progress: called with (done, total) records now and then.
    /// - Complexity: O(records changed since the last compaction).
    @discardableResult
    public func compact(progress: ((Int, Int) -> Void)? = nil) throws -> CompactionReport {
        try writing {
            try withOpenState { state in
                try state.compact(configuration: configuration, progress: progress)
            }
        }
    }

    /// Compacts with another retention policy than the configured one.
    @discardableResult
    public func compact(retention: HistoryRetention, progress: ((Int, Int) -> Void)? = nil) throws -> CompactionReport {
        var settings = configuration
        settings.retention = retention
        return try writing {
            try withOpenState { state in
                try state.compact(configuration: settings, progress: progress)
            }
        }
    }
}

extension DocumentStore {
    /// Refuses a write through a store opened with ``Configuration/isReadOnly``.
    /// - Throws: `.invalidArgument` naming the document.
    func requireWritable() throws {
        guard configuration.isReadOnly else { return }
        throw StrataError(.invalidArgument, "The document \(url.path) is open read-only; nothing can be written to it.",
                          context: .init { $0.path = url.path; $0.kind = .readOnly })
    }
}
