import Foundation

/// A Strata document: one SQLite file holding the model, an append-only log of
/// LZ4-compressed segments (one per save) and snapshot tables the segments compact into.
///
/// Reads are `snapshot ⊕ overlay`: the overlay is the net effect of the segments not yet
/// compacted, decoded when the document opens. Opening never reads the snapshot tables;
/// records load on demand.
///
/// ```swift
/// let store = try DocumentStore(creatingAt: url, model: model)
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addStore(store)
/// // ... contexts save into the document ...
/// try store.close()
/// ```
///
/// Thread-safe: every call is serialized on the store's connection.
public final class DocumentStore: PersistentStore {
    /// When the log is compacted and how much history is kept.
    public struct Configuration: Sendable {
        /// Compact after a save once this many segments are uncompacted (default 64; 0 never).
        public var compactionSegmentThreshold = 64
        /// Compact after a save once the uncompacted segments hold this many compressed
        /// bytes (default 8 MiB; 0 never).
        public var compactionByteThreshold = 8 << 20
        /// Compact after a save or batch request once the uncompacted segments hold this
        /// many operations (default 10,000; 0 never). Opening decodes every uncompacted
        /// operation, so this bounds what an open costs: a bulk save of many small rows
        /// compresses far below ``compactionByteThreshold`` and is folded right after it.
        public var compactionOperationThreshold = 10_000
        /// Compact after a save or batch request once the uncompacted segments decode to this
        /// many bytes (default 4 MiB; 0 never): well-compressing values decode to far more
        /// than ``compactionByteThreshold`` counts.
        public var compactionDecodedByteThreshold = 4 << 20
        /// A compaction writing at least this many rows into a table, and at least as many as
        /// it holds, rebuilds the table's indexes instead of updating them row by row
        /// (`SnapshotIndexRebuild`); tests lower it to reach that path with small documents.
        var indexRebuildMinimumRows = SnapshotIndexRebuild.minimumRows
        /// Compact when the document closes (default `true`).
        public var compactsOnClose = true

        /// Turns off compaction after saves and batch requests: sets every threshold
        /// (segments, compressed bytes, operations, decoded bytes) to 0, so the log is folded
        /// only by ``DocumentStore/compact(progress:)`` and, unless it is also turned off,
        /// ``compactsOnClose``.
        ///
        /// ```swift
        /// var configuration = DocumentStore.Configuration()
        /// configuration.turnOffAutomaticCompaction()
        /// configuration.compactsOnClose = false   // compaction only when asked
        /// ```
        public mutating func turnOffAutomaticCompaction() {
            compactionSegmentThreshold = 0
            compactionByteThreshold = 0
            compactionOperationThreshold = 0
            compactionDecodedByteThreshold = 0
        }
        /// Which segments are kept after compaction (default `.all`: full history).
        public var retention: HistoryRetention = .all
        /// How long opening, reading and saving wait for another process's lock before
        /// failing with `.documentBusy`, which names the holding process when the system
        /// says (default 5 s).
        public var busyTimeout: TimeInterval = 5
        /// How durably each save is written (SQLite's `synchronous`): ``Synchronous/full``
        /// (the default) survives power loss, ``Synchronous/normal`` process crashes.
        public var synchronous = Synchronous.full
        /// The largest raw segment body accepted when decoding (default 256 MiB).
        public var maxSegmentSize = SegmentCodec.defaultMaxContentSize
        /// The most memory SQLite's page cache may use, in bytes (default 64 MiB; it grows
        /// only as pages are read). Fetches over a large snapshot re-read pages through
        /// system calls when it is small (SQLite's own default is 2 MiB).
        public var pageCacheSize = 64 << 20
        /// The most memory SQLite's page cache (and its sorter, which rebuilds indexes) may
        /// use while a compaction runs, in bytes (default 16 MiB; never more than
        /// ``pageCacheSize``). A compaction writes each record once, in key order, and
        /// rebuilds indexes by sorting: a larger cache holds pages that are not read again.
        /// The cache is back at ``pageCacheSize`` when the compaction ends.
        public var compactionPageCacheSize = 16 << 20
        /// What fetch predicates are held to before any SQL is built: nesting depth, number
        /// of terms, key path length (default ``StrataLimits/current`` when the
        /// configuration is made; docs/LIMITS.md). The decoded segment size is
        /// ``maxSegmentSize``.
        public var limits = StrataLimits.current

