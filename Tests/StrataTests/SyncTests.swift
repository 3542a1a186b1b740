import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Two local documents syncing through one remote file (docs/SYNC.md): real documents, a
/// real `FileSegmentRemote`, real LZ4 segments.
@Suite struct DocumentSyncTests {
    /// A directory with a remote file and two replicas: `a` created the remote, `b` cloned it.
    final class World {
        let directory: TemporaryDirectory
        let remote: FileSegmentRemote
        var a: DocumentStack
        var b: DocumentStack
        /// Ada, an employee saved in `a` before the first push.
        let ada: ManagedObjectID

        init() throws {
            directory = try TemporaryDirectory()
            remote = try FileSegmentRemote(url: directory.file("hub.strata-remote"))
            a = try DocumentStack.create(directory.file("a.strata"))
            let employee = try a.context.insertObject(forEntityName: "Employee")
            try employee.setValue("Ada", forKey: "firstName")
            try employee.setValue("Lovelace", forKey: "lastName")
            try employee.setValue(.integer(100), forKey: "salary")
            try a.context.save()
            ada = employee.objectID
            let pushed = try DocumentSync(store: a.store, remote: remote).push()
            #expect(pushed.createdRemote && pushed.sent == 1 && pushed.replica == 1)
            let (store, report) = try DocumentSync.clone(remote, to: directory.file("b.strata"))
            #expect(report.received == 1 && report.replica == 2)
            try store.close()
            b = try DocumentStack.open(directory.file("b.strata"))
        }

        func sync(_ stack: DocumentStack, _ policy: MergePolicy = .error) throws -> SyncReport {
            try DocumentSync(store: stack.store, remote: remote).sync(mergePolicy: policy)
        }

        func set(_ stack: DocumentStack, _ id: ManagedObjectID, _ values: [String: PropertyValue]) throws {
            let object = try stack.context.existingObject(with: id)
            for (key, value) in values.sorted(by: { $0.key < $1.key }) { try object.setValue(value, forKey: key) }
            try stack.context.save()
        }

        /// Every replica verifies (`strata-log verify`'s checks).
        func verifyAll() throws {
            for stack in [a, b] {
                let report = try DocumentVerifier.verify(stack.url)
                #expect(report.problems.isEmpty, "\(stack.url.lastPathComponent): \(report.problems)")
            }
        }

        deinit {
            try? a.store.close()
            try? b.store.close()
        }
    }

    @Test func aCloneHoldsTheObjectsOfThePushedDocumentUnderTheSameIDs() throws {
        let world = try World()
        #expect(try storedValue(world.ada, "firstName", in: world.b.store) == .string("Ada"))
        #expect(try world.remote.document()?.storeIdentifier == world.a.store.identifier)
        #expect(world.b.store.identifier == world.a.store.identifier)
        #expect(try world.b.store.syncRemoteLocation == world.remote.location)
        // Nothing more to exchange: a second sync sends and receives nothing.
        let again = try world.sync(world.a)
        #expect(again.sent == 0 && again.received == 0)
        try world.verifyAll()
    }

    @Test func objectsCreatedOfflineInBothReplicasNeverCollide() throws {
        let world = try World()
        var created: [ManagedObjectID] = []
        for (stack, name) in [(world.a, "A"), (world.b, "B")] {
            for number in 1...3 {
                let employee = try stack.context.insertObject(forEntityName: "Employee")
                try employee.setValue(.string("\(name)\(number)"), forKey: "firstName")
                try employee.setValue("Offline", forKey: "lastName")
                try stack.context.save()
                created.append(employee.objectID)
            }
        }
        #expect(Set(created).count == 6, "no two replicas hand out one key")
        #expect(created.prefix(3).allSatisfy { RemoteDocument.keyRange(forReplica: 1).contains($0.primaryKey) })
        #expect(created.suffix(3).allSatisfy { RemoteDocument.keyRange(forReplica: 2).contains($0.primaryKey) })
        #expect(try world.sync(world.a).sent == 3)
        let b = try world.sync(world.b)
        #expect(b.received == 3 && b.sent == 3)
        #expect(try world.sync(world.a).received == 3)
        for stack in [world.a, world.b] {
            let all = try stack.store.objectIDs(for: try world.a.model.entity(named: "Employee"), includingSubentities: false)
            #expect(Set(all) == Set(created + [world.ada]))
        }
        // Keys keep coming from the replica's own range after taking in the other's.
        let later = try world.a.context.insertObject(forEntityName: "Employee")
        try later.setValue("Late", forKey: "firstName")
        try later.setValue("Comer", forKey: "lastName")
        try world.a.context.save()
        #expect(RemoteDocument.keyRange(forReplica: 1).contains(later.objectID.primaryKey))
        #expect(!created.contains(later.objectID))
        try world.verifyAll()
    }

