import Foundation
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
        let result = try CLI.strata("push", document, "postgres://nobody@127.0.0.1:1/app/doc")
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("strata-postgres: error: ") == true, "\(result.stderr)")
        #expect(result.stderr.contains("nothing answered at 127.0.0.1:1"), "\(result.stderr)")
        for fragment in ["SingleConnectionFailure", "authMechanismRequiresPassword", "NIOConnectionError"] {
            #expect(!result.stderr.contains(fragment), "'\(fragment)' in: \(result.stderr)")
        }
        let verbose = try CLI.run("strata", ["push", document, "postgres://nobody@127.0.0.1:1/app/doc"], environment: ["STRATA_VERBOSE": "1"])
        #expect(verbose.stderr.contains("strata-postgres: detail: driverDetail: "), "\(verbose.stderr)")
    }
}