        /// Check the document for damage when it opens and refuse a damaged file with
        /// `.corruptDocument` (default `false`): an open to write runs SQLite's
        /// `PRAGMA integrity_check` and checks the schema entries of Strata's own tables
        /// and every stored segment's checksum against its log and group rows
        /// (`DocumentWriteCheck`); a read-only open runs `PRAGMA quick_check`. Costs about
        /// one pass over the file; the command-line tools turn it on whenever they open a
        /// document to write (docs/RELIABILITY.md, "Damaged documents").
        public var checksIntegrityOnOpen = false

        /// Open the document only to read it (default `false`): SQLite opens the file
        /// read-only, so nothing — not opening, reading or closing — writes to it, and its
        /// bytes and modification time stay as they were. Saves, batch requests, key
        /// allocation and compaction throw `.invalidArgument`. A document whose `DOC-wal`
        /// holds saves no process is folding in (a process stopped before finishing, a full
        /// disk) cannot be read without writing: opening it read-only throws `.io` with
        /// `context.kind == .needsWrite` (open it once to write to finish the job).
        /// `strata-log` and the read-only `strata` commands open documents this way.
        public var isReadOnly = false

        /// Watch the document for other processes' saves (default `false`): every
        /// ``remoteChangePollInterval`` a background timer asks SQLite whether another
        /// connection committed (`PRAGMA data_version`, which costs no more than a page
        /// read) and, when one did, calls ``DocumentStore/catchUp()``, so automatically
        /// merging contexts and their fetched results controllers follow other processes
        /// without saving. The timer stops when the store closes.
        public var watchesForRemoteChanges = false
        /// How often the watcher looks, in seconds (default 0.5); opening throws
        /// `.invalidArgument` when it is not positive.
        public var remoteChangePollInterval: TimeInterval = 0.5

        /// Migrate a document whose stored model differs from the one it is opened with
        /// (default `false`, as a Core Data store added without options;
        /// ``PersistentContainer`` turns it on, as `NSPersistentContainer` does). Only
        /// with ``shouldInferMappingModelAutomatically``: the mapping is always inferred
        /// (``MigrationPlan``, docs/MIGRATION.md).
        public var shouldMigrateStoreAutomatically = false
        /// Infer the mapping of a migration from the two models (default `false`; see
        /// ``shouldMigrateStoreAutomatically``).
        public var shouldInferMappingModelAutomatically = false

        /// The defaults.
        public init() {}

        /// How durably a save is written before it returns (SQLite's `synchronous` setting).
        public enum Synchronous: String, Sendable, Hashable, CaseIterable {
            /// Every commit is synced to the disk: an acknowledged save survives power loss.
            case full = "FULL"
            /// Commits are synced at checkpoints: an acknowledged save survives a process
            /// crash, and the last ones may be lost with power.
            case normal = "NORMAL"
        }
    }

    /// Which segments a compaction keeps.
    public enum HistoryRetention: Sendable, Hashable, CustomStringConvertible {
        /// Every segment: undo across reopen, time travel, audit.
        case all
        /// The last N segments.
        case last(Int)
        /// None: compaction deletes the segments it folded.
        case none

        /// `all`, `none` or the number.
        public var description: String {
            switch self {
            case .all: return "all"
            case .none: return "none"
            case .last(let count): return String(count)
            }
        }

        /// Parses `all`, `none` or a number.
        public init?(_ text: String) {
            switch text.lowercased() {
            case "all": self = .all
            case "none": self = .none
            default:
                guard let count = Int(text), count >= 0 else { return nil }
                self = count == 0 ? .none : .last(count)
            }
        }
    }

