import Foundation
import Testing
@testable import Strata

// Other connections' saves reaching contexts without a save of their own: a document store's
// catch-up hands what it read to its coordinator, which merges it into automatically
// merging contexts (and their fetched results controllers) and posts
// storeRemoteChangeNotification. Two connections to one file stand for two processes here;
// StrataCLITests' RemoteChangeProcessTests uses a real second process.

/// Collects the remote-change notifications a coordinator posts (on any thread).
final class RemoteChangeRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [StoreRemoteChange] = []
    private var token: (any NSObjectProtocol)?

    init(_ coordinator: PersistentStoreCoordinator) {
        token = NotificationCenter.default.addObserver(
            forName: PersistentStoreCoordinator.storeRemoteChangeNotification, object: coordinator, queue: nil
        ) { [weak self] note in
            guard let self, let change = note.userInfo?[PersistentStoreCoordinator.remoteChangeKey] as? StoreRemoteChange else { return }
            lock.withLock { received.append(change) }
        }
    }

    deinit { token.map(NotificationCenter.default.removeObserver) }

    var changes: [StoreRemoteChange] { lock.withLock { received } }

    /// Waits (polling, up to `timeout` seconds — generous: it bounds a hang, it measures
    /// nothing) until `count` notifications arrived; false if they did not.
    func wait(for count: Int, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while changes.count < count {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }
}

/// Engineering (Lovelace, Dijkstra), Sales (Hopper), Research (Babbage): returns the URIs by
/// last name and department name.
private func staff(_ stack: DocumentStack) throws -> [String: URL] {
    let context = stack.context
    var departments: [String: ManagedObject] = [:]
    for name in ["Engineering", "Sales", "Research"] { departments[name] = try insertNamed("Department", name, in: context) }
    var objects = departments
    for (last, department) in [("Lovelace", "Engineering"), ("Dijkstra", "Engineering"), ("Hopper", "Sales"), ("Babbage", "Research")] {
        objects[last] = try hire(last, in: departments[department]!, context)
    }
    try context.save()
    return objects.mapValues { $0.objectID.uriRepresentation() }
}

@discardableResult
private func hire(_ last: String, in department: ManagedObject, _ context: ManagedObjectContext) throws -> ManagedObject {
    let employee = try context.insertObject(forEntityName: "Employee")
    try employee.setValue(.string("X"), forKey: "firstName")
    try employee.setValue(.string(last), forKey: "lastName")
    try employee.setValue(.integer(100), forKey: "salary")
    try employee.setObject(department, forKey: "department")
    return employee
}

private func listRequest() -> FetchRequest<ManagedObject> {
    FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("department.name"), FetchSortDescriptor("lastName")])
}

private func names(_ controller: FetchedResultsController<some ManagedObject>) -> String {
    (controller.sections ?? []).map { section in
        "\(section.name): " + section.objects.map { (try? $0.string("lastName")) ?? "?" }.joined(separator: ",")
    }.joined(separator: " | ")
}

@Suite("other processes' saves reach contexts (remote changes)")
struct RemoteChangeTests {
    @Test func aMergingContextSeesAnotherConnectionsInsertUpdateAndDeleteAfterCatchUp() throws {
        let directory = try TemporaryDirectory()
        let (uris, one, other) = try DocumentStack.twoConnections(directory.file(), setUp: staff)
        let recorder = RemoteChangeRecorder(one.coordinator)
        let reader = one.context
        reader.automaticallyMergesChangesFromParent = true
        let lovelace = try one.object(uris["Lovelace"]!)
        let hopper = try one.object(uris["Hopper"]!)
        #expect(try lovelace.int("salary") == 100 && hopper.string("lastName") == "Hopper")

        try other.object(uris["Lovelace"]!).setValue(.integer(250), forKey: "salary")
        other.context.delete(try other.object(uris["Hopper"]!))
        let turing = try hire("Turing", in: try other.object(uris["Research"]!), other.context)
        try other.context.save()

        #expect(try one.store.catchUp() != nil)
        #expect(try one.store.catchUp() == nil, "nothing new the second time")
        let change = try #require(recorder.changes.first)
        #expect(recorder.changes.count == 1)
        #expect(change.storeIdentifier == one.store.identifier && !change.mayHaveChangedEverything)
        #expect(change.sequences == 2...2)
        let research = try one.coordinator.managedObjectID(forURIRepresentation: uris["Research"]!)
        let sales = try one.coordinator.managedObjectID(forURIRepresentation: uris["Sales"]!)
        #expect(change.changes.inserted == [turing.objectID])
        #expect(change.changes.deleted == [hopper.objectID])
        #expect(change.changes.updated == [lovelace.objectID, research, sales])

        // The confinement context merges at its next operation.
        let employees = try reader.fetch(FetchRequest(entityName: "Employee"))
        #expect(Set(try employees.map { try $0.string("lastName") ?? "?" }) == ["Lovelace", "Dijkstra", "Babbage", "Turing"])
        #expect(try lovelace.int("salary") == 250)
        #expect(reader.registeredObject(for: hopper.objectID) == nil)
        try one.store.close()
        try other.store.close()
    }

