import Foundation
import Strata
import StrataToolSupport

/// The document an inspector shows, opened read-only: its store, the stores of the past
/// saves a view travelled to, and the change counter live views follow.
///
/// Every read goes through ``serialized(_:)``, so requests answered on several threads
/// share one connection without racing. Nothing here writes to the document: the store is
/// opened read-only (SQLite refuses a write), and time travel replays into a scratch folder.
package final class InspectorDocument: @unchecked Sendable {
    /// Where the document is, as the views show it: the file's path, or a PostgreSQL
    /// document's URL without its password.
    package let location: String
    /// The document's name: the file's name, or the PostgreSQL document's.
    package let name: String
    /// The store, read-only.
    package let store: DocumentStore
    /// A coordinator over ``store``, for resolving references and rebuilding undo stacks.
    package let coordinator: PersistentStoreCoordinator
    /// Where replays of past saves are written; removed by ``close()``.
    let scratch: URL
    private let lock = NSLock()
    /// Stores of past saves by sequence, the most recently used last (at most ``pastStoreLimit``).
    private var pastStores: [(sequence: UInt64, shown: ShownDocument)] = []
    private var isClosed = false
    /// Closes the store (and whatever opened it).
    private let closing: @Sendable () -> Void
    /// Replays of past saves and their checkpoints (docs/INSPECTOR.md, "Time travel").
    private let timeTravel: InspectorTimeTravel
    /// How many saves the last travel to a past save not open yet appended (the
    /// benchmark reports it).
    package private(set) var lastTravelReplayed: UInt64 = 0
    /// Damaged saves of the history (``InspectorHistoryDamage``), found when the document
    /// opened and whenever a request met one.
    var historyDamage: InspectorHistoryDamage
    /// Object counts by request and save (``InspectorCountCache``).
    var counts = InspectorCountCache()
    /// How many past saves stay open at once.
    static let pastStoreLimit = 4
    /// Set by ``close()``: the background preparation of time travel stops at its next step.
    private let isClosing = Locked(false)
    /// Signalled when the background preparation has stopped (``close()`` waits for it).
    private let preparationDone = DispatchGroup()

    /// Opens the document at `path` read-only, as the command-line tools open a document
    /// they only read (``ToolSettings/configuration(writes:)``).
    /// - Throws: the error the CLI reports for a missing, foreign or damaged document.
    /// - Parameter checkpointInterval: saves between two checkpoints a replay of a past save
    ///   leaves (``InspectorTimeTravel``); tests make it small.
    package convenience init(path: String, checkpointInterval: UInt64 = InspectorTimeTravel.defaultCheckpointInterval) throws {
        let url = URL(fileURLWithPath: path)
        let (store, coordinator) = try ToolDocument.open(url, configuration: ToolSettings.configuration(writes: false))
        try self.init(store: store, coordinator: coordinator, location: url.path, name: url.lastPathComponent,
                      checkpointInterval: checkpointInterval) { try? store.close() }
    }

    /// Shows a store opened elsewhere (a PostgreSQL document's local replica, which its
    /// `PostgresDocumentStore` keeps following the server): the inspector only reads it,
    /// and `closing` closes what opened it. The history the snapshot no longer needs is
    /// checked first (``InspectorHistoryDamage``); damage there is shown, not refused.
    /// - Throws: what reading the log throws other than a damaged segment (`closing` is
    ///   called first).
    package init(store: DocumentStore, coordinator: PersistentStoreCoordinator, location: String, name: String,
                 checkpointInterval: UInt64 = InspectorTimeTravel.defaultCheckpointInterval,
                 closing: @escaping @Sendable () -> Void) throws {
        do {
            historyDamage = try InspectorHistoryDamage.scan(store)
        } catch {
            closing()
            throw error
        }
        self.store = store
        self.coordinator = coordinator
        self.location = location
        self.name = name
        self.closing = closing
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("strata-inspector-\(UUID().uuidString)")
        timeTravel = InspectorTimeTravel(folder: scratch, checkpointInterval: checkpointInterval)
    }

    /// The document's model.
    package var model: ManagedObjectModel { store.model }

    /// Starts laying time travel's checkpoints over the whole history on a thread of its
    /// own (``InspectorTimeTravel/prepare(_:isCancelled:)``), so that a travel to any save
    /// copies a checkpoint and appends fewer than an interval of saves. Requests are
    /// answered meanwhile; a travel past the prepared part replays from the nearest
    /// checkpoint before it. `strata-inspector` calls it when it opens a document.
    package func prepareTimeTravelInBackground() {
        preparationDone.enter()
        let thread = Thread { [self] in
            timeTravel.prepare(store) { isClosing.withLock { $0 } }
            preparationDone.leave()
        }
        thread.name = "strata-inspector time travel"
        thread.qualityOfService = .utility
        thread.start()
    }

    /// How far the background preparation of time travel is (`timeTravel` in `/api/document`).
    package var timeTravelProgress: InspectorTimeTravelProgress { timeTravel.preparation }

    /// Runs `body` holding the document's lock.
    package func serialized<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed else { throw InspectorError(status: 503, "The inspector is shutting down.") }
        return try body()
    }

    /// The last saved sequence after taking in what other processes saved since the last
    /// call: live views compare it with the sequence they showed.
    /// - Complexity: O(bytes other processes appended); one small read when nothing changed.
    package func latestSequence() throws -> UInt64 {
        try serialized {
            try store.catchUp()
            return try store.logPosition.last
        }
    }

    /// The store showing the document as of save `sequence` (nil: as it is now). A past
    /// save is replayed once into the scratch folder and opened read-only.
    /// - Throws: 400 for a save past the last one or history dropped by retention.
    func document(at sequence: UInt64?) throws -> ShownDocument {
        let last = try store.logPosition.last
        if let sequence, sequence > last {
            throw InspectorError.badRequest("There is no save \(sequence) to travel to; the last is \(last).")
        }
        guard let sequence, sequence < last else { return ShownDocument(store: store, coordinator: coordinator) }
        if let index = pastStores.firstIndex(where: { $0.sequence == sequence }) {
            let entry = pastStores.remove(at: index)
            pastStores.append(entry)
            return entry.shown
        }
        let destination = scratch.appendingPathComponent("at-\(sequence).strata")
        lastTravelReplayed = try timeTravel.write(store, through: sequence, to: destination)
        let past = try DocumentStore(openingAt: destination, configuration: ToolSettings.configuration(writes: false))
        let pastCoordinator = PersistentStoreCoordinator(model: past.model)
        try pastCoordinator.addStore(past)
        let shown = ShownDocument(store: past, coordinator: pastCoordinator)
        pastStores.append((sequence, shown))
        if pastStores.count > Self.pastStoreLimit {
            try? pastStores.removeFirst().shown.store.close()
        }
        return shown
    }

    /// Closes every store and removes the scratch folder.
    package func close() {
        isClosing.withLock { $0 = true }
        preparationDone.wait()
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed else { return }
        isClosed = true
        for entry in pastStores { try? entry.shown.store.close() }
        pastStores.removeAll()
        closing()
        try? FileManager.default.removeItem(at: scratch)
    }
}

/// The document as a view shows it: now, or a replay of a past save, with a coordinator
/// that resolves its references.
struct ShownDocument {
    /// The store, read-only.
    var store: DocumentStore
    /// A coordinator over it.
    var coordinator: PersistentStoreCoordinator
    /// Its model (a past save before a migration has the older model).
    var model: ManagedObjectModel { store.model }
}
