import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// docs/ARCHITECTURE.md, "Save": a context's save to a document takes the store's writer
/// lock once, catches up once (as its write begins, inside the write transaction), and
/// takes the state lock once per step of the write.
@Suite struct SavePathLocks {
    private func catchUps(_ store: DocumentStore) throws -> Int {
        try store.withOpenState { $0.catchUps }
    }

    /// What a save took: writer acquisitions, state acquisitions and catch-ups.
    private func counting(_ store: DocumentStore, _ save: () throws -> Void) throws -> (writer: Int, state: Int, catchUps: Int) {
        let writer = store.activity.writerAcquisitions
        let caughtUp = try catchUps(store)
        let state = store.activity.stateAcquisitions
        try save()
        let took = (store.activity.writerAcquisitions - writer, store.activity.stateAcquisitions - state)
        return (took.0, took.1, try catchUps(store) - caughtUp)
    }

    @Test func aSaveTakesTheWriterOnceTheStateLockOncePerStepAndCatchesUpOnce() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let department = try stack.context.insertObject(forEntityName: "Department")
        try department.setValue("Research", forKey: "name")
        let took = try counting(stack.store) { try stack.context.save() }
        #expect(took.writer == 1)
        #expect(took.catchUps == 1)
        // Begin and catch up; reserve the new record's key; write; commit; hand over what
        // the catch-up found, after every lock was released. The state lock is not held
        // while the context works between them (its reads take it, and other threads read
        // meanwhile).
        #expect(took.state == 5)
    }

    @Test func aSaveAfterAnotherConnectionsSaveCatchesUpOnceAndResolvesInOneWrite() throws {
        let directory = try TemporaryDirectory()
        let (uri, first, second) = try DocumentStack.twoConnections(directory.file()) { stack in
            try BatchGraph(in: stack.context).employee("Ada").uriRepresentation()
        }
        let adaFirst = try first.object(uri)
        let adaSecond = try second.object(uri)
        try adaFirst.setValue(.integer(7), forKey: "salary")
        try first.context.save()
        try adaSecond.setValue("Augusta", forKey: "firstName")
        second.context.mergePolicy = .mergeByPropertyObjectTrump

        let took = try counting(second.store) { try second.context.save() }
        #expect(took.writer == 1)
        #expect(took.catchUps == 1, "the write's catch-up found the other save; the store's write did not catch up again")
        #expect(try adaSecond.int("salary") == 7)
        let reader = try DocumentStack.open(directory.file())
        #expect(try reader.object(uri).string("firstName") == "Augusta")
        #expect(try reader.object(uri).int("salary") == 7)
        try reader.store.close()
        try first.store.close()
        try second.store.close()
    }

    @Test func aDirectSaveStillRefusesARecordAnotherConnectionChangedSinceItsCatchUp() throws {
        let directory = try TemporaryDirectory()
        let (uri, first, second) = try DocumentStack.twoConnections(directory.file()) { stack in
            try BatchGraph(in: stack.context).employee("Ada").uriRepresentation()
        }
        let ada = try first.object(uri)
        try ada.setValue(.integer(7), forKey: "salary")
        try first.context.save()
        // A save of its own, outside a held write: its own transaction's catch-up finds it.
        let slot = try #require(ada.objectID.entity.slot(forKey: "salary"))
        let request = StoreSaveRequest(groups: [SegmentGroup(
            id: UndoGroupIDs.temporary(), kind: .user, revertsGroup: nil, actionName: "Elsewhere",
            operations: [.update(ada.objectID, changes: [SlotChange(slot: slot, old: .integer(0), new: .integer(9))])])])
        let error = strataError { try second.store.save(request) }
        #expect(error?.code == .mergeConflict)
        try first.store.close()
        try second.store.close()
    }
}
