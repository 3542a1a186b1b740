import Foundation
import PostgresNIO
import Strata

/// How a connection to a PostgreSQL server uses TLS, in libpq's words: the URL's `sslmode`,
/// `sslrootcert`, `sslcert` and `sslkey` (or `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT`,
/// `PGSSLKEY`), with libpq's defaults (docs/POSTGRES.md, "TLS").
///
/// ```
/// postgres://alice@db.example:5432/app/plans?sslmode=verify-full&sslrootcert=/etc/strata/ca.pem
/// ```
///
/// `verify-full` is the mode for a server on another machine: the connection is encrypted,
/// the server's certificate must be signed by an authority in `sslrootcert`, and it must
/// name the host the URL names. A Unix socket never uses TLS (as with libpq).
public struct PostgresTLS: Sendable, Equatable {
    /// libpq's `sslmode` values Strata accepts.
    public enum Mode: String, Sendable, CaseIterable {
        /// Never TLS.
        case disable
        /// TLS when the server offers it, else in clear; the certificate is not checked.
        /// libpq's default, and Strata's.
        case prefer
        /// TLS or no connection; the certificate is not checked (unless a root certificate
        /// file is there, which makes it `verify-ca`, as in libpq).
        case require
        /// TLS, and the server's certificate must be signed by an authority in `sslrootcert`.
        case verifyCA = "verify-ca"
        /// `verify-ca`, and the certificate must also name the host the URL connects to.
        case verifyFull = "verify-full"

        /// Whether the server's certificate chain is checked.
        var verifiesCertificate: Bool { self == .verifyCA || self == .verifyFull }
    }

    /// The mode in effect (after libpq's rule that `require` with a root certificate file
    /// is `verify-ca`).
    public let mode: Mode
    /// The file of trusted certificate authorities (PEM), `system` for the system's own,
    /// or nil when the mode checks no certificate.
    public let rootCertificate: String?
    /// The client certificate (PEM) the connection presents, if any.
    public let clientCertificate: String?
    /// The client certificate's private key (PEM), if any.
    public let clientKey: String?

