import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// The primary dies and its synchronous replica is promoted while writer processes save
/// (docs/POSTGRES.md, "Errors"; docs/SCALING.md, "Replication"). The writers save again
/// what was reported as not having happened, so a report that lied would show as a save
/// twice: every save ends up on the new primary exactly once, with the key its writer was
/// told, and the writers go on saving through it.
///
/// The writers know one address, a Tools/network-proxy in front of the primary, which the
/// test moves to the promoted replica (as a virtual IP or a DNS name would move).
@Suite(.serialized) struct PostgresFailoverTests {
    /// Tools/network-proxy forwarding 127.0.0.1:`port` (0: a free one) to `target`.
    private final class Proxy {
        let process: SpawnedProcess
        let port: Int
        let log: String

        init(port: Int, target: Int, directory: TemporaryDirectory, name: String) throws {
            log = directory.path("\(name).out")
            let script = PostgresTestServer.script.deletingLastPathComponent().appendingPathComponent("network-proxy").path
            process = try SpawnedProcess("/usr/bin/env", ["python3", script, "--listen", "127.0.0.1:\(port)",
                                                          "--target", "127.0.0.1:\(target)"],
                                         stdin: nil, stdout: log, stderr: directory.path("\(name).err"))
            var found: Int?
            let deadline = Date().addingTimeInterval(30)
            while found == nil, Date() < deadline {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                // "network-proxy: 127.0.0.1:PORT -> …"
                found = text.split(separator: " ").dropFirst().first.flatMap { $0.split(separator: ":").last.flatMap { Int($0) } }
                if found == nil { Thread.sleep(forTimeInterval: 0.05) }
            }
            guard let found else { throw StrataError(.io, "Tools/network-proxy did not start (see \(log))") }
            self.port = found
        }

        func stop() {
            kill(process.pid, SIGTERM)
            _ = process.wait(deadline: 30)
        }
    }

    private func port(_ url: String) throws -> Int { try #require(URLComponents(string: url)?.port) }

    private func script(_ arguments: String) throws {
        let status = system("/bin/bash '\(PostgresTestServer.script.path)' \(arguments) >/dev/null")
        guard status == 0 else { throw StrataError(.io, "Tools/postgres-server \(arguments) failed (\(status))") }
    }

    @Test func aPromotedReplicaHoldsEveryAcknowledgedSaveOnceAndTheWritersGoOnThroughIt() throws {
        let servers = try PostgresTestServer.start(arguments: "--replica").split(separator: "\n").map(String.init)
        try #require(servers.count == 2)
        let (primaryURL, replicaURL) = (servers[0], servers[1])
        defer { PostgresTestServer.stop(primaryURL) }
        let directory = try TemporaryDirectory()
        var proxy = try Proxy(port: 0, target: try port(primaryURL), directory: directory, name: "proxy-1")
        defer { proxy.stop() }
        let url = "postgres://strata@127.0.0.1:\(proxy.port)/postgres"
        let name = uniqueDocumentName("failover")
        let setUp = try PostgresStack(name, url: url, listens: false)
        _ = try department("Shared", setUp.context)
        try setUp.context.save()
        setUp.close()

        // Four writers, 40 saves each, 40 ms apart: about two seconds of saving.
        let writers = 4, saves = 40
        let program = builtExecutable("strata-postgres-writer").path
        let children = try (0..<writers).map { index in
            try SpawnedProcess(program, [url, name, "W\(index)", String(saves), "0"], stdin: nil,
                               stdout: directory.path("w\(index).out"), stderr: directory.path("w\(index).err"),
                               environment: ["STRATA_WRITER_PAUSE_MS": "40", "STRATA_WRITER_RETRY": "1"])
        }
        // Once every writer has saved a few times, the primary crashes; the replica is
        // promoted and the address moves to it.
        #expect(eventually(timeout: 120) {
            (0..<writers).allSatisfy { index in
                ((try? String(contentsOfFile: directory.path("w\(index).out"), encoding: .utf8)) ?? "")
                    .components(separatedBy: "\nack ").count > 3
            }
        })
        try script("kill '\(primaryURL)'")
        proxy.stop()
        try script("promote '\(replicaURL)'")
        proxy = try Proxy(port: proxy.port, target: try port(replicaURL), directory: directory, name: "proxy-2")

        var acknowledged: [String: Int64] = [:], failed = 0
        for (index, child) in children.enumerated() {
            let ending = child.wait(deadline: 300)
            let output = (try? String(contentsOfFile: directory.path("w\(index).out"), encoding: .utf8)) ?? ""
            let errors = (try? String(contentsOfFile: directory.path("w\(index).err"), encoding: .utf8)) ?? ""
            #expect(ending == .exited(0), "writer \(index): \(errors)")
            for line in output.split(separator: "\n") {
                let parts = line.split(separator: " ")
                if parts.first == "ack", parts.count == 3 { acknowledged["W\(index) \(parts[1])"] = Int64(parts[2]) }
                if line.hasPrefix("failed") {
                    failed += 1
                    #expect(line.contains("did not happen") || line.contains("may not have happened"), "\(line)")
                }
            }
        }
        // Every save succeeded in the end (a failed one was saved again), most of them
        // before the crash or through the promoted replica.
        #expect(acknowledged.count == writers * saves)

        // The promoted replica, read through the moved address: every acknowledged save
        // once, with the key its writer was told, and nothing else.
        let reader = try PostgresStack(name, url: url, create: false, listens: false)
        defer { reader.close() }
        var found: [String: Int] = [:]
        for employee in try reader.context.fetch(FetchRequest(entityName: "Employee")) {
            let key = "\(try employee.string("firstName") ?? "?") \(try employee.int("employeeID") ?? -1)"
            found[key, default: 0] += 1
            #expect(acknowledged[key] == employee.objectID.primaryKey, "\(key) was not acknowledged, or under another key")
        }
        #expect(found.values.allSatisfy { $0 == 1 }, "no save twice")
        #expect(Set(found.keys) == Set(acknowledged.keys), "every acknowledged save, and only those")
        print("failover: \(acknowledged.count) saves acknowledged, \(failed) attempts reported as not done and saved again")
    }
}
