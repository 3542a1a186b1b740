import Foundation
import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// Reads from a streaming replica (docs/POSTGRES.md, "Reading from replicas"), against a
/// real primary and hot standby (Tools/postgres-server --replica): opens and catch-ups
/// read what the replica has replayed from it, the rest from the primary; saves always go
/// to the primary; a replica whose replay is paused or that is down costs nothing but the
/// primary's reads.
@Suite(.serialized) struct PostgresReplicaReadTests {
    private func session(_ url: String) throws -> PostgresSession {
        PostgresSession(try PostgresLocation(url, document: "admin"))
    }

    private func lastSequence(_ document: String, _ session: PostgresSession) throws -> Int {
        let rows = try session.rows("SELECT last_sequence::text FROM strata_documents WHERE name = '\(document)'")
        return Int(rows.first?.first.flatMap { $0 } ?? "") ?? 0
    }

    /// The replica's address for a `replica=` item.
    private func address(_ url: String) throws -> String {
        let components = try #require(URLComponents(string: url))
        return "\(components.host ?? "?"):\(components.port ?? 0)"
    }

    @Test func opensAndCatchUpsReadWhatTheReplicaReplayedAndTheRestFromThePrimary() throws {
        let (primaryURL, replicaURL) = try PostgresTestServer.replicated
        let primary = try session(primaryURL), standby = try session(replicaURL)
        defer { primary.close(); standby.close() }
        let name = uniqueDocumentName("replica")
        let writer = try PostgresStack(name, url: primaryURL, listens: false)
        defer { writer.close() }
        for last in ["Ada", "Grace", "Alan", "Edsger", "Barbara"] {
            try hire(last, writer.context)
            try writer.context.save()
        }
        let head = try lastSequence(name, primary)
        #expect(eventually { (try? lastSequence(name, standby)) == head }, "the replica replays the saves")

        let readURL = primaryURL + "?replica=\(try address(replicaURL))"
        let reader = try PostgresStack(name, url: readURL, create: false)
        defer { reader.close() }
        #expect(try lastNames(reader.context).count == 5)
        #expect(reader.store.serverReads.segmentsFromReplicas == head, "every segment of the open from the replica")
        #expect(reader.store.serverReads.segmentsFromPrimary == 0)

        // Replay paused: the replica lags, so the catch-ups take the rest from the primary.
        _ = try standby.query("SELECT pg_wal_replay_pause()")
        defer { _ = try? standby.query("SELECT pg_wal_replay_resume()") }
        for last in ["Frances", "John", "Donald"] {
            try hire(last, writer.context)
            try writer.context.save()
        }
        #expect(eventually { (try? lastNames(reader.newContext()).count) == 8 })
        #expect(reader.store.serverReads.segmentsFromPrimary >= 1)
        #expect(reader.store.serverReads.segmentsFromReplicas + reader.store.serverReads.segmentsFromPrimary == head + 3)

        // Saves go to the primary whatever the URL names.
        try hire("Radia", reader.context)
        try reader.context.save()
        try writer.store.catchUp()
        #expect(try lastNames(writer.newContext()).contains("Radia"))

        // A clone through the same URL reads the replica's share from it.
        let remote = try PostgresSegmentRemote(location: PostgresLocation(readURL, document: name))
        defer { remote.close() }
        #expect(try remote.segments(after: 0, limit: 1_000).count == head + 4)
    }

