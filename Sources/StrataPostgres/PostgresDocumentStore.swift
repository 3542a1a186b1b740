import Foundation
import PostgresNIO
import Strata

/// A document shared through PostgreSQL: its segments are rows of `strata_segments` on a
/// server, and any number of stores — in other processes, on other machines — open it and
/// save into it at once (docs/POSTGRES.md).
///
/// Reads are local: the store keeps a replica, a ``Strata/DocumentStore`` over a cache
/// file of its own, built from the server's segments when it opens. A save goes to the
/// server first: in one server transaction it takes the document's advisory lock, writes
/// the segments others appended since into the replica (which takes them in exactly as a
/// document takes in another process's save: conflicts found, merge policies applied),
/// saves into the replica, inserts the new segment at the next sequence (the unique
/// (document, sequence) key refuses a duplicate), commits, and only then commits locally.
/// Primary keys and undo group ids are handed out under the lock, above every key and
/// group any writer used or reserved (the counters in the document's row), so no two
/// writers ever collide. LISTEN/NOTIFY tells open stores that a writer appended: they
/// catch up and post ``Strata/PersistentStoreCoordinator/storeRemoteChangeNotification``,
/// and automatically merging contexts and their fetched results controllers follow.
///
/// ```swift
/// let store = try PostgresDocumentStore(url: "postgres://alice@db:5432/app", document: "plans",
///                                       model: model, createIfMissing: true)
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addStore(store)
/// // ... contexts save into the shared document ...
/// try store.close()
/// ```
///
/// Thread-safe: saves are serialized on the store's connection; reads go to the replica.
public final class PostgresDocumentStore: PersistentStore, BatchExecutingStore, @unchecked Sendable {
    /// How a store opens its document.
    public struct Configuration: Sendable {
        /// Create the document when the server has none of that name (default `false`).
        public var createsDocument = false
        /// Listen for other writers' saves (LISTEN/NOTIFY) and take them in as they
        /// happen (default `true`); without it, the store takes them in when it saves or
        /// when ``PostgresDocumentStore/catchUp()`` is called.
        public var listensForRemoteChanges = true
        /// Open from the server's snapshot when it has one (default `true`): its rows make
        /// the replica's snapshot and only the segments after it are replayed, so the
        /// replica's history starts there. `false` replays every segment from the first (the
        /// server keeps them all, docs/POSTGRES.md), so the replica holds the whole history
        /// — what `strata-inspector` shows on its timeline and travels through — at the cost
        /// of a longer open on a long log.
        public var opensFromServerSnapshot = true
        /// The directory the replica's cache file is made in (default: the system's
        /// temporary directory). The file is removed when the store closes.
        public var cacheDirectory: URL?
        /// Compact on the server (``PostgresDocumentStore/compact()``) after a save when
        /// this many segments or more follow the server's snapshot (default 1,000; 0: only
        /// when ``PostgresDocumentStore/compact()`` is called). It runs on a queue of the
        /// store after the save returned.
        public var serverCompactionThreshold = 1_000
        /// The largest raw segment body written or decoded (default 256 MiB, as a file
        /// document's ``Strata/DocumentStore/Configuration/maxSegmentSize``): a save larger
        /// than this is sent as several segments in its one server transaction. Every store
        /// opening the document must accept what the others write.
        public var maxSegmentSize = DocumentStore.Configuration().maxSegmentSize
        /// Seconds the store's connection for saves and catch-ups may go unused before it
        /// is closed (default 30; nil: kept open): an idle store costs the server no
        /// connection, and its next call opens one again. Following the other writers
        /// costs none either: every store of the process on one server shares one
        /// listening connection (docs/POSTGRES.md, "Connections").
        public var idleConnectionTimeout: TimeInterval? = 30
        /// The defaults.
        public init() {}
    }

    /// The server and the document.
    public let location: PostgresLocation
    /// The document's store identifier, the same in every store that opens it.
    public let identifier: String
    /// Nil: a document holds every entity of its model.
    public let configurationName: String? = nil
    /// The model.
    public let model: ManagedObjectModel
    /// The settings it was opened with.
    public let configuration: Configuration

