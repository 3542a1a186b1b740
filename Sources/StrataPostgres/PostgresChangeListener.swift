import Foundation
import PostgresNIO
import Strata

/// A connection that LISTENs on a document's channel and calls `changed` (on a queue of
/// its own, never on the event loop) after a writer appended. Notifications that arrive
/// while a call runs are coalesced into one more call: a catch-up reads everything new.
///
/// When the connection drops (a server restart, `pg_terminate_backend`, a network
/// failure) it connects again, waiting longer after each failed attempt (50 ms doubling
/// up to 5 s), LISTENs again and then calls `changed` once: NOTIFYs sent while it was
/// away are lost, so the catch-up reads what they would have announced.
final class PostgresChangeListener: @unchecked Sendable {
    /// The first and the longest wait between reconnection attempts.
    static let firstRetryDelay = 0.05
    static let longestRetryDelay = 5.0

    private let session: PostgresSession
    private let channel: String
    private let changed: @Sendable () -> Void
    private let queue = DispatchQueue(label: "Strata.PostgresDocumentStore.listener")
    /// Guards the flags below.
    private let lock = NSLock()
    /// Serializes the use of `session` (connecting runs on `queue`, stopping on the caller).
    private let connecting = NSLock()
    private var scheduled = false
    private var stopped = false
    private var context: PostgresListenContext?
    private var reconnections = 0

    /// Connects and starts listening.
    /// - Throws: `.server` naming the server.
    init(location: PostgresLocation, channel: String, changed: @escaping @Sendable () -> Void) throws {
        session = PostgresSession(location)
        self.channel = channel
        self.changed = changed
        try connecting.withLock { try connectLocked() }
    }

    /// How many times the connection was re-established (for tests and diagnostics).
    var reconnectionCount: Int { lock.withLock { reconnections } }

    /// Opens the connection, adds the notification handler, LISTENs, and arranges to
    /// reconnect when the connection closes. Called holding `connecting`.
    private func connectLocked() throws {
        let connection = try session.open()
        let context = connection.addListener(channel: channel) { [weak self] _, _ in
            guard let self else { return }
            self.schedule()
        }
        try session.query(PostgresQuery(unsafeSQL: "LISTEN \"\(channel)\""))
        lock.withLock { self.context = context }
        connection.closeFuture.whenComplete { [weak self] _ in
            guard let self else { return }
            self.queue.async { self.reconnect(after: Self.firstRetryDelay) }
        }
    }

    /// Connects again (on `queue`); on failure tries again after `delay`, doubled each time.
    private func reconnect(after delay: Double) {
        guard !lock.withLock({ stopped }) else { return }
        let connected = connecting.withLock { () -> Bool in
            guard !lock.withLock({ stopped }) else { return false }
            do {
                try connectLocked()
                return true
            } catch {
                session.close()
                return false
            }
        }
        if connected {
            lock.withLock { reconnections += 1 }
            // What was notified while the connection was down: a catch-up reads it.
            schedule()
        } else if !lock.withLock({ stopped }) {
            queue.asyncAfter(deadline: .now() + delay) { [weak self] in
                self?.reconnect(after: min(delay * 2, Self.longestRetryDelay))
            }
        }
    }

    private func schedule() {
        let start = lock.withLock { () -> Bool in
            guard !stopped, !scheduled else { return false }
            scheduled = true
            return true
        }
        guard start else { return }
        queue.async { [weak self] in
            guard let self else { return }
            // Cleared before the call: a notification arriving during it schedules another.
            self.lock.withLock { self.scheduled = false }
            self.changed()
        }
    }

    /// Stops listening and closes the connection; a call in progress finishes.
    func stop() {
        let context = lock.withLock { () -> PostgresListenContext? in
            stopped = true
            defer { self.context = nil }
            return self.context
        }
        context?.stop()
        connecting.withLock { session.close() }
    }

    deinit { stop() }
}
