import Foundation
import PostgresNIO
import Strata

/// Where a PostgreSQL document is: the server's connection settings from a
/// `postgres://` URL, and the document's name.
///
/// ```swift
/// let location = try PostgresLocation("postgres://alice@db.example:5432/app", document: "plans")
/// ```
///
/// The URL is `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`; `?host=/path/to/dir` connects
/// through the Unix socket in that directory instead of TCP. Over TCP, libpq's `sslmode`,
/// `sslrootcert`, `sslcert` and `sslkey` set TLS (``PostgresTLS``; `verify-full` for a
/// server on another machine).
public struct PostgresLocation: Sendable, CustomStringConvertible {
    /// The settings PostgresNIO connects with.
    public let configuration: PostgresConnection.Configuration
    /// The server as messages name it: `USER@HOST:PORT/DATABASE`, never the password.
    public let server: String
    /// The document's name (its row in `strata_documents`).
    public let document: String
    /// How a TCP connection uses TLS; nil for a Unix socket, which never does.
    public let tls: PostgresTLS?
    /// Streaming replicas of the server that opens, catch-ups, clones and pulls may read
    /// from (`replica=HOST[:PORT]` in the URL, repeatable; the same user, database and TLS
    /// settings): docs/POSTGRES.md, "Reading from replicas".
    public let replicas: [PostgresLocation]