    /// The file.
    public let url: URL
    /// The store identifier written in the document.
    public let identifier: String
    /// Nil: documents hold every entity of their model.
    public let configurationName: String? = nil
    /// The model.
    public let model: ManagedObjectModel
    /// The settings it was opened with.
    public let configuration: Configuration

    let schema: SnapshotSchema
    let state: Locked<DocumentState>
    /// Held by whatever writes through this store — a context's whole save
    /// (`performWrite`), a direct save, a compaction, a batch request, closing — so
    /// that no thread's write lands inside another's transaction. Recursive: a direct save,
    /// batch request or nested `performWrite` inside `performWrite` takes it again on the
    /// same thread (a context's save does not: ``HeldWriteSaving``).
    let writer = NSRecursiveLock()
    /// How often the locks were taken (tests count them).
    package let activity = DocumentActivity()
    /// The log position and compaction mark at open: a close after either moved writes
    /// the identity checksum into a document that predates it.
    let openedAt: (sequence: UInt64, compactedThrough: UInt64)
    /// The coordinators told of other connections' saves, and the watcher's timer.
    let remoteChanges = RemoteChangeWatch()

    /// The newest format version of the document file this Strata reads and writes: 3, format
    /// 2 (the snapshot tables leave out `_entity` where the hierarchy has one entity, and
    /// `_version`; docs/FORMAT.md §11) plus runs of undo groups (§20) and packed texts in the
    /// snapshot (§21). New documents are created in format 2 and take format 3 with the first
    /// write that stores either; documents of format 1 keep their layout and open as before.
    public static let formatVersion = 3

    // MARK: Opening

    /// Creates a new, empty document.
    /// - Throws: `.io` when the file exists and `overwrite` is false; SQLite errors.
    ///
    /// The document is built beside `url` and moved into place only once complete, so a
    /// process killed while creating it never leaves a half-made file at `url`.
    public convenience init(creatingAt url: URL, model: ManagedObjectModel, overwrite: Bool = false,
                            configuration: Configuration = Configuration()) throws {
        try self.init(creatingAt: url, model: model, overwrite: overwrite, configuration: configuration,
                      identity: (UUID().uuidString, nil))
    }

