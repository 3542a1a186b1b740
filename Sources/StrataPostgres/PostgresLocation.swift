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
/// through the Unix socket in that directory instead of TCP. TLS is not used (a server
/// on another machine belongs behind a tunnel or a local proxy; docs/POSTGRES.md).
public struct PostgresLocation: Sendable, CustomStringConvertible {
    /// The settings PostgresNIO connects with.
    public let configuration: PostgresConnection.Configuration
    /// The server as messages name it: `USER@HOST:PORT/DATABASE`, never the password.
    public let server: String
    /// The document's name (its row in `strata_documents`).
    public let document: String

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
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw bad("port \(port) is out of range") }
        if let socketDirectory, socketDirectory.hasPrefix("/") {
            var settings = PostgresConnection.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
            settings.options.additionalStartupParameters = Self.startupParameters
            configuration = settings
            server = "\(user)@\(socketDirectory):\(port)/\(database)"
            documentURL = Self.url(user: user, host: "localhost", port: port, database: database, document: document,
                                   socketDirectory: socketDirectory)
        } else {
            guard let host = components.host, !host.isEmpty else { throw bad("it names no host") }
            var settings = PostgresConnection.Configuration(host: host, port: port, username: user, password: password,
                                                            database: database, tls: .disable)
            settings.options.connectTimeout = .seconds(10)
            settings.options.additionalStartupParameters = Self.startupParameters
            configuration = settings
            server = "\(user)@\(host):\(port)/\(database)"
            documentURL = Self.url(user: user, host: host, port: port, database: database, document: document,
                                   socketDirectory: nil)
        }
        self.document = document
    }

    /// The name a connection shows in `pg_stat_activity.application_name`: `PGAPPNAME`
    /// when set (as libpq's tools take it), else `strata`, so that an operator can tell
    /// Strata's connections apart (and a test can end one process's connections).
    static var startupParameters: [(String, String)] {
        let name = ProcessInfo.processInfo.environment["PGAPPNAME"].flatMap { $0.isEmpty ? nil : $0 } ?? "strata"
        return [("application_name", name)]
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
    /// (with `?host=DIR` for a Unix socket): what `strata sync` remembers and
    /// ``init(documentURL:)`` reads back.
    public let documentURL: String

    /// The document's URL without a password (``documentURL``), as messages and `strata info` show it.
    public var description: String { documentURL }

    /// A document URL from its parts, percent-encoding what a URL path cannot hold.
    private static func url(user: String, host: String, port: Int, database: String, document: String,
                            socketDirectory: String?) -> String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = user
        components.host = host
        components.port = port
        var segment = CharacterSet.urlPathAllowed
        segment.remove("/")
        func encoded(_ part: String) -> String { part.addingPercentEncoding(withAllowedCharacters: segment) ?? part }
        components.percentEncodedPath = "/\(encoded(database))/\(encoded(document))"
        if let socketDirectory { components.queryItems = [URLQueryItem(name: "host", value: socketDirectory)] }
        return components.string ?? "postgres://\(user)@\(host):\(port)/\(database)/\(document)"
    }

    /// The URL with its password replaced by `***`, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "postgres://…"
    }
}