    /// Parses a `postgres://` (or `postgresql://`) URL.
    /// - Throws: `.invalidArgument` naming the URL (without its password) and what is wrong.
    public init(_ url: String, document: String) throws {
        func bad(_ why: String) -> StrataError {
            StrataError(.invalidArgument, "Bad PostgreSQL URL '\(Self.redacted(url))': \(why).",
                        context: .init { $0.remote = Self.redacted(url) })
        }
        guard let components = URLComponents(string: url) else { throw bad("it is not a URL") }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw bad("it must start with postgres://")
        }
        guard !document.isEmpty, document.utf8.count <= 200 else {
            throw bad("the document name must be 1 to 200 bytes, not \(input: document)")
        }
        let user = components.user.flatMap { $0.removingPercentEncoding } ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        // A URL without a password takes libpq's PGPASSWORD, so remembered URLs (strata sync)
        // never need to hold one.
        let password = components.password.flatMap { $0.removingPercentEncoding }
            ?? ProcessInfo.processInfo.environment["PGPASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        var database = String(components.path.drop(while: { $0 == "/" }))
        if database.isEmpty { database = user }
        let socketDirectory = components.queryItems?.first(where: { $0.name == "host" })?.value
        let applicationName = Self.applicationName(components.queryItems ?? [])
        self.applicationName = applicationName
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw bad("port \(port) is out of range") }
        if let socketDirectory, socketDirectory.hasPrefix("/") {
            var settings = PostgresConnection.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
            settings.options.additionalStartupParameters = [("application_name", applicationName)]
            configuration = settings
            socketPeer = .unix(path: "\(socketDirectory)/.s.PGSQL.\(port)")
            server = "\(user)@\(socketDirectory):\(port)/\(database)"
            tls = nil
            guard !(components.queryItems ?? []).contains(where: { $0.name == "replica" }) else {
                throw bad("replica= reads from other servers over TCP: it cannot go with a Unix socket (host=)")
            }
            replicas = []
            documentURL = Self.url(user: user, host: "localhost", port: port, database: database, document: document,
                                   query: [URLQueryItem(name: "host", value: socketDirectory)])
        } else {
            guard let host = components.host, !host.isEmpty else { throw bad("it names no host") }
            let tls = try PostgresTLS(query: components.queryItems ?? [], bad: bad)
            var settings = PostgresConnection.Configuration(host: host, port: port, username: user, password: password,
                                                            database: database, tls: try tls.driverSetting(bad: bad))
            settings.options.connectTimeout = .seconds(10)
            settings.options.additionalStartupParameters = [("application_name", applicationName)]
            configuration = settings
            socketPeer = .tcp(port: UInt16(port))
            server = "\(user)@\(host):\(port)/\(database)"
            self.tls = tls
            let replicaItems = (components.queryItems ?? []).filter { $0.name == "replica" }
            replicas = try replicaItems.map { item in
                try Self.replica(item.value ?? "", of: components, defaultPort: port, document: document, bad: bad)
            }
            documentURL = Self.url(user: user, host: host, port: port, database: database, document: document,
                                   query: tls.queryItems + replicaItems)
        }
        self.document = document
    }

    /// A replica's location: the primary's URL with the replica's host and port, and no
    /// replicas of its own.
    private static func replica(_ address: String, of primary: URLComponents, defaultPort: Int, document: String,
                                bad: (String) -> StrataError) throws -> PostgresLocation {
        guard let parsed = URLComponents(string: "postgres://\(address)"), let host = parsed.host, !host.isEmpty,
              parsed.path.isEmpty, parsed.user == nil else {
            throw bad("replica=\(address) must be HOST or HOST:PORT")
        }
        var parts = primary
        parts.host = host
        parts.port = parsed.port ?? defaultPort
        parts.queryItems = primary.queryItems?.filter { $0.name != "replica" }
        if parts.queryItems?.isEmpty == true { parts.queryItems = nil }
        guard let url = parts.string else { throw bad("replica=\(address) must be HOST or HOST:PORT") }
        return try PostgresLocation(url, document: document)
    }

    /// The name connections show in `pg_stat_activity.application_name`.
    public let applicationName: String

    /// What a connection's socket is connected to (``PostgresSocketInheritance``).
    let socketPeer: PostgresSocketInheritance.Peer

    /// The URL's `application_name` (libpq's parameter), else `PGAPPNAME` when set (as
    /// libpq's tools take it), else `strata`, so that an operator can tell Strata's
    /// connections apart (and a test can end or count one process's connections).
    private static func applicationName(_ query: [URLQueryItem]) -> String {
        if let named = query.last(where: { $0.name == "application_name" })?.value, !named.isEmpty { return named }
        return ProcessInfo.processInfo.environment["PGAPPNAME"].flatMap { $0.isEmpty ? nil : $0 } ?? "strata"
    }

    /// Parses a URL whose last path component after the database is the document:
    /// `postgres://USER@HOST:PORT/DATABASE/DOCUMENT`, the form `strata` commands take.
    /// - Throws: `.invalidArgument` when the URL names no document.
    public init(documentURL url: String) throws {
        guard let components = URLComponents(string: url) else {
            throw StrataError(.invalidArgument, "Bad PostgreSQL URL '\(Self.redacted(url))': it is not a URL.",
                              context: .init { $0.remote = Self.redacted(url) })
        }
        let parts = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 2 else {
            throw StrataError(.invalidArgument,
                              "Bad PostgreSQL document URL '\(Self.redacted(url))': it must be postgres://USER@HOST:PORT/DATABASE/DOCUMENT.",
                              context: .init { $0.remote = Self.redacted(url) })
        }
        var database = components
        database.percentEncodedPath = "/\(parts[0])"
        try self.init(database.string ?? url, document: String(parts[1]).removingPercentEncoding ?? String(parts[1]))
    }

    /// The document's URL without a password, `postgres://USER@HOST:PORT/DATABASE/DOCUMENT`
    /// (with `?host=DIR` for a Unix socket, the TLS settings when not libpq's default):
    /// what `strata sync` remembers and
    /// ``init(documentURL:)`` reads back.
    public let documentURL: String

    /// The document's URL without a password (``documentURL``), as messages and `strata info` show it.
    public var description: String { documentURL }

    /// A document URL from its parts, percent-encoding what a URL path cannot hold.
    private static func url(user: String, host: String, port: Int, database: String, document: String,
                            query: [URLQueryItem]) -> String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = user
        components.host = host
        components.port = port
        var segment = CharacterSet.urlPathAllowed
        segment.remove("/")
        func encoded(_ part: String) -> String { part.addingPercentEncoding(withAllowedCharacters: segment) ?? part }
        components.percentEncodedPath = "/\(encoded(database))/\(encoded(document))"
        if !query.isEmpty { components.queryItems = query }
        return components.string ?? "postgres://\(user)@\(host):\(port)/\(database)/\(document)"
    }

    /// The URL with its password replaced by `***`, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "postgres://…"
    }
}