    /// The local replica every read goes to.
    package let replica: DocumentStore
    /// The replica's cache file.
    let cacheURL: URL
    /// The document's row id on the server.
    let documentID: Int64
    /// The connection saves and catch-ups use (under ``writer``).
    let session: PostgresSession
    /// Where opens and catch-ups read segments: the location's replicas when they have
    /// replayed far enough, else `session` (under ``writer``).
    let reads: PostgresReadRouter
    /// Held by a save (its whole server transaction) and by a catch-up from the server.
    /// Recursive: a direct save inside `performWrite` takes it again on the same thread.
    let writer = NSRecursiveLock()
    /// Whether the thread holding ``writer`` is inside `performWrite` (only read
    /// and written by that thread).
    var inWriteLocked = false
    /// Its subscription to the shared LISTEN connection, while the store listens.
    private var listener: PostgresChangeListener?
    /// The server process of the process's shared listening connection, nil when the
    /// store does not listen (tests).
    package var listenerBackendPID: Int32? { listener?.backendPID }
    /// Whether the store is open (under ``writer``).
    var isOpenLocked = true
    /// What the store knows of the server's snapshot; whether it compacts in the background.
    let compaction = Locked(ServerCompactionState())
    /// Where automatic compactions run, one at a time.
    let compactionQueue = DispatchQueue(label: "Strata.PostgresDocumentStore.compaction")
    /// The sequence of the server snapshot the replica was loaded from when the store
    /// opened; nil when the document had none (the whole log was replayed).
    public private(set) var openedFromServerSnapshot: Int64?
    /// How many segments the store replayed into its replica when it opened: those after
    /// the server's snapshot (all of them when the document had none).
    public private(set) var segmentsReplayedOnOpen = 0
    /// Test seam: called inside a save's server transaction after its segments were
    /// inserted and before COMMIT, with the server process of the save's connection (so a
    /// test can end it there). Set before saving; read under ``writer``.
    package var beforeServerCommit: (@Sendable (_ backendPID: Int32) throws -> Void)?
    /// Test seam: called right after a save's COMMIT returned; what it throws stands for a
    /// connection lost before the server's answer arrived (the answer's loss, not the
    /// commit's), so a test can check that the store learns the save did happen.
    package var afterServerCommit: (@Sendable () throws -> Void)?
    /// How long a save whose COMMIT got no answer keeps trying to ask the server whether
    /// it committed.
    static let inDoubtResolutionTime = 15.0

    // MARK: Opening

    /// Opens the document `document` on the server at `url`.
    /// - Parameters:
    ///   - url: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (``PostgresLocation``).
    ///   - createIfMissing: create the document when there is none of that name.
    /// - Throws: see ``init(location:model:configuration:)``.
    public convenience init(url: String, document: String, model: ManagedObjectModel, createIfMissing: Bool = false) throws {
        var configuration = Configuration()
        configuration.createsDocument = createIfMissing
        try self.init(location: PostgresLocation(url, document: document), model: model, configuration: configuration)
    }

    /// Opens (or creates, when configured) the document at `location`.
    /// - Throws: `.invalidArgument` for a malformed URL; `.server` naming the server when it
    ///   cannot be reached, refuses the login or fails; `.objectNotFound` when there is no
    ///   such document and ``Configuration/createsDocument`` is off; `.modelIncompatible`
    ///   when the document was created with another model; `.corruptSegment` naming a
    ///   damaged segment.
    public init(location: PostgresLocation, model: ManagedObjectModel, configuration: Configuration = Configuration()) throws {
        self.location = location
        self.model = model
        self.configuration = configuration
        session = PostgresSession(location, idleTimeout: configuration.idleConnectionTimeout)
        reads = PostgresReadRouter(primary: session, idleTimeout: configuration.idleConnectionTimeout)
        try PostgresLog.installSchema(session)
        let document = try Self.findOrCreate(location, model: model, create: configuration.createsDocument, session)
        guard document.remote.modelHash == model.versionHash else {
            throw StrataError(.modelIncompatible,
                              "The document '\(location.document)' on \(location.server) was created with another model (hash \(document.remote.modelHash), this one \(model.versionHash)).",
                              context: .init { $0.server = location.server; $0.document = location.document })
        }
        documentID = document.id
        identifier = document.remote.storeIdentifier
        let directory = configuration.cacheDirectory ?? FileManager.default.temporaryDirectory
        cacheURL = directory.appendingPathComponent("strata-postgres-\(UUID().uuidString).strata")
        var local = DocumentStore.Configuration()
        // The replica is a cache: the server holds the document. It keeps every segment
        // (what it has not sent yet is read back from its log) and never syncs to disk.
        local.retention = .all
        local.compactsOnClose = false
        local.synchronous = .normal
        local.maxSegmentSize = configuration.maxSegmentSize
        // A document with a snapshot on the server opens from it: its rows make the
        // replica's snapshot tables, and only the segments after it are replayed. A
        // streaming replica serves it when it has one (docs/POSTGRES.md).
        let snapshot = configuration.opensFromServerSnapshot ? try reads.snapshot(of: documentID, model: model) : nil
        if let snapshot {
            let head = try PostgresLog.head(documentID, session)
            do {
                try DocumentStore.createReplica(at: cacheURL, model: model, identifier: identifier, snapshot: snapshot,
                                                keyCounters: head.keys, groupCounter: head.groups)
                replica = try DocumentStore(openingAt: cacheURL, model: model, configuration: local)
            } catch {
                Self.removeCache(cacheURL)
                throw error
            }
        } else {
            replica = try DocumentStore(creatingReplicaAt: cacheURL, model: model, identifier: identifier, configuration: local)
        }
        openedFromServerSnapshot = snapshot?.through
        compaction.withLock { $0.snapshotSequence = snapshot?.through ?? 0 }
        do {
            segmentsReplayedOnOpen = try pullFromServerLocked(routed: true)
            // What the document held when it opened is not news to anyone.
            try replica.catchUpWithoutReporting()
            if configuration.listensForRemoteChanges {
                listener = try PostgresChangeListener(location: location, channel: PostgresLog.channel(documentID)) { [weak self] sequence in
                    self?.serverChanged(through: sequence)
                }
            }
        } catch {
            try? replica.close()
            Self.removeCache(cacheURL)
            throw error
        }
    }

