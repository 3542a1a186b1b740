import Foundation
import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// What open stores cost the server (docs/POSTGRES.md, "Connections"), counted in
/// `pg_stat_activity` by an application name only this test's connections carry: the
/// stores of a process share one listening connection, and an idle store's connection for
/// saves closes, so many open, idle stores cost one connection.
@Suite(.serialized) struct PostgresConnectionCountTests {
    private func count(_ name: String, _ admin: PostgresSession) throws -> Int {
        let rows = try admin.rows("SELECT count(*)::text FROM pg_stat_activity WHERE application_name = '\(name)'")
        return Int(rows.first?.first.flatMap { $0 } ?? "") ?? -1
    }

    private func stack(_ document: String, url: String, create: Bool) throws -> PostgresStack {
        var configuration = PostgresDocumentStore.Configuration()
        configuration.createsDocument = create
        configuration.idleConnectionTimeout = 0.3
        let store = try PostgresDocumentStore(location: PostgresLocation(url, document: document), model: sharedExampleModel,
                                              configuration: configuration)
        return try PostgresStack(store: store)
    }

    @Test func fourStoresOnTwoDocumentsCostOneListeningConnectionWhenIdleAndStillHearEachOther() throws {
        let name = "strata-count-\(UUID().uuidString.prefix(8))"
        let url = try PostgresTestServer.url + "?application_name=\(name)"
        let admin = PostgresSession(try PostgresLocation(PostgresTestServer.url, document: "admin"))
        defer { admin.close() }
        let first = uniqueDocumentName("count-a"), second = uniqueDocumentName("count-b")
        let stacks = try [stack(first, url: url, create: true), stack(first, url: url, create: false),
                          stack(second, url: url, create: true), stack(second, url: url, create: false)]
        defer { for stack in stacks { stack.close() } }

        // Every store's listener is the one connection.
        let listeners = Set(stacks.compactMap { $0.store.listenerBackendPID })
        #expect(listeners.count == 1)
        #expect(eventually(timeout: 30) { (try? count(name, admin)) == 1 }, "open, idle: only the shared listener")

        // A save opens the saver's connection for a moment; the others hear it through the
        // shared listener, and everything goes idle again.
        try hire("Lovelace", stacks[0].context)
        try stacks[0].context.save()
        try hire("Hopper", stacks[3].context)
        try stacks[3].context.save()
        #expect(eventually { (try? lastNames(stacks[1].newContext())) == ["Lovelace"] })
        #expect(eventually { (try? lastNames(stacks[2].newContext())) == ["Hopper"] })
        #expect(eventually(timeout: 30) { (try? count(name, admin)) == 1 })

        // The shared listener's server process ended: it reconnects, and the stores keep hearing.
        let pid = try #require(stacks[0].store.listenerBackendPID)
        _ = try admin.rows("SELECT pg_terminate_backend(\(pid))::text")
        #expect(eventually { stacks[0].store.listenerBackendPID.map { $0 != pid } ?? false })
        try hire("Turing", stacks[1].context)
        try stacks[1].context.save()
        #expect(eventually { (try? lastNames(stacks[0].newContext())) == ["Lovelace", "Turing"] })

        // Closing the stores closes the listener with the last one.
        for stack in stacks.dropLast() { stack.close() }
        #expect(try count(name, admin) >= 1, "one store still open")
        stacks.last?.close()
        #expect(eventually(timeout: 30) { (try? count(name, admin)) == 0 })
    }

    /// SwiftNIO's sockets are not close-on-exec: a child process started while a store's
    /// connection is open would hold the socket, and the server would keep the connection
    /// after the store closed it, until the child exits (``PostgresSocketInheritance``).
    @Test func aChildProcessStartedWhileAConnectionIsOpenDoesNotKeepItOpen() throws {
        let name = "strata-child-\(UUID().uuidString.prefix(8))"
        let url = try PostgresTestServer.url + "?application_name=\(name)"
        let admin = PostgresSession(try PostgresLocation(PostgresTestServer.url, document: "admin"))
        defer { admin.close() }
        var configuration = PostgresDocumentStore.Configuration()
        configuration.createsDocument = true
        configuration.idleConnectionTimeout = nil
        configuration.listensForRemoteChanges = false
        let store = try PostgresDocumentStore(location: PostgresLocation(url, document: uniqueDocumentName("child")),
                                              model: sharedExampleModel, configuration: configuration)
        #expect(try count(name, admin) == 1, "the store keeps its connection open")

        // Started as `system` and `popen` start children (fork and exec, every descriptor
        // not marked close-on-exec inherited), as the test servers are.
        let pid = try startSleepingChild()
        defer { kill(pid, SIGTERM) }
        try store.close()
        #expect(eventually(timeout: 30) { (try? count(name, admin)) == 0 }, "closed while the child still runs")
        #expect(kill(pid, 0) == 0, "the child still runs")
    }

    /// A `sleep` started through popen's shell, left running; returns its process id.
    private func startSleepingChild() throws -> pid_t {
        let pipe = try #require(popen("sleep 120 >/dev/null 2>&1 & echo $!", "r"))
        var line = [CChar](repeating: 0, count: 64)
        let read = fgets(&line, Int32(line.count), pipe)
        pclose(pipe)
        return try #require(read.flatMap { pid_t(String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines)) })
    }
}
