import Foundation

extension DocumentStore {
    /// Takes in what other connections (other processes) saved since this store last read
    /// the log, without saving, and hands it — with what earlier catch-ups inside saves,
    /// compactions and history reads found — to the coordinators the store was added to:
    /// their automatically merging contexts merge it and they post
    /// ``PersistentStoreCoordinator/storeRemoteChangeNotification``. Returns it; nil when
    /// nothing changed.
    ///
    /// ```swift
    /// if let change = try store.catchUp() { print(change.changes.inserted.count, "new records") }
    /// ```
    /// ``Configuration/watchesForRemoteChanges`` calls it whenever the file changes.
    /// - Throws: `.invalidArgument` when the store is closed; `.corruptSegment` naming the
    ///   segment and offset when another connection's segment is damaged.
    /// - Complexity: O(bytes of the segments other connections appended).
    @discardableResult
    public func catchUp() throws -> StoreRemoteChange? {
        _ = try withOpenState { try $0.catchUp() }
        return deliverRemoteChanges()
    }

    /// Hands what catch-ups found to the coordinators (outside every lock of the store).
    @discardableResult
    package func deliverRemoteChanges() -> StoreRemoteChange? {
        let pending = state.withLock { state -> PendingRemoteChanges? in
            activity.tookState()
            guard !state.pendingRemoteChanges.isEmpty else { return nil }
            defer { state.pendingRemoteChanges = PendingRemoteChanges() }
            return state.pendingRemoteChanges
        }
        guard let pending else { return nil }
        let change = StoreRemoteChange(storeIdentifier: identifier, sequences: pending.sequences, changes: pending.changes,
                                       mayHaveChangedEverything: pending.mayHaveChangedEverything)
        for handler in remoteChanges.handlers() { handler(change) }
        return change
    }

    /// Sets (nil: removes) what a coordinator does with this store's remote changes.
    package func setRemoteChangeHandler(for coordinator: PersistentStoreCoordinator,
                                _ handler: (@Sendable (StoreRemoteChange) -> Void)?) {
        remoteChanges.setHandler(handler, for: ObjectIdentifier(coordinator))
    }

    /// Starts the watcher when the configuration asks for it.
    /// - Throws: `.invalidArgument` for an interval that is not a positive number of seconds.
    func startWatchingIfConfigured() throws {
        guard configuration.watchesForRemoteChanges else { return }
        let interval = configuration.remoteChangePollInterval
        guard interval.isFinite, interval > 0 else {
            throw StrataError(.invalidArgument,
                              "remoteChangePollInterval must be a positive number of seconds, not \(interval) (document \(url.path)).",
                              context: .init { $0.path = url.path; $0.value = String(interval) })
        }
        remoteChanges.startWatching(every: interval) { [weak self] watch in self?.pollForRemoteChanges(watch) }
    }

    /// One tick of the watcher: asks SQLite whether another connection committed since the
    /// last tick (`PRAGMA data_version`, one page read at most) and catches up when one did.
    private func pollForRemoteChanges(_ watch: RemoteChangeWatch) {
        // A write in progress catches up itself; the next tick looks again.
        guard writer.try() else { return }
        activity.tookWriter()
        let changed: Bool
        do {
            changed = try withOpenState { state in
                let rows = try state.connection.prepare("PRAGMA data_version").rows()
                guard case .integer(let version)? = rows.first?.first else { return true }
                guard watch.noteDataVersion(version) else { return false }
                try state.catchUp()
                return true
            }
        } catch {
            // A closed store stops its watcher; a damaged segment is reported by the next
            // call that reads the log (a save, catchUp()).
            changed = false
        }
        writer.unlock()
        if changed { deliverRemoteChanges() }
    }
}

/// A document store's remote-change plumbing: the coordinators' handlers and the watcher's
/// timer. Its own lock guards both.
final class RemoteChangeWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var handlersByCoordinator: [ObjectIdentifier: @Sendable (StoreRemoteChange) -> Void] = [:]
    private var timer: DispatchSourceTimer?
    /// The data version the last tick saw (touched only on the timer's queue).
    private var dataVersion: Int64?

    func handlers() -> [@Sendable (StoreRemoteChange) -> Void] {
        lock.withLock { Array(handlersByCoordinator.values) }
    }

    func setHandler(_ handler: (@Sendable (StoreRemoteChange) -> Void)?, for coordinator: ObjectIdentifier) {
        lock.withLock { handlersByCoordinator[coordinator] = handler }
    }

    /// Runs `tick` every `interval` seconds on a queue of its own until ``stop()``.
    func startWatching(every interval: TimeInterval, _ tick: @escaping @Sendable (RemoteChangeWatch) -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "Strata.DocumentStore.remoteChanges"))
        let nanoseconds = Int(min(interval, 86_400) * 1e9)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
                       leeway: .nanoseconds(nanoseconds / 10))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            tick(self)
        }
        lock.withLock { self.timer = timer }
        timer.resume()
    }

    /// Whether the data version moved since the last tick (the first tick counts as moved).
    func noteDataVersion(_ version: Int64) -> Bool {
        defer { dataVersion = version }
        return dataVersion != version
    }

    /// Cancels the timer; a tick already running finishes (and finds the store closed).
    func stop() {
        let timer = lock.withLock {
            defer { self.timer = nil }
            return self.timer
        }
        timer?.cancel()
    }

    deinit { stop() }
}
