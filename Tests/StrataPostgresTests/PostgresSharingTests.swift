import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Collects the remote-change notifications a coordinator posts (on any thread).
final class RemoteChangeRecorder: @unchecked Sendable {
    private let received = Locked<[StoreRemoteChange]>([])
    private var token: (any NSObjectProtocol)?

    init(_ coordinator: PersistentStoreCoordinator) {
        token = NotificationCenter.default.addObserver(
            forName: PersistentStoreCoordinator.storeRemoteChangeNotification, object: coordinator, queue: nil
        ) { [received] note in
            guard let change = note.userInfo?[PersistentStoreCoordinator.remoteChangeKey] as? StoreRemoteChange else { return }
            received.withLock { $0.append(change) }
        }
    }

    deinit { token.map(NotificationCenter.default.removeObserver) }

    var changes: [StoreRemoteChange] { received.withLock { $0 } }
}

/// Records what a fetched results controller reports.
final class ControllerLog: FetchedResultsControllerDelegate, @unchecked Sendable {
    let changed = Locked(0)
    func controllerDidChangeContent(_ controller: FetchedResultsController<some ManagedObject>) { changed.withLock { $0 += 1 } }
}

@Suite("PostgreSQL document: two stores share it (NOTIFY, conflicts)")
struct PostgresSharingTests {
    @Test func aSaveInOneStoreReachesTheOthersFetchedResultsControllerThroughNotify() throws {
        let name = uniqueDocumentName("notify")
        let one = try PostgresStack(name)
        defer { one.close() }
        let research = try department("Research", one.context)
        try hire("Lovelace", in: research, one.context)
        try one.context.save()

        let two = try PostgresStack(name, create: false)
        defer { two.close() }
        let recorder = RemoteChangeRecorder(two.coordinator)
        two.context.automaticallyMergesChangesFromParent = true
        let list = FetchedResultsController(fetchRequest: FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("lastName")]),
                                            managedObjectContext: two.context)
        let log = ControllerLog()
        list.delegate = log
        try list.performFetch()
        #expect(list.fetchedObjects?.count == 1)

        try hire("Hopper", in: research, one.context)
        try one.context.save()
        // No save and no explicit catch-up in `two`: the NOTIFY brings the change.
        #expect(eventually { !recorder.changes.isEmpty })
        let change = try #require(recorder.changes.first)
        #expect(change.storeIdentifier == two.store.identifier)
        #expect(change.changes.inserted.count == 1)
        _ = try two.context.count(for: FetchRequest(entityName: "Employee"))   // the context takes the merge in
        #expect(try (list.fetchedObjects ?? []).map { try $0.string("lastName") ?? "?" } == ["Hopper", "Lovelace"])
        #expect(log.changed.withLock { $0 } >= 1)
    }

    @Test func aConflictingSaveUnderTheErrorPolicyFailsAndWritesNothing() throws {
        let name = uniqueDocumentName("conflict")
        let one = try PostgresStack(name, listens: false)
        defer { one.close() }
        let lovelace = try hire("Lovelace", salary: 100, one.context)
        try one.context.save()
        let two = try PostgresStack(name, create: false, listens: false)
        defer { two.close() }
        let theirs = try #require(try two.context.fetch(FetchRequest(entityName: "Employee")).first)
        #expect(try theirs.int("salary") == 100)

        try lovelace.setValue(.integer(200), forKey: "salary")
        try one.context.save()
        try theirs.setValue(.integer(300), forKey: "salary")
        two.context.mergePolicy = .error
        let error = try #require(throws: StrataError.self) { try two.context.save() }
        #expect(error.code == .mergeConflict)
        #expect(two.context.hasChanges)
        let third = try PostgresStack(name, create: false, listens: false)
        defer { third.close() }
        #expect(try third.context.fetch(FetchRequest(entityName: "Employee")).first?.int("salary") == 200)
    }

    @Test(arguments: [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback])
    func aConflictingSaveUnderAMergePolicyIsResolvedOnTheServer(policy: MergePolicy) throws {
        let name = uniqueDocumentName("merge")
        let one = try PostgresStack(name, listens: false)
        defer { one.close() }
        let lovelace = try hire("Lovelace", salary: 100, one.context)
        try lovelace.setValue(.integer(1), forKey: "employeeID")
        try one.context.save()
        let two = try PostgresStack(name, create: false, listens: false)
        defer { two.close() }
        let theirs = try #require(try two.context.fetch(FetchRequest(entityName: "Employee")).first)

        // `one` changes the salary, `two` the salary and the employee ID.
        try lovelace.setValue(.integer(200), forKey: "salary")
        try one.context.save()
        try theirs.setValue(.integer(300), forKey: "salary")
        try theirs.setValue(.integer(2), forKey: "employeeID")
        two.context.mergePolicy = policy
        try two.context.save()

        let third = try PostgresStack(name, create: false, listens: false)
        defer { third.close() }
        let stored = try #require(try third.context.fetch(FetchRequest(entityName: "Employee")).first)
        let expected: (salary: Int64, id: Int64) = switch policy {
        case .mergeByPropertyObjectTrump, .overwrite: (300, 2)
        case .mergeByPropertyStoreTrump: (200, 2)
        default: (200, 1)   // rollback: the store's version, the context's changes dropped
        }
        #expect(try stored.int("salary") == expected.salary, "\(policy)")
        #expect(try stored.int("employeeID") == expected.id, "\(policy)")
    }
}