    /// Both replicas change Ada's salary; `a` also changes her first name, `b` her email.
    /// `a` pushes first; `b` pulls with `policy`; then both sync and must agree.
    @Test(arguments: [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .rollback, .overwrite])
    func conflictingEditsAreResolvedByTheMergePolicyAndBothReplicasAgree(policy: MergePolicy) throws {
        let world = try World()
        try world.set(world.a, world.ada, ["salary": .integer(200), "firstName": "Augusta"])
        try world.set(world.b, world.ada, ["salary": .integer(300), "email": "ada@example.org"])
        #expect(try world.sync(world.a).sent == 1)
        let report = try world.sync(world.b, policy)
        #expect(report.conflicts.map(\.objectID) == [world.ada])
        #expect(report.conflicts.first?.keys == ["salary"])
        #expect(try world.sync(world.a).received >= 2, "b's edit and its resolution")
        let expected: (salary: Int64, firstName: String, email: PropertyValue) = switch policy {
        case .mergeByPropertyStoreTrump: (200, "Augusta", "ada@example.org")
        case .mergeByPropertyObjectTrump: (300, "Augusta", "ada@example.org")
        case .rollback: (200, "Augusta", .null)
        default: (300, "Ada", "ada@example.org")   // overwrite: b's whole version of Ada
        }
        for stack in [world.a, world.b] {
            let name = stack.url.lastPathComponent
            #expect(try storedValue(world.ada, "salary", in: stack.store) == .integer(expected.salary), "\(name)")
            #expect(try storedValue(world.ada, "firstName", in: stack.store) == .string(expected.firstName), "\(name)")
            #expect(try storedValue(world.ada, "email", in: stack.store) == expected.email, "\(name)")
        }
        try world.verifyAll()
    }

    @Test func theErrorPolicyNamesTheObjectAndKeyAndChangesNothing() throws {
        let world = try World()
        try world.set(world.a, world.ada, ["salary": .integer(200)])
        try world.set(world.b, world.ada, ["salary": .integer(300)])
        _ = try world.sync(world.a)
        let before = try world.b.store.logPosition
        let position = try world.b.store.syncAttachment()?.remoteSequence
        let error = #expect(throws: StrataError.self) { try world.sync(world.b, .error) }
        #expect(error?.code == .mergeConflict)
        #expect(error?.message.contains("Employee/p") == true && error?.message.contains("salary") == true, "\(error?.message ?? "")")
        #expect(try world.b.store.logPosition == before)
        #expect(try world.b.store.syncAttachment()?.remoteSequence == position)
        #expect(try storedValue(world.ada, "salary", in: world.b.store) == .integer(300))
        // Resolving afterwards works.
        #expect(try world.sync(world.b, .mergeByPropertyObjectTrump).conflicts.count == 1)
    }

    @Test func aDeleteAgainstAnEditIsRefusedUnderEveryPolicyNamingIt() throws {
        let world = try World()
        world.a.context.delete(try world.a.context.existingObject(with: world.ada))
        try world.a.context.save()
        try world.set(world.b, world.ada, ["salary": .integer(300)])
        _ = try world.sync(world.a)
        let error = #expect(throws: StrataError.self) { try world.sync(world.b, .mergeByPropertyObjectTrump) }
        #expect(error?.code == .mergeConflict)
        #expect(error?.message.contains("deleted") == true, "\(error?.message ?? "")")
    }

