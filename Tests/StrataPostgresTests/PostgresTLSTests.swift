import Foundation
import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// TLS with libpq's vocabulary (docs/POSTGRES.md, "TLS"): each `sslmode` against a server
/// with a throwaway certificate authority (Tools/postgres-server --tls) and against the
/// plain test server, with the failures a user meets: an untrusted certificate, a name
/// the certificate does not list, a server without TLS, a missing client certificate.
@Suite(.serialized) struct PostgresTLSTests {
    /// The TLS server's URL with `host` in place of 127.0.0.1 and `query` appended.
    private func url(host: String = "127.0.0.1", user: String = "strata", _ query: String) throws -> String {
        try PostgresTestServer.tlsURL
            .replacingOccurrences(of: "://strata@127.0.0.1", with: "://\(user)@\(host)") + (query.isEmpty ? "" : "?\(query)")
    }

    /// Whether the server sees this location's connection as TLS (`pg_stat_ssl`).
    private func usesTLS(_ location: PostgresLocation) throws -> Bool {
        let session = PostgresSession(location)
        defer { session.close() }
        let rows = try session.rows("SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        return rows.first?.first == "true"
    }

    private func connectionError(_ url: String) throws -> StrataError {
        let location = try PostgresLocation(url, document: uniqueDocumentName("tls"))
        return try #require(throws: StrataError.self) { _ = try usesTLS(location) }
    }

    @Test func verifyFullWithTheAuthorityEncryptsAndADocumentRoundTrips() throws {
        let ca = try PostgresTestServer.tlsFile("ca.crt")
        let secure = try url(host: "localhost", "sslmode=verify-full&sslrootcert=\(ca)")
        let name = uniqueDocumentName("tls-full")
        #expect(try usesTLS(PostgresLocation(secure, document: name)))

        let writer = try PostgresStack(name, url: secure)
        defer { writer.close() }
        let reader = try PostgresStack(name, url: secure, create: false)
        defer { reader.close() }
        try hire("Lovelace", writer.context)
        try writer.context.save()
        // The reader's listener connects with the same settings and hears the save.
        #expect(eventually { (try? lastNames(reader.newContext())) == ["Lovelace"] })
    }

    @Test func preferIsTheDefaultAndUsesTLSWhenTheServerOffersIt() throws {
        #expect(try usesTLS(PostgresLocation(url(""), document: "d")))
        #expect(try !usesTLS(PostgresLocation(url("sslmode=disable"), document: "d")))
        // The plain test server offers no TLS: prefer connects in clear.
        #expect(try !usesTLS(PostgresLocation(PostgresTestServer.url, document: "d")))
    }

    @Test func verifyCAChecksTheAuthorityButNotTheName() throws {
        let ca = try PostgresTestServer.tlsFile("ca.crt")
        #expect(try usesTLS(PostgresLocation(url("sslmode=verify-ca&sslrootcert=\(ca)"), document: "d")))
        // libpq's rule: require with a root certificate file is verify-ca.
        let required = try PostgresLocation(url("sslmode=require&sslrootcert=\(ca)"), document: "d")
        #expect(required.tls?.mode == .verifyCA)
        #expect(try usesTLS(required))
    }

    @Test func aNameTheCertificateDoesNotListIsRefusedByVerifyFull() throws {
        let ca = try PostgresTestServer.tlsFile("ca.crt")
        let error = try connectionError(url(host: "127.0.0.1", "sslmode=verify-full&sslrootcert=\(ca)"))
        #expect(error.code == .server)
        #expect(error.message.contains("certificate does not name 127.0.0.1"), "\(error.message)")
        #expect(error.message.contains("verify-ca"), "says what to do instead: \(error.message)")
    }

    @Test func aCertificateFromAnotherAuthorityIsRefused() throws {
        let other = try PostgresTestServer.tlsFile("other-ca.crt")
        for mode in ["verify-ca", "verify-full"] {
            let error = try connectionError(url(host: "localhost", "sslmode=\(mode)&sslrootcert=\(other)"))
            #expect(error.code == .server)
            #expect(error.message.contains("not signed by a certificate authority in sslrootcert=\(other)"), "\(error.message)")
        }
    }

    @Test func requireAgainstAServerWithoutTLSSaysSo() throws {
        let plain = try PostgresTestServer.url + "?sslmode=require"
        let error = try connectionError(plain)
        #expect(error.code == .server)
        #expect(error.message.contains("does not accept TLS connections"), "\(error.message)")
        #expect(error.message.contains("sslmode=require"), "\(error.message)")
    }

    @Test func aClientCertificateLogsInTheRoleItNamesAndItsAbsenceIsRefused() throws {
        let certificate = try PostgresTestServer.tlsFile("client.crt")
        let key = try PostgresTestServer.tlsFile("client.key")
        let withCertificate = try PostgresLocation(
            url(user: "strata_cert", "sslmode=require&sslcert=\(certificate)&sslkey=\(key)"), document: "d")
        let session = PostgresSession(withCertificate)
        defer { session.close() }
        #expect(try session.rows("SELECT current_user::text").first?.first == "strata_cert")

        let error = try connectionError(url(user: "strata_cert", "sslmode=require"))
        #expect(error.message.contains("certificate"), "\(error.message)")
    }

    @Test func badSettingsAreNamedBeforeAnyConnection() throws {
        func message(_ query: String) -> String {
            do {
                _ = try PostgresLocation("postgres://strata@127.0.0.1:5432/postgres?\(query)", document: "d")
                return "no error"
            } catch let error as StrataError {
                #expect(error.code == .invalidArgument)
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(message("sslmode=strict").contains("sslmode must be one of disable, prefer, require, verify-ca, verify-full"))
        #expect(message("sslmode=allow").contains("sslmode=allow is not supported"))
        #expect(message("sslmode=verify-full&sslrootcert=/nonexistent/ca.crt").contains("sslrootcert file"))
        #expect(message("sslmode=require&sslrootcert=system").contains("sslrootcert=system needs sslmode=verify-full"))
        #expect(message("sslcert=/etc/hostname").contains("sslcert is given without sslkey"))
        let notPEM = message("sslmode=verify-ca&sslrootcert=/etc/hostname")
        #expect(notPEM.contains("not PEM"), "\(notPEM)")
        if !FileManager.default.fileExists(atPath: NSHomeDirectory() + "/.postgresql/root.crt") {
            #expect(message("sslmode=verify-full").contains("needs the certificate authority"))
        }
    }

    @Test func aDocumentURLKeepsItsTLSSettings() throws {
        let ca = try PostgresTestServer.tlsFile("ca.crt")
        let location = try PostgresLocation(url(host: "localhost", "sslmode=verify-full&sslrootcert=\(ca)"), document: "plans")
        #expect(location.documentURL.contains("sslmode=verify-full"), "\(location.documentURL)")
        let again = try PostgresLocation(documentURL: location.documentURL)
        #expect(again.tls == location.tls)
        #expect(again.document == "plans")
        #expect(try usesTLS(again))
    }

    /// The `strata` tool takes the same URL: a clone through verify-full works, and one
    /// with an untrusted authority fails with the message and a non-zero exit.
    @Test func theStrataToolClonesThroughVerifyFullAndNamesAnUntrustedCertificate() throws {
        let name = uniqueDocumentName("tls-clone")
        let ca = try PostgresTestServer.tlsFile("ca.crt")
        let secure = try url(host: "localhost", "sslmode=verify-full&sslrootcert=\(ca)")
        let setUp = try PostgresStack(name, url: secure, listens: false)
        try hire("Hopper", setUp.context)
        try setUp.context.save()
        setUp.close()
        let directory = try TemporaryDirectory()
        let base = try PostgresTestServer.tlsURL.replacingOccurrences(of: "@127.0.0.1", with: "@localhost") + "/" + name

        let cloned = try CLI.run("strata", ["clone", "\(base)?sslmode=verify-full&sslrootcert=\(ca)", directory.path("good.strata")])
        #expect(cloned.status == 0, "\(cloned.stderr)")
        let fetched = try CLI.run("strata", ["fetch", directory.path("good.strata"), "Employee", "--format", "csv"])
        #expect(fetched.stdout.contains("Hopper"), "\(fetched.stdout)\(fetched.stderr)")

        let other = try PostgresTestServer.tlsFile("other-ca.crt")
        let refused = try CLI.run("strata", ["clone", "\(base)?sslmode=verify-full&sslrootcert=\(other)", directory.path("bad.strata")])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("not signed by a certificate authority"), "\(refused.stderr)")
    }
}