@Suite("PostgreSQL document: bad connections are clear errors")
struct PostgresErrorTests {
    @Test func aMalformedURLIsRefusedNamingIt() throws {
        let error = try #require(throws: StrataError.self) {
            try PostgresDocumentStore(url: "http://alice:secret@host/db", document: "d", model: sharedExampleModel)
        }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("postgres://"))
        #expect(!error.message.contains("secret"), "the password is never shown")
    }

    @Test func aServerThatIsNotThereIsAServerErrorNamingIt() throws {
        // Port 1 on the loopback: nothing listens there, the connection is refused.
        let error = try #require(throws: StrataError.self) {
            try PostgresDocumentStore(url: "postgres://strata@127.0.0.1:1/postgres", document: "d", model: sharedExampleModel)
        }
        #expect(error.code == .server)
        #expect(error.message.contains("127.0.0.1:1"))
    }

    @Test func aLoginTheServerRefusesIsAServerErrorNamingTheServer() throws {
        let url = try PostgresTestServer.url.replacingOccurrences(of: "://strata@", with: "://nobody-here:wrong@")
        let error = try #require(throws: StrataError.self) {
            try PostgresDocumentStore(url: url, document: "d", model: sharedExampleModel)
        }
        #expect(error.code == .server)
        #expect(error.message.contains("nobody-here@127.0.0.1"))
        #expect(error.message.contains("nobody-here"))
        #expect(!error.message.contains("wrong"))
    }

    @Test func aDocumentThatDoesNotExistIsNotCreatedUnlessAsked() throws {
        let error = try #require(throws: StrataError.self) {
            try PostgresDocumentStore(url: try PostgresTestServer.url, document: uniqueDocumentName("missing"), model: sharedExampleModel)
        }
        #expect(error.code == .objectNotFound)
        #expect(error.message.contains("createIfMissing"))
    }

    @Test func aSaveWhenTheServerIsGoneFailsSaysItDidNotHappenAndAppliesNothing() throws {
        // A server of its own, stopped under the store.
        let url = try PostgresTestServer.start()
        var stopped = false
        defer { if !stopped { PostgresTestServer.stop(url) } }
        let stack = try PostgresStack(uniqueDocumentName("gone"), url: url, listens: false)
        defer { stack.close() }
        try hire("Lovelace", stack.context)
        try stack.context.save()

        PostgresTestServer.stop(url)
        stopped = true
        let hopper = try hire("Hopper", stack.context)
        let error = try #require(throws: StrataError.self) { try stack.context.save() }
        #expect(error.code == .server)
        #expect(error.message.contains("did not happen"))
        #expect(error.message.contains("127.0.0.1"))
        #expect(error.context.kind == .notCommitted)
        // Nothing local: the store's replica has only the first save; the context keeps its change.
        #expect(stack.context.hasChanges)
        #expect(hopper.objectID.isTemporaryID)
        let fresh = stack.newContext()
        #expect(try lastNames(fresh) == ["Lovelace"])
    }
}
