import Foundation
import Testing
@testable import Strata

/// docs/RELIABILITY.md, "Writers never collide": keys and undo group ids are handed out
/// inside the store's write, so two connections (as two processes) or two coordinators on
/// one file never get the same one, and a log that inserts one record twice is refused.
@Suite struct WriterCollisions {
    @Test func twoConnectionsSavingInTurnNeverShareAKeyOrAGroupID() throws {
        let directory = try TemporaryDirectory()
        let (_, one, other) = try DocumentStack.twoConnections(directory.file()) { _ in () }
        // Both insert before either saves: under the old scheme both reserved the same key.
        let first = try one.context.insertObject(forEntityName: "Department")
        try first.setValue("One", forKey: "name")
        let second = try other.context.insertObject(forEntityName: "Department")
        try second.setValue("Other", forKey: "name")
        try other.context.save()
        try one.context.save()
        #expect(first.objectID != second.objectID)
        #expect(Set([first.objectID.primaryKey, second.objectID.primaryKey]) == [1, 2])
        let groups = try one.store.historyGroups().map(\.id)
        #expect(Set(groups).count == groups.count, "group ids \(groups)")
        #expect(groups.allSatisfy { !UndoGroupIDs.isTemporary($0) })
        try one.store.close()
        try other.store.close()
        let reopened = try DocumentStack.open(directory.file())
        #expect(try reopened.store.objectIDs(for: reopened.model.entity(named: "Department"), includingSubentities: false).count == 2)
        try reopened.store.close()
    }

    @Test func keysReservedByObtainPermanentIDsAreNeverHandedToAnotherConnection() throws {
        let directory = try TemporaryDirectory()
        let (_, one, other) = try DocumentStack.twoConnections(directory.file()) { _ in () }
        let early = try one.context.insertObject(forEntityName: "Department")
        try early.setValue("Early", forKey: "name")
        try one.context.obtainPermanentIDs(for: [early])
        let reserved = early.objectID
        #expect(!reserved.isTemporaryID)
        let later = try other.context.insertObject(forEntityName: "Department")
        try later.setValue("Later", forKey: "name")
        try other.context.save()
        #expect(later.objectID.primaryKey != reserved.primaryKey)
        try one.context.save()
        #expect(early.objectID == reserved)
        try one.store.close()
        try other.store.close()
    }

    @Test func twoCoordinatorsOfOneProcessNeverShareAGroupIDInTheLog() throws {
        let directory = try TemporaryDirectory()
        let (_, one, other) = try DocumentStack.twoConnections(directory.file()) { _ in () }
        for round in 0..<5 {
            for stack in [one, other] {
                try stack.context.insertObject(forEntityName: "Department").setValue(.string("R\(round)"), forKey: "name")
                stack.undo.setActionName("Round \(round)")
                try stack.context.save()
            }
        }
        // Each context undoes its own last group: exactly its own department goes.
        try one.undo.undo()
        try one.context.save()
        try other.undo.undo()
        try other.context.save()
        let rows = try sqlRows(directory.file(), "SELECT id FROM strata_group")
        #expect(Set(rows.map { $0[0] }).count == rows.count)
        let groups = try one.store.historyGroups()
        let reverted = groups.compactMap(\.revertsGroup)
        #expect(reverted.count == 2)
        #expect(Set(reverted).count == 2, "each undo reverts its own group")
        try one.store.close()
        try other.store.close()
        let reopened = try DocumentStack.open(directory.file())
        #expect(try reopened.store.objectIDs(for: reopened.model.entity(named: "Department"), includingSubentities: false).count == 8)
        try reopened.store.close()
    }

