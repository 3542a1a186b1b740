import Foundation
#if canImport(Glibc)
import Glibc
#endif
import StrataTestSupport
import Testing

/// `strata push` to a server nothing answers at: `strata` hands the remote to
/// `strata-postgres` (docs/POSTGRES.md, "The strata-postgres tool"), whose one error line
/// names the server, in Strata's words, not the driver's types (docs/RELIABILITY.md).
@Suite("PostgreSQL document: an unreachable server")
struct PostgresUnreachableServerTests {
    @Test("a PostgreSQL server that cannot be reached is named with its host and port, not the driver's types")
    func unreachableServer() throws {
        let sandbox = try TemporaryDirectory()
        let document = sandbox.path("staff.strata")
        #expect(try CLI.run("strata", ["new", document, "--example", "employees"]).status == 0)
        let port = try closedPort()
        let remote = "postgres://nobody@127.0.0.1:\(port)/app/doc"
        let result = try CLI.strata("push", document, remote)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("strata-postgres: error: ") == true, "\(result.stderr)")
        #expect(result.stderr.contains("nothing answered at 127.0.0.1:\(port)"), "\(result.stderr)")
        for fragment in ["SingleConnectionFailure", "authMechanismRequiresPassword", "NIOConnectionError"] {
            #expect(!result.stderr.contains(fragment), "'\(fragment)' in: \(result.stderr)")
        }
        let verbose = try CLI.run("strata", ["push", document, remote], environment: ["STRATA_VERBOSE": "1"])
        #expect(verbose.stderr.contains("strata-postgres: detail: driverDetail: "), "\(verbose.stderr)")
    }
}

/// A loopback port nothing listens at: one the kernel just handed out and this process
/// closed again (a fixed port such as 1 may be taken, or filtered, on some machines).
private func closedPort() throws -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw CocoaError(.fileReadUnknown) }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
        }
    }
    guard bound else { throw CocoaError(.fileReadUnknown) }
    return Int(UInt16(bigEndian: address.sin_port))
}