    @Test func aFetchedResultsControllerReportsAnotherConnectionsChangesAsDiffs() throws {
        let directory = try TemporaryDirectory()
        let (uris, one, other) = try DocumentStack.twoConnections(directory.file(), setUp: staff)
        one.context.automaticallyMergesChangesFromParent = true
        let list = FetchedResultsController(fetchRequest: listRequest(), managedObjectContext: one.context,
                                            sectionNameKeyPath: "department.name")
        let delegate = RecordingDelegate()
        list.delegate = delegate
        try list.performFetch()
        var snapshot = list.snapshot()
        #expect(names(list) == "Engineering: Dijkstra,Lovelace | Research: Babbage | Sales: Hopper")

        // Insert, update, a move between sections, a delete — one save of the other connection.
        _ = try hire("Turing", in: try other.object(uris["Research"]!), other.context)
        try other.object(uris["Lovelace"]!).setValue(.integer(300), forKey: "salary")
        try other.object(uris["Hopper"]!).setObject(try other.object(uris["Engineering"]!), forKey: "department")
        other.context.delete(try other.object(uris["Babbage"]!))
        try other.context.save()
        _ = try one.coordinator.catchUp()
        _ = try one.context.count(for: listRequest())   // the confinement context takes the merge in
        #expect(names(list) == "Engineering: Dijkstra,Hopper,Lovelace | Research: Turing")
        // The merge's refresh and its new records may come as two batches (as for a merged
        // DidSave); checkController applies them in turn.
        let lovelace = try one.coordinator.managedObjectID(forURIRepresentation: uris["Lovelace"]!)
        let hopper = try one.coordinator.managedObjectID(forURIRepresentation: uris["Hopper"]!)
        let babbage = try one.coordinator.managedObjectID(forURIRepresentation: uris["Babbage"]!)
        let batches = delegate.batches
        #expect(!batches.isEmpty && batches.count <= 2)
        #expect(batches.flatMap(\.deletions).map(\.objectID) == [babbage])
        #expect(batches.flatMap(\.insertions).count == 1)
        #expect(batches.flatMap(\.moves).map(\.objectID) == [hopper])
        #expect(batches.flatMap(\.updates).map(\.objectID).contains(lovelace))
        snapshot = try checkController(list, delegate: delegate, previous: snapshot, step: "another connection's save")

        // A second save: a rename of a department re-sorts its section.
        try other.object(uris["Research"]!).setValue("Applied Research", forKey: "name")
        try other.context.save()
        _ = try one.coordinator.catchUp()
        _ = try one.context.count(for: listRequest())
        #expect(names(list) == "Applied Research: Turing | Engineering: Dijkstra,Hopper,Lovelace")
        _ = try checkController(list, delegate: delegate, previous: snapshot, step: "a rename")
        try one.store.close()
        try other.store.close()
    }