    /// TLS settings from a URL's query items, falling back to the `PG…` environment
    /// variables and then to libpq's default files under `~/.postgresql/`.
    /// - Throws: `bad(reason)` for an unknown mode, an unreadable file, a certificate
    ///   without its key, or a verifying mode with no authority to verify against.
    init(query: [URLQueryItem], environment: [String: String] = ProcessInfo.processInfo.environment,
         home: String = NSHomeDirectory(), bad: (String) -> StrataError) throws {
        func setting(_ name: String) -> String? {
            if let value = query.last(where: { $0.name == name })?.value, !value.isEmpty { return value }
            return environment["PG" + name.uppercased()].flatMap { $0.isEmpty ? nil : $0 }
        }
        func defaultFile(_ name: String) -> String? {
            let path = "\(home)/.postgresql/\(name)"
            return FileManager.default.fileExists(atPath: path) ? path : nil
        }
        let named = setting("sslmode") ?? Mode.prefer.rawValue
        guard var mode = Mode(rawValue: named) else {
            let accepted = Mode.allCases.map(\.rawValue).joined(separator: ", ")
            if named == "allow" {
                throw bad("sslmode=allow is not supported: use sslmode=prefer (TLS when the server offers it) or sslmode=disable")
            }
            throw bad("sslmode must be one of \(accepted), not \(input: named)")
        }
        var root = setting("sslrootcert") ?? defaultFile("root.crt")
        if mode == .require, root != nil, root != "system" { mode = .verifyCA }
        if root == "system", mode != .verifyFull {
            // libpq's rule: the system's authorities sign certificates for any name, so
            // trusting them without checking the name would accept any site's certificate.
            throw bad("sslrootcert=system needs sslmode=verify-full, not sslmode=\(mode.rawValue)")
        }
        if mode.verifiesCertificate, root == nil {
            throw bad("sslmode=\(mode.rawValue) needs the certificate authority that signed the server's certificate: "
                + "give sslrootcert=FILE (or put it at ~/.postgresql/root.crt), sslrootcert=system for the system's "
                + "trusted authorities, or use sslmode=require to encrypt without checking the certificate")
        }
        if !mode.verifiesCertificate { root = nil }
        let certificate = setting("sslcert") ?? defaultFile("postgresql.crt")
        let key = setting("sslkey") ?? (certificate == nil ? nil : defaultFile("postgresql.key"))
        if (certificate == nil) != (key == nil) {
            throw bad(certificate == nil ? "sslkey is given without sslcert" : "sslcert is given without sslkey (the certificate's private key)")
        }
        for (name, path) in [("sslrootcert", root), ("sslcert", certificate), ("sslkey", key)] {
            guard let path, path != "system" else { continue }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw bad("\(name) file \(input: path) does not exist or cannot be read")
            }
        }
        self.mode = mode
        rootCertificate = root
        clientCertificate = certificate
        clientKey = key
    }

    /// The query items that carry these settings in a document URL, so that a remembered
    /// URL (`strata sync`) connects the same way; libpq's default mode adds none.
    var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if mode != .prefer { items.append(URLQueryItem(name: "sslmode", value: mode.rawValue)) }
        if let rootCertificate { items.append(URLQueryItem(name: "sslrootcert", value: rootCertificate)) }
        if let clientCertificate { items.append(URLQueryItem(name: "sslcert", value: clientCertificate)) }
        if let clientKey { items.append(URLQueryItem(name: "sslkey", value: clientKey)) }
        return items
    }

    /// PostgresNIO's TLS setting for a TCP connection.
    /// - Throws: `bad(reason)` when a certificate or key file is not valid PEM.
    func driverSetting(bad: (String) -> StrataError) throws -> PostgresConnection.Configuration.TLS {
        if mode == .disable { return .disable }
        var tls = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable, .prefer, .require: tls.certificateVerification = .none
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if let rootCertificate {
            tls.trustRoots = rootCertificate == "system" ? .default : .file(rootCertificate)
        }
        do {
            if let clientCertificate, let clientKey {
                tls.certificateChain = try NIOSSLCertificate.fromPEMFile(clientCertificate).map { .certificate($0) }
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: clientKey, format: .pem))
            }
            let context = try NIOSSLContext(configuration: tls)
            return mode == .prefer ? .prefer(context) : .require(context)
        } catch {
            let files = [rootCertificate, clientCertificate, clientKey].compactMap { $0 }.filter { $0 != "system" }
            throw bad("the TLS files (\(files.joined(separator: ", "))) are not PEM certificates and keys that belong together")
        }
    }

    /// What the mode promises, for messages: "sslmode=verify-full with sslrootcert=FILE".
    var summary: String {
        rootCertificate.map { "sslmode=\(mode.rawValue) with sslrootcert=\($0)" } ?? "sslmode=\(mode.rawValue)"
    }
}

extension PostgresTLS {
    /// What a failed connection's error means when TLS is the cause, in words a user can
    /// act on; nil when TLS is not the cause.
    func failureReason(for error: any Error, host: Substring) -> String? {
        if let error = error as? PSQLError, error.code == .sslUnsupported {
            return "the server does not accept TLS connections, and \(summary) requires TLS: turn on ssl in the "
                + "server's postgresql.conf, or use sslmode=prefer or sslmode=disable"
        }
        // The TLS library's error is the driver error's underlying one.
        let detail = String(reflecting: (error as? PSQLError)?.underlying ?? error)
        if detail.contains("failedToValidateHostname") {
            return "the server's certificate does not name \(host), and sslmode=verify-full checks that it does: "
                + "connect by a name the certificate lists, or use sslmode=verify-ca"
        }
        if detail.contains("CERTIFICATE_VERIFY_FAILED") || detail.contains("certificate verify failed") {
            return "the server's certificate is not signed by a certificate authority in sslrootcert=\(rootCertificate ?? "?") "
                + "(\(summary)): give the authority that signed it"
        }
        if detail.contains("NIOSSL") || detail.contains("handshakeFailed") || detail.contains("BoringSSL") {
            return "the TLS handshake failed (\(summary)); STRATA_VERBOSE=1 prints the driver's detail"
        }
        return nil
    }
}
