import Foundation
import PostgresNIO
import Strata

extension StrataError.Code {
    /// A PostgreSQL server could not be reached, refused the login, went away or reported
    /// an error (StrataPostgres). The message names the server; `context.server` holds it.
    public static let server = StrataError.Code(rawValue: "server")
}

/// One connection to a PostgreSQL server, used synchronously: Strata's stores are
/// synchronous, PostgresNIO is not.
///
/// Every call waits on an `EventLoopFuture` whose work runs on the session's own event
/// loop thread (not Swift concurrency's cooperative pool), so waiting from any thread —
/// including a task's — never needs a thread the wait is holding. Its owner serializes
/// calls (the stores hold their write lock); the session's own lock only keeps the idle
/// close out of a call. A lost connection is reopened by the next call, and with an
/// ``idleTimeout`` a connection unused that long is closed, so an idle store costs the
/// server no connection. Package-visible: tests run statements of their own with it.
package final class PostgresSession: @unchecked Sendable {
    package let location: PostgresLocation
    private let group: MultiThreadedEventLoopGroup
    private var connection: PostgresConnection?
    /// Whether a `BEGIN` ran on `connection` and no `COMMIT` or `ROLLBACK` since.
    private var inTransaction = false
    /// Seconds a connection may go unused, outside a transaction, before it is closed;
    /// nil: kept open until ``close()``.
    private let idleTimeout: TimeInterval?
    /// Held by every call and by the idle close.
    private let use = NSLock()
    private var lastUse = DispatchTime.now()
    private var idleCloseScheduled = false
    private let logger = Logger(label: "Strata.Postgres")
    private static let nextID = ManagedAtomicCounter()

    package init(_ location: PostgresLocation, idleTimeout: TimeInterval? = nil) {
        self.location = location
        self.idleTimeout = idleTimeout
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    deinit {
        try? connection?.close().wait()
        try? group.syncShutdownGracefully()
    }

    /// The open connection, connecting first when there is none (or it closed).
    /// - Throws: `.server` naming the server: unreachable, refused login.
    func open() throws -> PostgresConnection {
        try use.withLock { try openLocked() }
    }

    private func openLocked() throws -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        connection = nil
        do {
            let opened = try PostgresConnection.connect(on: group.next(), configuration: location.configuration,
                                                        id: Self.nextID.next(), logger: logger).wait()
            connection = opened
            PostgresSocketInheritance.closeOnExec(connectedTo: location.socketPeer)
            return opened
        } catch {
            throw Self.failure(error, server: location.server, tls: location.tls, doing: "connect to")
        }
    }

    /// Runs one statement and returns its rows.
    /// - Throws: `.server` naming the server and the statement's error.
    @discardableResult
    package func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        try use.withLock {
            defer { usedLocked() }
            return try queryLocked(query)
        }
    }

    private func queryLocked(_ query: PostgresQuery) throws -> [PostgresRow] {
        let statement = query.sql.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        let ends = statement == "COMMIT" || statement == "ROLLBACK"
        if inTransaction, connection?.isClosed ?? true {
            // The transaction died with its connection. Reconnecting would run the rest of
            // it — its COMMIT too — outside any transaction, so it fails until it is ended.
            if ends { inTransaction = false }
            if statement == "ROLLBACK" { return [] }
            throw StrataError(.server, "The connection to the PostgreSQL server \(location.server) was lost inside a transaction, so the transaction did not happen.",
                              context: .init { $0.server = location.server })
        }
        // A COMMIT or ROLLBACK ends the transaction even when it fails.
        defer { if ends { inTransaction = false } }
        // A connection the server ended while it sat unused (a restart,
        // `pg_terminate_backend`) fails the first statement sent on it when the session has
        // not seen the end yet. Outside a transaction a BEGIN or a read changes nothing, so
        // it runs once more on a new connection; anything else may have run before the end
        // and is the caller's to judge.
        let rerunnable = !inTransaction && (statement == "BEGIN" || statement.hasPrefix("SELECT"))
        for attempt in 1...2 {
            let connection = try openLocked()
            do {
                let rows = Array(try connection.query(query, logger: logger).wait().rows)
                if statement == "BEGIN" { inTransaction = true }
                return rows
            } catch {
                let ended = connection.isClosed || Self.endedByServer(error)
                if ended {
                    // Closed here too when the session has not seen the end yet: PostgresNIO
                    // requires a connection to be closed before it is let go.
                    try? connection.close().wait()
                    self.connection = nil
                }
                guard ended, rerunnable, attempt == 1 else { throw Self.failure(error, server: location.server, doing: "query") }
            }
        }
        preconditionFailure("the second attempt returns or throws")
    }

    /// Whether `error` says the server closed the connection.
    private static func endedByServer(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        // 57P01: "terminating connection due to administrator command".
        return error.code == .serverClosedConnection || error.code == .uncleanShutdown
            || error.serverInfo?[.sqlState] == "57P01"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// - Throws: `body`'s error; `.server` with `context.kind == .notCommitted` when
    ///   COMMIT failed (the transaction did not happen).
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try query("BEGIN")
        let result: T
        do {
            result = try body()
        } catch {
            _ = try? query("ROLLBACK")
            throw error
        }
        do {
            try query("COMMIT")
        } catch let error as StrataError {
            throw StrataError(.server, "The transaction on \(location.server) did not commit, so it did not happen: \(error.message)",
                              context: .init { $0.kind = .notCommitted; $0.server = location.server })
        }
        return result
    }

    /// Runs SQL text of the caller's own (tests; never user input) and returns every row's
    /// columns as text (nil for NULL): each column must be text (cast with `::text`).
    package func rows(_ sql: String) throws -> [[String?]] {
        let rows = try query(PostgresQuery(unsafeSQL: sql))
        do {
            return try rows.map { row in try row.map { try $0.decode(String?.self) } }
        } catch {
            throw Self.failure(error, server: location.server, doing: "read the rows of")
        }
    }

    /// The server process serving this session's connection (`pg_backend_pid()`).
    package func backendPID() throws -> Int32 {
        try query("SELECT pg_backend_pid()").first?.decode(Int32.self) ?? 0
    }

    /// Closes the connection (the session can open another).
    package func close() {
        use.withLock { closeLocked() }
    }

    private func closeLocked() {
        try? connection?.close().wait()
        connection = nil
        inTransaction = false
    }

    /// Notes a call's end and, with an idle timeout, arranges the idle close.
    private func usedLocked() {
        lastUse = .now()
        guard let idleTimeout, !idleCloseScheduled else { return }
        idleCloseScheduled = true
        DispatchQueue.global().asyncAfter(deadline: .now() + idleTimeout) { [weak self] in self?.closeIfIdle() }
    }

    /// Closes the connection when it went unused for the idle timeout outside a
    /// transaction; else looks again when it will have.
    private func closeIfIdle() {
        use.withLock {
            idleCloseScheduled = false
            guard let idleTimeout, connection != nil else { return }
            let due = lastUse + idleTimeout
            if inTransaction || due > .now() {
                idleCloseScheduled = true
                let next: DispatchTime = inTransaction ? .now() + idleTimeout : due
                DispatchQueue.global().asyncAfter(deadline: next) { [weak self] in self?.closeIfIdle() }
            } else {
                closeLocked()
            }
        }
    }

    /// A PostgresNIO error as a StrataError naming the server, in words a user can act on
    /// (authentication failed, the server closed the connection, could not connect to
    /// HOST:PORT); the driver's own description stays in `context.driverDetail`, which
    /// the tools print with `STRATA_VERBOSE=1`.
    static func failure(_ error: any Error, server: String, tls: PostgresTLS? = nil, doing: String) -> StrataError {
        if let error = error as? StrataError { return error }
        var context = StrataError.Context { $0.server = server; $0.driverDetail = String(reflecting: error) }
        let reason: String
        let address = hostAndPort(server)
        if let tlsReason = tls?.failureReason(for: error, host: address.lastIndex(of: ":").map { address[..<$0] } ?? address) {
            reason = tlsReason
        } else if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                // The server's own words ("password authentication failed for user …").
                let state = error.serverInfo?[.sqlState]
                context.sqlState = state
                reason = state?.hasPrefix("28") == true ? "authentication failed: \(message)" : message
            } else {
                reason = Self.reason(code: error.code.description, server: server)
            }
        } else {
            reason = Self.reason(code: String(describing: type(of: error)), server: server)
        }
        return StrataError(.server, "Cannot \(doing) the PostgreSQL server \(server): \(reason)", context: context)
    }

    /// `HOST:PORT` of a server name `USER@HOST:PORT/DATABASE`.
    private static func hostAndPort(_ server: String) -> Substring {
        let afterUser = server.split(separator: "@", maxSplits: 1).last ?? Substring(server)
        return afterUser.split(separator: "/", maxSplits: 1).first ?? afterUser
    }

    /// What a driver error code means for the user, without the driver's names.
    private static func reason(code: String, server: String) -> String {
        switch code {
        case "authMechanismRequiresPassword":
            return "authentication failed: the server asks for a password and the URL gives none (postgres://USER:PASSWORD@HOST:PORT/DATABASE/DOCUMENT, or PGPASSWORD)"
        case "unsupportedAuthMechanism", "saslError":
            return "authentication failed: the server asks for an authentication method this client cannot use"
        case "serverClosedConnection", "uncleanShutdown", "clientClosedConnection":
            return "the server closed the connection (it may have been restarted or stopped); run the command again"
        case "sslUnsupported":
            return "the server does not accept TLS connections"
        case "connectionError", "NIOConnectionError", "ChannelError", "IOError":
            return "nothing answered at \(hostAndPort(server)): is the server running and accepting TCP connections there?"
        default:
            return "the connection failed (\(code)); STRATA_VERBOSE=1 prints the driver's detail"
        }
    }
}

/// Connection ids for PostgresNIO's logs.
final class ManagedAtomicCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}