    /// Creates a new document with a given identity (recovery rebuilds a document under
    /// its old store identifier and creation date, so every URI stays valid).
    convenience init(creatingAt url: URL, model: ManagedObjectModel, overwrite: Bool, configuration: Configuration,
                     identity: (identifier: String, createdAt: String?)) throws {
        let manager = FileManager.default
        func exists() -> StrataError {
            StrataError(.io, "\(url.path) already exists (pass overwrite to replace it).", context: .init { $0.path = url.path })
        }
        if manager.fileExists(atPath: url.path), !overwrite { throw exists() }
        let building = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).creating-\(UUID().uuidString)")
        func removeBuilding() {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? manager.removeItem(atPath: building.path + suffix) }
        }
        do {
            let connection = try Self.connect(building, configuration: configuration, create: true)
            defer { connection.close() }
            try DocumentFile.create(on: connection, model: model, identifier: identity.identifier, createdAt: identity.createdAt)
            try connection.execute("PRAGMA journal_mode=DELETE")   // one complete file to move
            // WAL is recorded in the file header, so opening never has to switch modes (a
            // switch would change the bytes of a document that is only read).
            try connection.execute("PRAGMA journal_mode=WAL")
        } catch {
            removeBuilding()
            throw error
        }
        if overwrite {
            for suffix in ["-wal", "-shm", "-journal"] { try? manager.removeItem(atPath: url.path + suffix) }
            guard rename(building.path, url.path) == 0 else {
                removeBuilding()
                throw StrataError(.io, "Cannot move the new document to \(url.path) (errno \(errno)).", context: .init { $0.path = url.path })
            }
        } else if link(building.path, url.path) == 0 {
            removeBuilding()
        } else {
            let code = errno
            guard code != EEXIST else {
                removeBuilding()
                throw exists()
            }
            do {
                try manager.moveItem(at: building, to: url)   // file systems without hard links
            } catch {
                removeBuilding()
                throw StrataError(.io, "Cannot move the new document to \(url.path): \(error.localizedDescription)", context: .init { $0.path = url.path })
            }
        }
        try self.init(openingAt: url, model: model, configuration: configuration)
    }

    /// Opens an existing document with the application's model.
    /// - Throws: `.io` "There is no document" only when the file does not exist, `.io`
    ///   naming a full disk or a permission problem; `.documentBusy` after
    ///   `busyTimeout`, naming the holding process when the system says;
    ///   `.corruptDocument` when the file is not a Strata document, or is one that is
    ///   damaged (SQLite cannot read it, its identity fails its checksum, or
    ///   `checksIntegrityOnOpen` found damaged pages; the message advises
    ///   `strata-log verify`, then `strata-log recover`); `.modelIncompatible` when the
    ///   model differs from the one that created it; `.corruptSegment` naming the segment
    ///   and offset when the log is damaged.
    public convenience init(openingAt url: URL, model: ManagedObjectModel,
                            configuration: Configuration = Configuration()) throws {
        try DocumentOpenFailure.requireFile(url.path)
        if configuration.shouldMigrateStoreAutomatically, configuration.shouldInferMappingModelAutomatically,
           !configuration.isReadOnly, try Self.storedModel(at: url, configuration: configuration).versionHash != model.versionHash {
            try Self.migrate(at: url, to: model, configuration: configuration)
        }
        let connection = try Self.connect(url, configuration: configuration, create: false)
        do {
            try self.init(url: url, model: model, connection: connection, configuration: configuration)
        } catch {
            connection.close()
            throw error
        }
    }

    /// Opens an existing document with the model stored inside it (for tools that have no
    /// application model).
    public convenience init(openingAt url: URL, configuration: Configuration = Configuration()) throws {
        let model = try Self.storedModel(at: url, configuration: configuration)
        try self.init(openingAt: url, model: model, configuration: configuration)
    }

    /// The model stored in a document.
    /// - Throws: `.corruptDocument` when the file is not a Strata document.
    public static func storedModel(at url: URL, configuration: Configuration = Configuration()) throws -> ManagedObjectModel {
        try DocumentOpenFailure.requireFile(url.path)
        var probing = configuration
        probing.checksIntegrityOnOpen = false   // the open that follows checks
        let connection = try connect(url, configuration: probing, create: false)
        defer { connection.close() }
        let meta = try DocumentFile.readMeta(connection, path: url.path)
        return try meta.model()
    }

    private init(url: URL, model: ManagedObjectModel, connection: SQLiteConnection, configuration: Configuration) throws {
        self.url = url
        self.model = model
        self.configuration = configuration
        // The meta, the snapshot and the log are read as one version of the file: a
        // compaction another process commits in between would otherwise have the segments
        // it folded applied a second time over the snapshot that now holds them.
        let (meta, schema, read) = try connection.transaction(.deferred) { () throws -> (DocumentFile.Meta, SnapshotSchema, DocumentState) in
            let meta = try DocumentFile.readMeta(connection, path: url.path)
            Self.takeOpenHook(url.path)?()
            guard meta.modelHash == model.versionHash else {
                throw StrataError(
                    .modelIncompatible,
                    "Model incompatible with the one used to create the store at \(url.path) (stored model hash \(meta.modelHash.prefix(12)), given \(model.versionHash.prefix(12))); migration was not allowed: set Configuration.shouldMigrateStoreAutomatically and shouldInferMappingModelAutomatically, or run strata migrate.",
                    context: .init { $0.path = url.path })
            }
            let schema = try SnapshotSchema(model: model, layout: SnapshotSchema.Layout(documentFormat: meta.formatVersion))
            if configuration.checksIntegrityOnOpen, !configuration.isReadOnly {
                try DocumentWriteCheck.checkSnapshotLayout(schema, connection, path: url.path, formatVersion: meta.formatVersion)
            }
            var initial = DocumentState(connection: connection, meta: meta, schema: schema, model: model,
                                        storeTag: StoreRegistry.tag(for: meta.identifier), maxSegmentSize: configuration.maxSegmentSize)
            try initial.catchUp(from: meta.compactedThrough)
            return (meta, schema, initial)
        }
        var initial = read
        identifier = meta.identifier
        self.schema = schema
        // Opening reads the document as it is: nothing in it is news to a context yet.
        initial.externalChanges = []
        openedAt = (initial.lastSequence, meta.compactedThrough)
        state = Locked(initial)
        if !configuration.isReadOnly { try addMissingIndexes() }
        if !configuration.isReadOnly { foldLeftoverLog() }
        try startWatchingIfConfigured()
    }

    /// Folds a log that is already over a compaction threshold when the document opens: one
    /// saved before the thresholds by operations and decoded size existed, or whose fold
    /// after a bulk save was interrupted. Without it every open would decode that log again
    /// until the next save. A failure leaves the document as it was (compaction is a
    /// transaction of its own); the next save tries again.
    private func foldLeftoverLog() {
        _ = try? writing { try withOpenState { compactIfDue(&$0) } }
    }

    /// Test seam: run once by the next open of the file at a path, right after it read the
    /// meta (so a test can commit a compaction from another connection at that moment).
    package static let openHooks = Locked<[String: @Sendable () -> Void]>([:])

    private static func takeOpenHook(_ path: String) -> (@Sendable () -> Void)? {
        openHooks.withLock { $0.isEmpty ? nil : $0.removeValue(forKey: path) }
    }

    /// Compacts (when configured) and closes the document, leaving a single file.
    /// Further use throws `.invalidArgument`.
    /// - Throws: `.io` with `context.kind == .checkpointIncomplete` when every save
    ///   committed but the log could not be folded back into the main file (a full disk):
    ///   the changes are safe in `DOC-wal`, and the next open or close finishes the job.
    public func close() throws {
        remoteChanges.stop()
        writer.lock()
        defer { writer.unlock() }
        try state.withLock { state in
            guard state.isOpen else { return }
            if configuration.isReadOnly {
                state.connection.close()
                state.isOpen = false
                Self.finishReadOnly(url)
                return
            }
            if configuration.compactsOnClose, !state.overlay.isEmpty {
                _ = try state.compact(configuration: configuration)
            }
            if state.meta.identityChecksum == nil,
               state.lastSequence != openedAt.sequence || state.meta.compactedThrough != openedAt.compactedThrough {
                try? DocumentFile.writeIdentityChecksum(state.connection)
            }
            let unfinished = DocumentCheckpoint.finish(state.connection, path: url.path)
            state.connection.close()
            state.isOpen = false
            if let unfinished { throw unfinished }
        }
    }

    deinit {
        remoteChanges.stop()
        state.withLock { state in
            if state.isOpen {
                if !configuration.isReadOnly { try? state.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
                state.connection.close()
                state.isOpen = false
                if configuration.isReadOnly { Self.finishReadOnly(url) }
            }
        }
    }

    func withOpenState<T>(_ body: (inout DocumentState) throws -> T) throws -> T {
        while true {
            let outcome: Result<T, any Error>? = state.withLock { state in
                activity.tookState()
                guard state.isOpen else {
                    return .failure(StrataError(.invalidArgument, "The document \(url.path) is closed.", context: .init { $0.path = url.path }))
                }
                // Another thread's batch insert has uncommitted rows in the snapshot tables
                // (``BatchFold``), which this connection would show: wait for its write to end.
                guard !state.mustWaitForFold else { return nil }
                return Result {
                    do { return try body(&state) } catch {
                        // A read that fails on tables another process's migration replaced
                        // says so (and what to do) instead of SQLite's "no such column".
                        do { try state.checkNotMigratedElsewhere() } catch let migrated as StrataError where migrated.code == .modelIncompatible {
                            throw migrated
                        } catch {}
                        throw error
                    }
                }
            }
            if let outcome { return try outcome.get() }
            writer.lock()
            writer.unlock()
        }
    }
}
