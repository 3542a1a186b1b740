import Foundation
import Strata
import StrataPostgres
import StrataTestSupport

/// The PostgreSQL server the tests use: `STRATA_POSTGRES_URL` when set, else one started
/// through Tools/postgres-server on first use and stopped when the test process exits.
/// Every test uses documents of its own (``uniqueDocumentName(_:)``), so tests run in
/// parallel on one server.
enum PostgresTestServer {
    /// The server's URL (`postgres://strata@127.0.0.1:PORT/postgres`).
    static var url: String {
        get throws { try shared.get() }
    }

    private static let shared: Result<String, any Error> = Result {
        if let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"], !url.isEmpty { return url }
        let url = try start()
        started.withLock { $0 = url }
        atexit { PostgresTestServer.stopStarted() }
        return url
    }

    /// A second server with TLS on (`Tools/postgres-server --tls`), started on first use
    /// for the TLS tests and stopped when the test process exits.
    static var tlsURL: String {
        get throws { try sharedTLS.get() }
    }

    private static let sharedTLS: Result<String, any Error> = Result {
        let url = try start(arguments: "--tls")
        startedTLS.withLock { $0 = url }
        atexit { if let url = PostgresTestServer.startedTLS.withLock({ $0 }) { PostgresTestServer.stop(url) } }
        return url
    }

    /// A file of the TLS server's throwaway certificates (Tools/postgres-server, "--tls"):
    /// `ca.crt`, `other-ca.crt`, `client.crt`, `client.key`.
    static func tlsFile(_ name: String) throws -> String {
        let url = try tlsURL
        guard let port = URLComponents(string: url)?.port else { throw StrataError(.io, "No port in \(url)") }
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return "\(directory)/strata-postgres-\(port)/tls/\(name)"
    }

    /// A primary and its streaming replica (`Tools/postgres-server --replica`), started on
    /// first use for the replica tests and stopped (both) when the test process exits.
    static var replicated: (primary: String, replica: String) {
        get throws { try sharedReplicated.get() }
    }

    private static let sharedReplicated: Result<(primary: String, replica: String), any Error> = Result {
        let lines = try start(arguments: "--replica").split(separator: "\n").map(String.init)
        guard lines.count == 2, lines[1].hasPrefix("postgres://") else {
            throw StrataError(.io, "Tools/postgres-server --replica printed \(lines)")
        }
        startedReplicated.withLock { $0 = lines[0] }
        atexit { if let url = PostgresTestServer.startedReplicated.withLock({ $0 }) { PostgresTestServer.stop(url) } }
        return (lines[0], lines[1])
    }

    private static let started = Locked<String?>(nil)
    private static let startedReplicated = Locked<String?>(nil)
    private static let startedTLS = Locked<String?>(nil)

    /// The repository's Tools/postgres-server.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/postgres-server")

    /// Starts a throwaway server and returns its URL.
    static func start(arguments: String = "") throws -> String {
        let result = shell("/bin/bash '\(script.path)' \(arguments)")
        let url = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, url.hasPrefix("postgres://") else {
            throw StrataError(.io, "Tools/postgres-server failed (status \(result.status)): \(result.output)")
        }
        return url
    }

    /// Stops a server `start()` started.
    static func stop(_ url: String) {
        _ = shell("/bin/bash '\(script.path)' stop '\(url)'")
    }

    /// Runs a shell command through popen: Foundation's Process waits for its child with
    /// dispatch, which can starve while every test thread waits for the first start
    /// (a static initializer), so the server is started without it.
    private static func shell(_ command: String) -> (status: Int32, output: String) {
        guard let pipe = popen(command, "r") else { return (-1, "popen failed") }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        let status = pclose(pipe)
        return (status == 0 ? 0 : (status == -1 ? -1 : max(1, status >> 8)), String(decoding: output, as: UTF8.self))
    }

    private static func stopStarted() {
        if let url = started.withLock({ $0 }) { stop(url) }
    }
}

/// A name no other test uses.
func uniqueDocumentName(_ label: String) -> String { "\(label)-\(UUID().uuidString.prefix(8))" }

/// A store on a shared document with a coordinator and a context.
final class PostgresStack: @unchecked Sendable {
    let store: PostgresDocumentStore
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext

    init(_ document: String, url: String? = nil, create: Bool = true, listens: Bool = true,
         model: ManagedObjectModel = sharedExampleModel, serverCompactionThreshold: Int = 1_000, maxSegmentSize: Int? = nil) throws {
        var configuration = PostgresDocumentStore.Configuration()
        if let maxSegmentSize { configuration.maxSegmentSize = maxSegmentSize }
        configuration.createsDocument = create
        configuration.listensForRemoteChanges = listens
        configuration.serverCompactionThreshold = serverCompactionThreshold
        store = try PostgresDocumentStore(location: PostgresLocation(url ?? PostgresTestServer.url, document: document),
                                          model: model, configuration: configuration)
        coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        context = ManagedObjectContext(coordinator: coordinator)
    }

    /// A coordinator and a context over a store opened by the caller.
    init(store: PostgresDocumentStore) throws {
        self.store = store
        coordinator = PersistentStoreCoordinator(model: store.model)
        try coordinator.addStore(store)
        context = ManagedObjectContext(coordinator: coordinator)
    }

    func newContext() -> ManagedObjectContext { ManagedObjectContext(coordinator: coordinator) }

    func close() { try? store.close() }
}

/// Waits (polling; the deadline bounds a hang, it measures nothing) until `condition`.
func eventually(timeout: TimeInterval = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return try condition()
}

@discardableResult
func hire(_ last: String, salary: Int64 = 100, in department: ManagedObject? = nil, _ context: ManagedObjectContext) throws -> ManagedObject {
    let employee = try context.insertObject(forEntityName: "Employee")
    try employee.setValue(.string("X"), forKey: "firstName")
    try employee.setValue(.string(last), forKey: "lastName")
    try employee.setValue(.integer(salary), forKey: "salary")
    if let department { try employee.setObject(department, forKey: "department") }
    return employee
}

func department(_ name: String, _ context: ManagedObjectContext) throws -> ManagedObject {
    let department = try context.insertObject(forEntityName: "Department")
    try department.setValue(.string(name), forKey: "name")
    return department
}

func lastNames(_ context: ManagedObjectContext, _ predicate: String? = nil) throws -> [String] {
    let request = FetchRequest(entityName: "Employee", predicate: try predicate.map { try FetchPredicate(format: $0) },
                               sortDescriptors: [FetchSortDescriptor("lastName")])
    return try context.fetch(request).map { try $0.string("lastName") ?? "?" }
}
