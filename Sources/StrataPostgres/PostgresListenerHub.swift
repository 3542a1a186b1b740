import Foundation
import PostgresNIO
import Strata

/// One LISTEN connection per server for the whole process, shared by every store that
/// follows a document there (docs/POSTGRES.md, "Following the other writers"): a process
/// with many open stores costs the server one listening connection, not one per store.
///
/// A hub LISTENs on the union of its subscribers' channels and hands each notification to
/// the subscribers of its channel. When the connection drops (a server restart,
/// `pg_terminate_backend`, a network failure) it connects again, waiting longer after each
/// failed attempt (50 ms doubling up to 5 s), LISTENs on every channel again and tells every
/// subscriber once: notifications sent while it was away are lost, so their catch-ups read
/// what they would have announced. The last subscriber to leave closes the connection.
final class PostgresListenerHub: @unchecked Sendable {
    /// The first and the longest wait between reconnection attempts.
    static let firstRetryDelay = 0.05
    static let longestRetryDelay = 5.0

    /// The process's hubs by server: user, host, port, database, TLS settings and
    /// application name (a notification reaches only connections to the database it was
    /// sent in; connections named apart stay apart in `pg_stat_activity`).
    private static let hubs = Locked<[String: PostgresListenerHub]>([:])

    private let key: String
    private let session: PostgresSession
    private let queue = DispatchQueue(label: "Strata.PostgresListenerHub")
    /// Guards everything below, and serializes the use of `session`.
    private let lock = NSLock()
    private var subscribers: [String: [ObjectIdentifier: PostgresChangeListener]] = [:]
    private var contexts: [String: PostgresListenContext] = [:]
    private var connection: PostgresConnection?
    /// The server process of `connection`, read once as it connects.
    private var connectionPID: Int32?
    private var closed = false

    private init(key: String, location: PostgresLocation) {
        self.key = key
        session = PostgresSession(location)
    }

    /// The hub for `location`'s server, created on first use.
    static func hub(for location: PostgresLocation) -> PostgresListenerHub {
        let key = [location.server, location.tls?.summary ?? "socket", location.applicationName,
                   location.configuration.password ?? ""].joined(separator: "|")
        return hubs.withLock { hubs in
            if let hub = hubs[key], !hub.lock.withLock({ hub.closed }) { return hub }
            let hub = PostgresListenerHub(key: key, location: location)
            hubs[key] = hub
            return hub
        }
    }

    /// The server process serving the shared connection, or nil while it is not connected
    /// (tests compare it across stores and look it up in `pg_stat_activity`).
    var backendPID: Int32? {
        lock.withLock { connection == nil ? nil : connectionPID }
    }

    /// Adds `listener` to `channel`'s subscribers, connecting and LISTENing first when
    /// needed; false when the hub retired meanwhile (its last subscriber left), so the
    /// caller takes a new one.
    /// - Throws: `.server` naming the server when it cannot connect or LISTEN.
    func add(_ listener: PostgresChangeListener, channel: String) throws -> Bool {
        try lock.withLock {
            guard !closed else { return false }
            if connection == nil { try connectLocked() }
            if subscribers[channel] == nil { try listenLocked(channel) }
            subscribers[channel, default: [:]][ObjectIdentifier(listener)] = listener
            return true
        }
    }

    /// Removes `listener`; the channel's last subscriber UNLISTENs it, the hub's last one
    /// closes the connection and retires the hub.
    func remove(_ listener: PostgresChangeListener, channel: String) {
        let retired = lock.withLock { () -> Bool in
            subscribers[channel]?[ObjectIdentifier(listener)] = nil
            if subscribers[channel]?.isEmpty == true {
                subscribers[channel] = nil
                contexts.removeValue(forKey: channel)?.stop()
                if connection != nil { _ = try? session.query(PostgresQuery(unsafeSQL: "UNLISTEN \"\(channel)\"")) }
            }
            guard subscribers.isEmpty else { return false }
            closed = true
            connection = nil
            session.close()
            return true
        }
        if retired { Self.hubs.withLock { if $0[key] === self { $0[key] = nil } } }
    }

    /// Opens the connection and arranges to reconnect when it closes. Called holding `lock`.
    private func connectLocked() throws {
        let opened = try session.open()
        connection = opened
        connectionPID = try? session.backendPID()
        opened.closeFuture.whenComplete { [weak self] _ in
            guard let self else { return }
            self.queue.async { self.reconnect(after: Self.firstRetryDelay) }
        }
    }

    /// LISTENs on `channel` with a handler that tells its subscribers. Called holding `lock`.
    private func listenLocked(_ channel: String) throws {
        guard let connection else { return }
        contexts[channel] = connection.addListener(channel: channel) { [weak self] _, notification in
            // The payload is the last sequence the save appended (PostgresLog.append).
            self?.notify(channel, sequence: Int64(notification.payload))
        }
        try session.query(PostgresQuery(unsafeSQL: "LISTEN \"\(channel)\""))
    }

    /// A notification arrived, on the connection's event loop: handed to `queue`, since a
    /// thread holding `lock` may be waiting on that event loop.
    private func notify(_ channel: String, sequence: Int64?) {
        queue.async { [weak self] in
            guard let self else { return }
            let listeners = self.lock.withLock { self.subscribers[channel].map { Array($0.values) } ?? [] }
            for listener in listeners { listener.schedule(through: sequence) }
        }
    }

    /// Connects again (on `queue`); on failure tries again after `delay`, doubled each time.
    private func reconnect(after delay: Double) {
        let everyone = lock.withLock { () -> [PostgresChangeListener]? in
            // Retired, or a connection that is no longer the hub's closed.
            guard !closed, connection?.isClosed ?? true else { return [] }
            connection = nil
            contexts.removeAll()
            session.close()
            do {
                try connectLocked()
                for channel in subscribers.keys { try listenLocked(channel) }
                return subscribers.values.flatMap(\.values)
            } catch {
                connection = nil
                contexts.removeAll()
                session.close()
                return nil
            }
        }
        guard let everyone else {
            queue.asyncAfter(deadline: .now() + delay) { [weak self] in
                self?.reconnect(after: min(delay * 2, Self.longestRetryDelay))
            }
            return
        }
        // What was notified while the connection was down: a catch-up reads it, up to a
        // head no notification told.
        for listener in everyone { listener.schedule(through: nil) }
    }
}
