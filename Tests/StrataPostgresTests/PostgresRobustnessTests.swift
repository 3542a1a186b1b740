import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// A connection of the test's own to the test server, for what no store does: ending
/// another connection's server process (`pg_terminate_backend`), counting rows.
func adminSession() throws -> PostgresSession {
    PostgresSession(try PostgresLocation(PostgresTestServer.url, document: "admin"))
}

/// The first column of the first row of `sql` (cast to text).
func scalar(_ session: PostgresSession, _ sql: String) throws -> String? {
    try session.rows(sql).first?.first ?? nil
}

/// The document's row id on the server.
func documentID(_ name: String, _ session: PostgresSession) throws -> String {
    try #require(try scalar(session, "SELECT id::text FROM strata_documents WHERE name = '\(name)'"))
}

/// Whether the server process `pid` is a listening connection: its last statement was a
/// LISTEN or an UNLISTEN (the process's stores share it and come and go;
/// docs/POSTGRES.md, "Connections").
func isListening(_ pid: Int32, _ session: PostgresSession) throws -> Bool {
    try scalar(session, "SELECT count(*)::text FROM pg_stat_activity WHERE pid = \(pid) AND query ~ '^(UN)?LISTEN '") == "1"
}

@Suite("PostgreSQL document: dropped connections and passwords")
struct PostgresRobustnessTests {
    /// A read or a BEGIN sent on a connection the server ended while it sat unused runs
    /// again on a new connection, whether or not the session saw the end before sending it.
    @Test func aReadOrABeginOnAConnectionTheServerEndedRunsOnANewOne() throws {
        let session = PostgresSession(try PostgresLocation(PostgresTestServer.url, document: "robust"))
        defer { session.close() }
        let admin = try adminSession()
        defer { admin.close() }
        var pids: Set<Int32> = []
        for round in 0..<20 {
            let pid = try session.backendPID()
            pids.insert(pid)
            // Half the rounds do not wait for the server process to go: the statement is
            // sent while the end is on its way.
            let wait = round < 10 ? ", 10000" : ""
            let ended = try admin.rows("SELECT pg_terminate_backend(\(pid)\(wait))::text")
            #expect(ended.map { $0.first ?? nil } == ["true"], "round \(round)")
            if round.isMultiple(of: 2) {
                #expect(try session.rows("SELECT 'read'::text") == [["read"]], "round \(round)")
            } else {
                _ = try session.rows("BEGIN")
                #expect(try session.rows("SELECT 'in'::text") == [["in"]], "round \(round)")
                _ = try session.rows("COMMIT")
            }
        }
        #expect(pids.count == 20, "a new server process each round")
    }

    @Test func aListenerWhoseConnectionIsEndedReconnectsAndFollowsLaterSaves() throws {
        let name = uniqueDocumentName("reconnect")
        let one = try PostgresStack(name, listens: false)
        defer { one.close() }
        try hire("Lovelace", one.context)
        try one.context.save()
        let two = try PostgresStack(name, create: false)
        defer { two.close() }
        let admin = try adminSession()
        defer { admin.close() }
        let first = try #require(two.store.listenerBackendPID)
        #expect(try isListening(first, admin))

        // End the listener's connection (waiting until its server process is gone), then save.
        let ended = try admin.rows("SELECT pg_terminate_backend(pid, 10000)::text FROM pg_stat_activity WHERE pid = \(first)")
        #expect(ended.map { $0.first ?? nil } == ["true"])
        try hire("Hopper", one.context)
        try one.context.save()
        // No catchUp() and no save in `two`: the listener reconnects and catches up.
        #expect(eventually { (try? lastNames(two.newContext())) == ["Hopper", "Lovelace"] })

        // It LISTENs again on a new connection: a later save arrives by NOTIFY.
        #expect(eventually { two.store.listenerBackendPID.map { $0 != first } ?? false })
        let second = try #require(two.store.listenerBackendPID)
        #expect(try isListening(second, admin))
        try hire("Liskov", one.context)
        try one.context.save()
        #expect(eventually { (try? lastNames(two.newContext())) == ["Hopper", "Liskov", "Lovelace"] })
    }

    @Test func aConnectionEndedInsideTheSavesServerTransactionIsNotCommittedAndARetrySavesOnce() throws {
        let name = uniqueDocumentName("midsave")
        let stack = try PostgresStack(name, listens: false)
        defer { stack.close() }
        try hire("Lovelace", stack.context)
        try stack.context.save()
        let admin = try adminSession()
        defer { admin.close() }
        let id = try documentID(name, admin)
        let countSQL = "SELECT count(*)::text FROM strata_segments WHERE document = \(id)"
        let before = try scalar(admin, countSQL)

        // After the segment's INSERT, before COMMIT: the save's server process is ended.
        let ended = Locked<[String?]>([])
        stack.store.beforeServerCommit = { pid in
            let rows = try admin.rows("SELECT pg_terminate_backend(\(pid), 10000)::text")
            ended.withLock { $0 += rows.map { $0.first ?? nil } }
        }
        let hopper = try hire("Hopper", stack.context)
        let error = try #require(throws: StrataError.self) { try stack.context.save() }
        #expect(ended.withLock { $0 } == ["true"])
        #expect(error.code == .server)
        #expect(error.context.kind == .notCommitted)
        #expect(error.message.contains("did not happen"))
        #expect(error.message.contains("127.0.0.1"))
        // Nothing happened: no new segment on the server, nothing in the replica.
        #expect(try scalar(admin, countSQL) == before)
        #expect(try lastNames(stack.newContext()) == ["Lovelace"])
        #expect(stack.context.hasChanges)
        #expect(hopper.objectID.isTemporaryID)

        // The retry connects again and saves exactly once.
        stack.store.beforeServerCommit = nil
        try stack.context.save()
        #expect(try scalar(admin, countSQL) == String(Int(before ?? "0")! + 1))
        let reader = try PostgresStack(name, create: false, listens: false)
        defer { reader.close() }
        #expect(try lastNames(reader.context) == ["Hopper", "Lovelace"])
    }