    @Test func unsavedChangesToARecordAnotherConnectionChangedAreKept() throws {
        let directory = try TemporaryDirectory()
        let (uris, one, other) = try DocumentStack.twoConnections(directory.file(), setUp: staff)
        one.context.automaticallyMergesChangesFromParent = true
        let lovelace = try one.object(uris["Lovelace"]!)
        try lovelace.setValue(.string("Ada"), forKey: "firstName")   // not saved

        let theirs = try other.object(uris["Lovelace"]!)
        try theirs.setValue(.integer(999), forKey: "salary")
        try theirs.setValue(.string("Augusta"), forKey: "firstName")
        try other.context.save()
        try one.store.catchUp()
        _ = try one.context.count(for: listRequest())

        // As for a DidSave merge: the store's values, this context's pending changes on top.
        #expect(try lovelace.string("firstName") == "Ada")
        #expect(try lovelace.int("salary") == 999)
        #expect(one.context.hasChanges)
        try one.context.save()   // no conflict: the context read the other connection's save
        try other.store.catchUp()
        other.context.refresh(theirs, mergeChanges: false)
        #expect(try theirs.string("firstName") == "Ada" && theirs.int("salary") == 999)
        try one.store.close()
        try other.store.close()
    }

    @Test func aCompactionByTheOtherConnectionInBetweenStillReportsWhatChanged() throws {
        let directory = try TemporaryDirectory()
        let (uris, one, other) = try DocumentStack.twoConnections(directory.file(), setUp: staff)
        let recorder = RemoteChangeRecorder(one.coordinator)
        one.context.automaticallyMergesChangesFromParent = true
        let list = FetchedResultsController(fetchRequest: listRequest(), managedObjectContext: one.context,
                                            sectionNameKeyPath: "department.name")
        let delegate = RecordingDelegate()
        list.delegate = delegate
        try list.performFetch()
        var snapshot = list.snapshot()

        // Retention .all: the compacted segments are still there, so the lists are exact.
        let turing = try hire("Turing", in: try other.object(uris["Research"]!), other.context)
        try other.context.save()
        try other.store.compact()
        #expect(try one.store.catchUp() != nil)
        let exact = try #require(recorder.changes.last)
        #expect(!exact.mayHaveChangedEverything)
        #expect(exact.changes.inserted == [turing.objectID])
        _ = try one.context.count(for: listRequest())
        #expect(names(list) == "Engineering: Dijkstra,Lovelace | Research: Babbage,Turing | Sales: Hopper")
        snapshot = try checkController(list, delegate: delegate, previous: snapshot, step: "compacted, retained")

        // Retention .none: the segments are gone; the change says everything may have
        // changed and the context refreshes every record of the store.
        let hopper = try one.object(uris["Hopper"]!)
        _ = try hopper.string("lastName")
        other.context.delete(try other.object(uris["Hopper"]!))
        try other.object(uris["Lovelace"]!).setValue("Lovelace-King", forKey: "lastName")
        try other.context.save()
        try other.store.compact(retention: .none)
        #expect(try one.store.catchUp() != nil)
        let reset = try #require(recorder.changes.last)
        #expect(reset.mayHaveChangedEverything)
        _ = try one.context.count(for: listRequest())
        #expect(names(list) == "Engineering: Dijkstra,Lovelace-King | Research: Babbage,Turing")
        #expect(one.context.registeredObject(for: hopper.objectID) == nil)
        _ = try checkController(list, delegate: delegate, previous: snapshot, step: "compacted, dropped")
        try one.store.close()
        try other.store.close()
    }

    @Test func theWatcherPicksUpAnotherConnectionsSaveWithoutBeingAsked() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let uris = try staff(try DocumentStack.create(url))
        var watching = manualCompaction()
        watching.watchesForRemoteChanges = true
        watching.remoteChangePollInterval = 0.02
        let one = try DocumentStack.open(url, configuration: watching)
        let other = try DocumentStack.open(url, configuration: manualCompaction())
        let recorder = RemoteChangeRecorder(one.coordinator)
        let background = ManagedObjectContext(coordinator: one.coordinator, concurrencyType: .privateQueue)
        background.automaticallyMergesChangesFromParent = true
        let salary = try background.performAndWait { try background.existingObject(with: try one.coordinator.managedObjectID(forURIRepresentation: uris["Lovelace"]!)).int("salary") }
        #expect(salary == 100)

