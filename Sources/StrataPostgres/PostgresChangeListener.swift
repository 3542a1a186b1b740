import Foundation
import Strata

/// A store's subscription to its document's channel: calls `changed` (on a queue of its
/// own, never on the event loop) after a writer appended, with the last sequence appended
/// (nil when unknown: after a reconnection). Notifications that arrive while a call runs
/// are coalesced into one more call with the latest sequence: a catch-up reads
/// everything new.
///
/// The LISTEN connection itself belongs to the process's ``PostgresListenerHub`` for the
/// server, shared with every other store there, which reconnects after a drop and then
/// calls `changed` once.
final class PostgresChangeListener: @unchecked Sendable {
    private var hub: PostgresListenerHub
    private let channel: String
    private let changed: @Sendable (Int64?) -> Void
    private let queue = DispatchQueue(label: "Strata.PostgresDocumentStore.listener")
    /// Guards the flags below.
    private let lock = NSLock()
    private var scheduled = false
    private var stopped = false
    /// The sequence the scheduled call must reach; nil when some request did not know.
    private var target: Int64?

    /// Subscribes, connecting the server's shared listener when it is the first.
    /// - Throws: `.server` naming the server.
    init(location: PostgresLocation, channel: String, changed: @escaping @Sendable (Int64?) -> Void) throws {
        hub = PostgresListenerHub.hub(for: location)
        self.channel = channel
        self.changed = changed
        while try !hub.add(self, channel: channel) { hub = PostgresListenerHub.hub(for: location) }
    }

    /// The server process of the shared listening connection (tests).
    var backendPID: Int32? { hub.backendPID }

    /// Calls `changed` on this listener's queue, once for any number of requests that
    /// arrive before the call starts, with the furthest sequence they named (nil when one
    /// named none).
    func schedule(through sequence: Int64?) {
        let start = lock.withLock { () -> Bool in
            guard !stopped else { return false }
            if scheduled {
                target = target.flatMap { current in sequence.map { max(current, $0) } }
                return false
            }
            scheduled = true
            target = sequence
            return true
        }
        guard start else { return }
        queue.async { [weak self] in
            guard let self else { return }
            // Cleared before the call: a notification arriving during it schedules another.
            let target = self.lock.withLock { () -> Int64? in
                self.scheduled = false
                return self.target
            }
            self.changed(target)
        }
    }

    /// Stops listening (the hub closes its connection when this was its last subscriber);
    /// a call in progress finishes.
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first { hub.remove(self, channel: channel) }
    }

    deinit { stop() }
}
