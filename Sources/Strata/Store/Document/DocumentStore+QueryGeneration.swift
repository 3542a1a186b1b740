import Foundation

/// A document as one save left it, for a context pinned to that query generation
/// (``ManagedObjectContext/setQueryGenerationFrom(_:)``).
///
/// It owns a read-only SQLite connection of its own with a read transaction open from the
/// moment it is made: SQLite's WAL keeps showing that connection the file as it was then,
/// whatever other connections and processes commit afterwards — saves and compactions
/// alike — and neither side waits for the other. Over that snapshot it builds the overlay
/// of the uncompacted segments up to the generation's save, so its reads are
/// `snapshot ⊕ overlay` exactly as the store's are, frozen at that save.
///
/// `@unchecked Sendable`: the state is only touched under its lock.
final class DocumentGeneration: @unchecked Sendable {
    /// The store it reads a generation of.
    let store: DocumentStore
    /// The save it stands for (the segment sequence; the compaction mark when the log after
    /// it is empty).
    let sequence: UInt64
    private let state: Locked<DocumentState>

    /// Opens the generation of the save with segment sequence `requested`, or of the newest
    /// save in the file when nil.
    /// - Throws: `.invalidArgument` naming the token when the document no longer has that
    ///   generation (a compaction folded later saves into the snapshot tables) or does not
    ///   have it yet; the store's open errors.
    init(store: DocumentStore, requested: UInt64?) throws {
        self.store = store
        // The store must be open (a closed store's file may be gone or changed).
        _ = try store.withOpenState { $0.lastSequence }
        let path = store.url.path
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, flags: [.readOnly], busyTimeout: store.configuration.busyTimeout)
        } catch {
            throw DocumentOpenFailure.describe(error, path: path, busyTimeout: store.configuration.busyTimeout)
        }
        do {
            try connection.setPageCacheSize(store.configuration.pageCacheSize)
            try SQLFunctions.register(on: connection)
            // The first read after BEGIN fixes the snapshot every later read of this
            // connection sees, until ROLLBACK.
            try connection.execute("BEGIN DEFERRED")
            let meta = try DocumentFile.readMeta(connection, path: path, checksIdentity: false)
            var newest = meta.compactedThrough
            if case .integer(let last)? = try connection.prepare("SELECT MAX(seq) FROM strata_segment").rows().first?.first {
                newest = max(newest, UInt64(max(last, 0)))
            }
            let target = requested ?? newest
            if target > newest {
                throw StrataError(
                    .invalidArgument,
                    "The query generation \(target) is not a save of \(path): its newest save is \(newest).",
                    context: .init { $0.path = path; $0.kind = .generationUnknown; $0.token = String(target) })
            }
            if target < meta.compactedThrough {
                throw StrataError(
                    .invalidArgument,
                    "The query generation \(target) is no longer in \(path): compaction folded the saves through \(meta.compactedThrough) into its snapshot, so the document as save \(target) left it cannot be read. Pin to .current, or to a save from \(meta.compactedThrough) on.",
                    context: .init { $0.path = path; $0.kind = .generationCompacted; $0.boundarySegment = meta.compactedThrough; $0.token = String(target) })
            }
            var read = DocumentState(connection: connection, meta: meta, schema: store.schema, model: store.model,
                                     storeTag: store.tag, maxSegmentSize: store.configuration.maxSegmentSize)
            try read.catchUp(from: meta.compactedThrough, through: target)
            read.externalChanges = []
            sequence = target
            state = Locked(read)
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            connection.close()
            throw error
        }
    }

    deinit {
        state.withLock { state in
            if !state.connection.isAutocommit { try? state.connection.execute("ROLLBACK") }
            state.connection.close()
            state.isOpen = false
        }
    }

    /// The token of this generation.
    var token: QueryGenerationToken { QueryGenerationToken(sequence: sequence, storeIdentifier: store.identifier) }

    /// A record's values in this generation; nil when it did not exist then.
    func values(for id: ManagedObjectID) throws -> [PropertyValue]? {
        try state.withLock { try $0.currentValues(id) }
    }

    /// Several records' values in this generation, in the order asked (nil where one did
    /// not exist then), read as ``DocumentStore/values(for:)-([ManagedObjectID])`` reads them.
    func values(for ids: [ManagedObjectID]) throws -> [[PropertyValue]?] {
        try state.withLock { try $0.currentValues(ids) }
    }

    /// The matching records of this generation with their values, in order, within the
    /// window, read as ``DocumentStore/fetchRecords(_:)`` reads them.
    func fetchRecords(_ request: StoreFetchRequest) throws -> [StoreRecord] {
        try state.withLock { state in
            try DocumentFetch(state: state, schema: store.schema, storeTag: store.tag, limits: store.configuration.limits,
                              request: request).records()
        }
    }

    /// The matching records of this generation, in order, within the window.
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        try state.withLock { state in
            try DocumentFetch(state: state, schema: store.schema, storeTag: store.tag, limits: store.configuration.limits,
                              request: request).objectIDs()
        }
    }

    /// The number of matching records of this generation, limit and offset applied.
    func countObjects(_ request: StoreFetchRequest) throws -> Int {
        try state.withLock { state in
            try DocumentFetch(state: state, schema: store.schema, storeTag: store.tag, limits: store.configuration.limits,
                              request: request).count()
        }
    }
}