    @Test func aSaveThatInsertsAnExistingRecordIsRefusedAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let stack = try DocumentStack.create(directory.file(), configuration: manualCompaction())
        let department = try stack.context.insertObject(forEntityName: "Department")
        try department.setValue("Research", forKey: "name")
        try stack.context.save()
        let id = department.objectID
        let values = try #require(try stack.store.values(for: id))
        let before = try sqlRows(directory.file(), "SELECT seq FROM strata_segment").count
        #expect {
            try stack.store.save(StoreSaveRequest(groups: [
                SegmentGroup(id: 99, kind: .user, revertsGroup: nil, actionName: "", operations: [.insert(id, values: values)]),
            ]))
        } throws: { error in
            (error as? StrataError)?.code == .corruptDocument && "\(error)".contains("already exists")
        }
        #expect(try sqlRows(directory.file(), "SELECT seq FROM strata_segment").count == before)
        // After compaction the record is only in the snapshot: still refused.
        try stack.store.compact()
        #expect(throws: StrataError.self) {
            try stack.store.save(StoreSaveRequest(groups: [
                SegmentGroup(id: 99, kind: .user, revertsGroup: nil, actionName: "", operations: [.insert(id, values: values)]),
            ]))
        }
        try stack.store.close()
    }

    /// Keys this connection reserved and has not written are known to be new (no lookup per
    /// insert); once a save wrote into the reservation, inserting one of its keys again is
    /// refused as before, from the overlay and from the snapshot.
    @Test func aReservedKeyInsertedTwiceIsRefusedAfterTheFirstSaveSpentTheReservation() throws {
        let directory = try TemporaryDirectory()
        let stack = try DocumentStack.create(directory.file(), configuration: manualCompaction())
        let entity = try stack.model.entity(named: "Department")
        let keys = try stack.store.allocatePrimaryKeys(for: entity, count: 3)
        let storeTag = StoreRegistry.tag(for: stack.store.identifier)
        func insert(_ key: Int64, name: String) -> StoreSaveRequest {
            let id = ManagedObjectID(entity: entity, storeTag: storeTag, primaryKey: key)
            var values = [PropertyValue](repeating: .null, count: entity.slotCount)
            for (slot, slotName) in entity.slotNames.enumerated() {
                if slotName == "name" { values[slot] = .string(name) }
                if case .relationship(let index) = entity.slotKinds[slot], entity.relationships[index].isToMany { values[slot] = .objects([]) }
            }
            return StoreSaveRequest(groups: [SegmentGroup(id: 0, kind: .user, revertsGroup: nil, actionName: "", operations: [.insert(id, values: values)])])
        }
        try stack.store.save(insert(keys.lowerBound, name: "First"))
        try stack.store.save(insert(keys.lowerBound + 1, name: "Second"))   // the spent reservation's other key: looked up, new
        for _ in 0..<2 {
            #expect {
                try stack.store.save(insert(keys.lowerBound, name: "Again"))
            } throws: { error in
                (error as? StrataError)?.code == .corruptDocument && "\(error)".contains("already exists")
            }
            try stack.store.compact()
        }
        let first = ManagedObjectID(entity: entity, storeTag: storeTag, primaryKey: keys.lowerBound)
        #expect(try stack.store.values(for: first)?.contains(.string("First")) == true)
        try stack.store.close()
    }

    /// A log forged the way the old key race wrote it: two segments insert one key.
    @Test func verifyNamesBothSegmentsOfADuplicateInsertAndOpeningAndReplayRefuseIt() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        let department = try stack.context.insertObject(forEntityName: "Department")
        try department.setValue("First", forKey: "name")
        try stack.context.save()
        var values = try #require(try stack.store.values(for: department.objectID))
        let nameSlot = try #require(department.entity.slot(forKey: "name"))
        values[nameSlot] = .string("Second")
        try stack.store.close()

        let forged = Segment(sequence: 2, timestamp: Date(), groups: [
            SegmentGroup(id: 2, kind: .user, revertsGroup: nil, actionName: "Forged",
                         operations: [.insert(department.objectID, values: values)]),
        ])
        let raw = try SegmentEncoder.encode(forged, model: sharedExampleModel)
        let connection = try SQLiteConnection(path: url.path, flags: [.readWrite])
        try connection.prepare("INSERT INTO strata_segment (seq, time, groups, operations, raw_size, body) VALUES (2, 0, 1, 1, ?, ?)")
            .run([.integer(Int64(raw.count)), .blob(LZ4Frame.compress(raw))])
        try connection.prepare("INSERT INTO strata_group (seq, id, kind, reverts, action) VALUES (2, 2, 0, NULL, 'Forged')").run()
        connection.close()

        let report = try DocumentVerifier.verify(url)
        #expect(!report.isValid)
        #expect(report.problems.contains { $0.contains("Segments 1 and 2 both insert") }, "\(report.problems)")
        #expect {
            _ = try DocumentStore(openingAt: url, model: sharedExampleModel)
        } throws: { error in
            (error as? StrataError)?.code == .corruptDocument && "\(error)".contains("already exists")
        }
        #expect(throws: StrataError.self) {
            try DocumentReplay.replay(url, through: 2, to: directory.file("replayed.strata"))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("replayed.strata").path))
    }
}