        try other.object(uris["Lovelace"]!).setValue(.integer(123), forKey: "salary")
        try other.context.save()
        #expect(recorder.wait(for: 1), "no remote change within 30 s")
        // The private-queue context merged on its queue, after the notification's hand-over.
        let deadline = Date().addingTimeInterval(30)
        var merged: Int64?
        repeat {
            merged = try background.performAndWait {
                try background.existingObject(with: try one.coordinator.managedObjectID(forURIRepresentation: uris["Lovelace"]!)).int("salary")
            }
            if merged != 123 { Thread.sleep(forTimeInterval: 0.01) }
        } while merged != 123 && Date() < deadline
        #expect(merged == 123)
        try one.store.close()
        // Closed: the timer is cancelled; another save reaches nobody.
        try other.object(uris["Lovelace"]!).setValue(.integer(124), forKey: "salary")
        try other.context.save()
        Thread.sleep(forTimeInterval: 0.1)
        #expect(recorder.changes.count == 1)
        try other.store.close()
    }

    @Test func whatASavesCatchUpReadsOfAnotherConnectionReachesMergingContextsAfterTheSave() throws {
        let directory = try TemporaryDirectory()
        let (uris, one, other) = try DocumentStack.twoConnections(directory.file(), setUp: staff)
        let recorder = RemoteChangeRecorder(one.coordinator)
        let reader = ManagedObjectContext(coordinator: one.coordinator)
        reader.automaticallyMergesChangesFromParent = true
        let readersHopper = try reader.existingObject(with: try one.coordinator.managedObjectID(forURIRepresentation: uris["Hopper"]!))
        #expect(try readersHopper.int("salary") == 100)

        try other.object(uris["Hopper"]!).setValue(.integer(42), forKey: "salary")
        try other.context.save()
        // The writer context saves something else: its save catches up with the other
        // connection first, and the reader is handed both.
        try one.object(uris["Lovelace"]!).setValue(.integer(7), forKey: "salary")
        try one.context.save()
        #expect(recorder.changes.count == 1)
        #expect(recorder.changes.first?.changes.updated == [readersHopper.objectID])
        _ = try reader.count(for: listRequest())
        #expect(try readersHopper.int("salary") == 42)
        #expect(try reader.existingObject(with: try one.coordinator.managedObjectID(forURIRepresentation: uris["Lovelace"]!)).int("salary") == 7)
        try one.store.close()
        try other.store.close()
    }

    @Test func aPollIntervalThatIsNotPositiveIsRefusedWhenOpening() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try DocumentStack.create(url).store.close()
        for interval in [0, -1, TimeInterval.nan] {
            var configuration = DocumentStore.Configuration()
            configuration.watchesForRemoteChanges = true
            configuration.remoteChangePollInterval = interval
            #expect(throws: StrataError.self) { try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: configuration) }
            do {
                _ = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: configuration)
            } catch let error as StrataError {
                #expect(error.code == .invalidArgument && error.message.contains("remoteChangePollInterval"))
            }
        }
    }

    @Test func contextsThatDoNotMergeAutomaticallyAreLeftAloneButTheNotificationIsPosted() throws {
        let directory = try TemporaryDirectory()
        let (uris, one, other) = try DocumentStack.twoConnections(directory.file(), setUp: staff)
        let recorder = RemoteChangeRecorder(one.coordinator)
        let lovelace = try one.object(uris["Lovelace"]!)
        #expect(try lovelace.int("salary") == 100)
        try other.object(uris["Lovelace"]!).setValue(.integer(5), forKey: "salary")
        try other.context.save()
        try one.store.catchUp()
        _ = try one.context.count(for: listRequest())
        #expect(recorder.changes.count == 1)
        #expect(try lovelace.int("salary") == 100, "not merged: the context did not ask")
        one.context.refresh(lovelace, mergeChanges: false)
        #expect(try lovelace.int("salary") == 5)
        try one.store.close()
        try other.store.close()
    }
}