    /// COMMIT ran on the server but its answer never came back (the connection went away
    /// first): the store asks the server, finds its segment, and reports the save as done —
    /// saving it again would write it twice, calling it "did not happen" would lie.
    @Test func aCommitWhoseAnswerWasLostIsFoundOnTheServerAndCountsAsSaved() throws {
        let name = uniqueDocumentName("in-doubt")
        let stack = try PostgresStack(name, listens: false)
        defer { stack.close() }
        let admin = try adminSession()
        defer { admin.close() }
        let id = try documentID(name, admin)
        let countSQL = "SELECT count(*)::text FROM strata_segments WHERE document = \(id)"
        let before = Int(try scalar(admin, countSQL) ?? "") ?? -1

        let saving = Locked<Int32?>(nil)
        stack.store.beforeServerCommit = { pid in saving.withLock { $0 = pid } }
        stack.store.afterServerCommit = {
            // The save's server process ends before its answer could be read.
            let pid = saving.withLock { $0 } ?? 0
            _ = try admin.rows("SELECT pg_terminate_backend(\(pid), 10000)::text")
            throw StrataError(.server, "Cannot query the PostgreSQL server: the server closed the connection")
        }
        let lovelace = try hire("Lovelace", stack.context)
        try stack.context.save()
        #expect(!lovelace.objectID.isTemporaryID)
        #expect(!stack.context.hasChanges)
        #expect(Int(try scalar(admin, countSQL) ?? "") == before + 1)

        stack.store.beforeServerCommit = nil
        stack.store.afterServerCommit = nil
        try hire("Hopper", stack.context)
        try stack.context.save()
        #expect(Int(try scalar(admin, countSQL) ?? "") == before + 2)
        let reader = try PostgresStack(name, create: false, listens: false)
        defer { reader.close() }
        #expect(try lastNames(reader.context) == ["Hopper", "Lovelace"], "each save once")
    }

    /// Tools/postgres-server's role `strata_password` must give its password
    /// (`strata-password`); the test server is that script's (or one set up the same way).
    @Test func aWrongPasswordIsAServerErrorNamingTheServerAndTheRightOneOpens() throws {
        let url = try PostgresTestServer.url
        let name = uniqueDocumentName("password")
        let wrong = url.replacingOccurrences(of: "://strata@", with: "://strata_password:not-the-password@")
        let error = try #require(throws: StrataError.self) {
            try PostgresDocumentStore(url: wrong, document: name, model: sharedExampleModel, createIfMissing: true)
        }
        #expect(error.code == .server)
        #expect(error.message.contains("strata_password@127.0.0.1"), "\(error.message)")
        #expect(error.message.contains("password authentication failed"), "\(error.message)")
        #expect(!error.message.contains("not-the-password"), "the password is never shown")
        #expect(error.context.server?.contains("not-the-password") == false)

        let right = url.replacingOccurrences(of: "://strata@", with: "://strata_password:strata-password@")
        let stack = try PostgresStack(name, url: right, listens: false)
        defer { stack.close() }
        try hire("Lovelace", stack.context)
        try stack.context.save()
        let reader = try PostgresStack(name, create: false, listens: false)
        defer { reader.close() }
        #expect(try lastNames(reader.context) == ["Lovelace"])
    }

    @Test func theStrataToolTakesThePasswordFromPGPASSWORDAndSaysWhenItIsWrong() throws {
        let name = uniqueDocumentName("pgpassword")
        let setUp = try PostgresStack(name, listens: false)
        _ = try department("Research", setUp.context)
        try setUp.context.save()
        setUp.close()
        let remote = try PostgresTestServer.url.replacingOccurrences(of: "://strata@", with: "://strata_password@") + "/" + name
        let directory = try TemporaryDirectory()

        let refused = try CLI.run("strata", ["clone", remote, directory.path("refused.strata")],
                                  environment: ["PGPASSWORD": "not-the-password"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("strata_password@127.0.0.1"), "\(refused.stderr)")
        #expect(refused.stderr.contains("password authentication failed"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("not-the-password"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("refused.strata")))

        let clone = try CLI.run("strata", ["clone", remote, directory.path("b.strata")],
                                environment: ["PGPASSWORD": "strata-password"])
        #expect(clone.status == 0, "\(clone.stderr)")
        let fetched = try CLI.strata("fetch", directory.path("b.strata"), "Department", "--format", "json")
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect((try fetched.json() as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Research"])
    }
}