    private static func findOrCreate(_ location: PostgresLocation, model: ManagedObjectModel, create: Bool,
                                     _ session: PostgresSession) throws -> PostgresLog.Document {
        if let found = try PostgresLog.document(named: location.document, session) { return found }
        guard create else {
            throw StrataError(.objectNotFound,
                              "There is no document '\(location.document)' on \(location.server) (open it with createIfMissing to create it).",
                              context: .init { $0.server = location.server; $0.document = location.document })
        }
        let remote = RemoteDocument(storeIdentifier: UUID().uuidString, modelJSON: model.jsonRepresentation(), modelHash: model.versionHash)
        // Two writers creating it at once: one insert wins, the other reads the winner's row.
        _ = try session.transaction { try PostgresLog.insert(named: location.document, remote, session) }
        guard let created = try PostgresLog.document(named: location.document, session) else {
            throw StrataError(.server, "The document \(input: location.document) vanished from \(location.server) as it was created.",
                              context: .init { $0.server = location.server; $0.document = location.document })
        }
        return created
    }

    /// Stops listening, closes the connections and the replica, and removes its cache
    /// file. Nothing is lost: every save is on the server. Further use throws.
    public func close() throws {
        waitForCompaction()
        writer.lock()
        defer { writer.unlock() }
        guard isOpenLocked else { return }
        isOpenLocked = false
        // A catch-up the listener started finds the store closed once it gets the lock.
        listener?.stop()
        listener = nil
        reads.close()
        session.close()
        defer { Self.removeCache(cacheURL) }
        try replica.close()
    }

    deinit {
        listener?.stop()
        if isOpenLocked {
            try? replica.close()
            Self.removeCache(cacheURL)
        }
    }

    private static func removeCache(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    // MARK: Taking in other writers' saves

    /// Takes in the server's segments this store has not, with the counters, and returns
    /// how many: from the primary inside a save's transaction (it must see everything
    /// before it appends), else `routed` through ``reads`` — replicas first — up to at
    /// least `target` (nil: the primary's head). Called holding ``writer`` (or while
    /// opening).
    @discardableResult
    func pullFromServerLocked(routed: Bool = false, through target: Int64? = nil) throws -> Int {
        let last = try replica.lastStoredSequence()
        if routed, let target, target <= last { return 0 }
        let pulled = routed ? try reads.segments(of: documentID, after: last, through: target)
                            : try reads.fromPrimaryOnly(documentID, after: last, limit: Int(Int32.max))
        try replica.ingest(pulled.segments, keyCounters: pulled.head.keys, groupCounter: pulled.head.groups)
        return pulled.segments.count
    }

    func withWriter<T>(_ body: () throws -> T) throws -> T {
        writer.lock()
        defer { writer.unlock() }
        guard isOpenLocked else {
            throw StrataError(.invalidArgument, "The document \(input: location.document) on \(location.server) is closed.",
                              context: .init { $0.server = location.server; $0.document = location.document })
        }
        return try body()
    }
}

extension PostgresDocumentStore: TextStoring {
    /// The text of a record with its characters' identities, from the local replica (which
    /// holds every segment the server has that this store took in).
    package func textSequence(for id: ManagedObjectID, slot: Int) throws -> TextSequence? {
        try replica.textSequence(for: id, slot: slot)
    }
}