    @Test func pulledSavesReachOpenContextsButNeverTheLocalUndoHistory() throws {
        let world = try World()
        let watcher = ManagedObjectContext(coordinator: world.b.coordinator)
        watcher.automaticallyMergesChangesFromParent = true
        let seen = try watcher.existingObject(with: world.ada)
        #expect(try seen.value(forKey: "salary") == .integer(100))
        try world.set(world.b, world.ada, ["lastName": "Byron"])   // b's own change
        try world.set(world.a, world.ada, ["salary": .integer(250)])
        _ = try world.sync(world.a)
        #expect(try world.sync(world.b).received == 1)
        // Its next operation merges what the pull took in, as another process's save.
        #expect(try watcher.count(for: FetchRequest(entityName: "Employee")) == 1)
        #expect(try seen.value(forKey: "salary") == .integer(250), "merged as another process's save")
        // b's undo history holds b's own group only: undoing it reverts b's change, not a's.
        let fresh = ManagedObjectContext(coordinator: world.b.coordinator)
        try fresh.restoreUndoHistory()
        #expect(fresh.undoManager?.undoCount == 1)
        try fresh.undoManager?.undo()
        try fresh.save()
        #expect(try storedValue(world.ada, "lastName", in: world.b.store) == .string("Lovelace"))
        #expect(try storedValue(world.ada, "salary", in: world.b.store) == .integer(250))
        try world.verifyAll()
    }

    @Test func aPushInterruptedAfterTheRemoteAppendIsRecognizedNotDuplicated() throws {
        let world = try World()
        try world.set(world.b, world.ada, ["salary": .integer(300)])
        // A push that died right after the remote committed: the local records still say "sending".
        let last = try world.b.store.syncAttachment()!.remoteSequence
        let outgoing = try world.b.store.outgoingSegments(after: last, replica: 2)
        #expect(try world.remote.append(outgoing.map(\.segment), expectingLast: last))
        let resumed = try world.sync(world.b)
        #expect(resumed.recognized == 1 && resumed.sent == 0)
        #expect(try world.remote.document()?.lastSequence == 2, "nothing duplicated")
        #expect(try world.sync(world.a).received == 1)
        #expect(try storedValue(world.ada, "salary", in: world.a.store) == .integer(300))
        try world.verifyAll()
    }

    /// A remote that goes away during an append: before its transaction (nothing written)
    /// or after it committed (the answer lost on the way back).
    final class VanishingRemote: SegmentRemote {
        let inner: FileSegmentRemote
        let afterCommit: Bool
        init(_ inner: FileSegmentRemote, afterCommit: Bool) {
            self.inner = inner
            self.afterCommit = afterCommit
        }
        var location: String { inner.location }
        func document() throws -> RemoteDocument? { try inner.document() }
        func create(_ document: RemoteDocument, segments: [RemoteSegment]) throws { try inner.create(document, segments: segments) }
        func segments(after sequence: Int64, limit: Int) throws -> [RemoteSegment] { try inner.segments(after: sequence, limit: limit) }
        func registerReplica(named name: String) throws -> Int { try inner.registerReplica(named: name) }
        func append(_ segments: [RemoteSegment], expectingLast expectedLast: Int64) throws -> Bool {
            if afterCommit { _ = try inner.append(segments, expectingLast: expectedLast) }
            throw StrataError(.io, "The connection to \(location) was lost.")
        }
    }

    @Test(arguments: [false, true])
    func aRemoteGoneMidPushLosesAndDuplicatesNothing(afterCommit: Bool) throws {
        let world = try World()
        try world.set(world.b, world.ada, ["salary": .integer(300)])
        let vanishing = VanishingRemote(world.remote, afterCommit: afterCommit)
        #expect(throws: StrataError.self) { try DocumentSync(store: world.b.store, remote: vanishing).push() }
        #expect(try world.remote.document()?.lastSequence == (afterCommit ? 2 : 1))
        let resumed = try world.sync(world.b)
        #expect(resumed.sent + resumed.recognized == 1)
        #expect(try world.remote.document()?.lastSequence == 2, "the save is on the remote exactly once")
        #expect(try world.sync(world.a).received == 1)
        #expect(try storedValue(world.ada, "salary", in: world.a.store) == .integer(300))
        try world.verifyAll()
    }

    @Test func aRemoteFileRefusesAnotherDocumentAndOtherFiles() throws {
        let world = try World()
        let other = try DocumentStack.create(world.directory.file("other.strata"))
        defer { try? other.store.close() }
        let error = #expect(throws: StrataError.self) { try DocumentSync(store: other.store, remote: world.remote).push() }
        #expect(error?.message.contains("clone") == true)
        let notRemote = #expect(throws: StrataError.self) { try FileSegmentRemote(url: world.a.url) }
        #expect(notRemote?.message.contains("not a Strata remote") == true)
    }
}
