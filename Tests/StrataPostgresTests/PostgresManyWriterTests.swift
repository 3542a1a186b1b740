import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Eight real processes (strata-postgres-writer) writing one PostgreSQL document at once.
/// Every save also changes the department every other process changes, so saves conflict
/// and are merged (object trump) on the way.
@Suite("PostgreSQL document: 8 processes write one document")
struct PostgresManyWriterTests {
    @Test func eightWriterProcessesEveryAcknowledgedSaveOnceNoKeyCollidesAllSeeAll() throws {
        let writers = 8
        let saves = 6
        let total = writers * saves
        let name = uniqueDocumentName("writers")
        let url = try PostgresTestServer.url
        let setUp = try PostgresStack(name)
        _ = try department("Shared", setUp.context)
        try setUp.context.save()
        setUp.close()

        let program = builtExecutable("strata-postgres-writer").path
        let results = Locked<[Int: (status: Int32, output: String, error: String)]>([:])
        let threads = (0..<writers).map { index in
            Thread {
                let result = (try? runProcess(program, [url, name, "W\(index)", String(saves), String(total)]))
                    ?? (status: -1, output: "", error: "could not start \(program)")
                results.withLock { $0[index] = result }
            }
        }
        threads.forEach { $0.start() }
        // Each process ends by itself (its wait for the others is bounded).
        while results.withLock({ $0.count }) < writers { Thread.sleep(forTimeInterval: 0.05) }

        var acknowledged: [String: Int64] = [:]   // "W3 5" → primary key
        for index in 0..<writers {
            let result = try #require(results.withLock { $0[index] })
            #expect(result.status == 0, "writer \(index): \(result.error)")
            let lines = result.output.split(separator: "\n").map(String.init)
            #expect(!lines.contains { $0.hasPrefix("failed") }, "writer \(index): \(result.output)")
            for line in lines where line.hasPrefix("ack ") {
                let parts = line.split(separator: " ")
                acknowledged["W\(index) \(parts[1])"] = Int64(parts[2])
            }
            // Every process saw every other's saves, through NOTIFY.
            let expected = (0..<writers).map { "W\($0)=\(saves)" }.sorted().joined(separator: ",")
            #expect(lines.last == "saw \(total) \(expected)", "writer \(index)")
        }
        #expect(acknowledged.count == total)
        #expect(Set(acknowledged.values).count == acknowledged.count, "primary keys never collide")

        // The document as a new store reads it: every acknowledged save exactly once.
        let reader = try PostgresStack(name, create: false, listens: false)
        defer { reader.close() }
        let employees = try reader.context.fetch(FetchRequest(entityName: "Employee"))
        var found: [String: Int] = [:]
        for employee in employees {
            found["\(try employee.string("firstName") ?? "?") \(try employee.int("employeeID") ?? -1)", default: 0] += 1
            #expect(acknowledged["\(try employee.string("firstName") ?? "?") \(try employee.int("employeeID") ?? -1)"]
                    == employee.objectID.primaryKey)
        }
        #expect(found.count == total)
        #expect(found.values.allSatisfy { $0 == 1 })
        #expect(Set(found.keys) == Set(acknowledged.keys))
        let shared = try #require(try reader.context.fetch(FetchRequest(entityName: "Department")).first)
        #expect(try shared.objects(forKey: "employees").count == total)
    }
}