    @Test func aCompactedDocumentOpensFromTheReplicasSnapshotEvenWhenItIsOlderThanThePrimarys() throws {
        let (primaryURL, replicaURL) = try PostgresTestServer.replicated
        let primary = try session(primaryURL), standby = try session(replicaURL)
        defer { primary.close(); standby.close() }
        let name = uniqueDocumentName("replica-snapshot")
        let writer = try PostgresStack(name, url: primaryURL, listens: false)
        defer { writer.close() }
        for last in ["Ada", "Grace", "Alan"] {
            try hire(last, writer.context)
            try writer.context.save()
        }
        try writer.store.compact()
        try hire("Edsger", writer.context)
        try writer.context.save()
        let head = try lastSequence(name, primary)
        #expect(eventually { (try? lastSequence(name, standby)) == head }, "the replica replays the compaction and the save")

        let readURL = primaryURL + "?replica=\(try address(replicaURL))"
        let reader = try PostgresStack(name, url: readURL, create: false, listens: false)
        defer { reader.close() }
        #expect(try lastNames(reader.context).sorted() == ["Ada", "Alan", "Edsger", "Grace"])
        #expect(reader.store.openedFromServerSnapshot == 3)
        #expect(reader.store.serverReads == {
            var reads = PostgresDocumentStore.ServerReads()
            reads.snapshotsFromReplicas = 1
            reads.segmentsFromReplicas = 1
            return reads
        }(), "the snapshot and the segment after it from the replica, nothing from the primary")
        reader.close()

        // Replay paused: the primary compacts again and saves on; the replica still has the
        // first snapshot. An open takes it and the segments after it (the replica's, then
        // the primary's rest) and ends where the primary is.
        _ = try standby.query("SELECT pg_wal_replay_pause()")
        defer { _ = try? standby.query("SELECT pg_wal_replay_resume()") }
        for last in ["Barbara", "Frances"] {
            try hire(last, writer.context)
            try writer.context.save()
        }
        try writer.store.compact()
        try hire("John", writer.context)
        try writer.context.save()
        let lagging = try PostgresStack(name, url: readURL, create: false, listens: false)
        defer { lagging.close() }
        #expect(try lastNames(lagging.context).sorted() == ["Ada", "Alan", "Barbara", "Edsger", "Frances", "Grace", "John"])
        #expect(lagging.store.openedFromServerSnapshot == 3, "the replica's older snapshot")
        #expect(lagging.store.serverReads.snapshotsFromReplicas == 1)
        #expect(lagging.store.serverReads.segmentsFromReplicas == 1)
        #expect(lagging.store.serverReads.segmentsFromPrimary == 3, "the saves the replica has not replayed")
    }

    @Test func aReplicaThatIsDownSendsEveryReadToThePrimary() throws {
        let (primaryURL, _) = try PostgresTestServer.replicated
        let name = uniqueDocumentName("replica-down")
        let writer = try PostgresStack(name, url: primaryURL, listens: false)
        defer { writer.close() }
        try hire("Ada", writer.context)
        try writer.context.save()
        // Port 1 on the loopback: nothing listens there.
        let reader = try PostgresStack(name, url: primaryURL + "?replica=127.0.0.1:1", create: false, listens: false)
        defer { reader.close() }
        #expect(try lastNames(reader.context) == ["Ada"])
        #expect(reader.store.serverReads.segmentsFromReplicas == 0)
        #expect(reader.store.serverReads.segmentsFromPrimary == 1)
    }

    @Test func aReplicaMustBeAnAddressOverTCP() throws {
        for (query, words) in [("replica=", "must be HOST or HOST:PORT"), ("replica=a/b", "must be HOST or HOST:PORT"),
                               ("host=/tmp&replica=h:1", "cannot go with a Unix socket")] {
            let error = try #require(throws: StrataError.self) {
                _ = try PostgresLocation("postgres://strata@127.0.0.1:5432/postgres?\(query)", document: "d")
            }
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(words), "\(error.message)")
        }
        let location = try PostgresLocation("postgres://strata@10.0.0.1:5432/postgres?replica=10.0.0.2&replica=10.0.0.3:6432",
                                            document: "d")
        #expect(location.replicas.map(\.server) == ["strata@10.0.0.2:5432/postgres", "strata@10.0.0.3:6432/postgres"])
        #expect(try PostgresLocation(documentURL: location.documentURL).replicas.count == 2)
    }
}
