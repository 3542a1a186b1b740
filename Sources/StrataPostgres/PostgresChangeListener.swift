import Foundation
import PostgresNIO
import Strata

/// A connection that LISTENs on a document's channel and calls `changed` (on a queue of
/// its own, never on the event loop) after a writer appended. Notifications that arrive
/// while a call runs are coalesced into one more call: a catch-up reads everything new.
final class PostgresChangeListener: @unchecked Sendable {
    private let session: PostgresSession
    private let queue = DispatchQueue(label: "Strata.PostgresDocumentStore.listener")
    private let lock = NSLock()
    private var scheduled = false
    private var stopped = false
    private var context: PostgresListenContext?

    /// Connects and starts listening.
    /// - Throws: `.server` naming the server.
    init(location: PostgresLocation, channel: String, changed: @escaping @Sendable () -> Void) throws {
        session = PostgresSession(location)
        let connection = try session.open()
        context = connection.addListener(channel: channel) { [weak self] _, _ in
            self?.schedule(changed)
        }
        try session.query(PostgresQuery(unsafeSQL: "LISTEN \"\(channel)\""))
    }

    private func schedule(_ changed: @escaping @Sendable () -> Void) {
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
            changed()
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
        session.close()
    }

    deinit { stop() }
}
