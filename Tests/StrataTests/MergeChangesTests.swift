import Foundation
import Testing
@testable import Strata

@Suite struct MergeChangesTests {
    @Test(arguments: BatchStoreKind.allCases)
    func mergingABatchUpdateRefreshesRegisteredObjectsAndKeepsTheirPendingChanges(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let context = fixture.fresh()
        let ada = try context.existingObject(with: graph.employee("Ada"))
        let alan = try context.existingObject(with: graph.employee("Alan"))
        let grace = context.object(with: graph.employee("Grace"))   // a fault
        try ada.setValue("Augusta", forKey: "firstName")            // pending, another key
        try alan.setValue(.integer(1), forKey: "salary")            // pending, the same key
        let recorder = NotificationRecorder([ManagedObjectContext.objectsDidChangeNotification], object: context)

        let result = try fixture.fresh().executeBatch(BatchUpdateRequest(
            entityName: "Employee", predicate: try FetchPredicate(format: "department.name == 'R&D' OR firstName == 'Grace'"),
            propertiesToUpdate: ["salary": 200_000]))
        #expect(try ada.int("salary") == 120_000)   // not merged yet
        try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context])

        #expect(try ada.int("salary") == 200_000)
        #expect(try ada.string("firstName") == "Augusta")
        #expect(try alan.int("salary") == 1)        // the pending value wins, as in refresh(mergeChanges: true)
        #expect(ada.isUpdated && ada.changedValues().keys.sorted() == ["firstName"])
        #expect(grace.isFault)
        #expect(try grace.int("salary") == 200_000)
        let notice = try #require(recorder.userInfos.last)
        #expect(notice[ManagedObjectContext.refreshedObjectsKey] == [ada.objectID, alan.objectID])
        // Saving writes only the pending changes on top of the batch.
        try context.save()
        #expect(try storedValue(ada.objectID, "salary", in: fixture.store) == .integer(200_000))
        #expect(try storedValue(ada.objectID, "firstName", in: fixture.store) == .string("Augusta"))
        #expect(try storedValue(alan.objectID, "salary", in: fixture.store) == .integer(1))
    }

    @Test(arguments: BatchStoreKind.allCases)
    func mergingABatchDeleteRemovesTheRegisteredObjectsAndDropsTheirPendingChanges(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let context = fixture.fresh()
        let research = try context.existingObject(with: graph.departments["R&D"]!)
        let ada = try context.existingObject(with: graph.employee("Ada"))
        let grace = try context.existingObject(with: graph.employee("Grace"))
        let barbara = try context.existingObject(with: graph.employee("Barbara"))
        try ada.setValue(.integer(5), forKey: "salary")                    // flushed below, then dropped
        context.processPendingChanges()
        try barbara.setObject(research, forKey: "department")             // a pending reference to a doomed record
        let recorder = NotificationRecorder([ManagedObjectContext.objectsDidChangeNotification], object: context)

        let result = try fixture.fresh().executeBatch(BatchDeleteRequest(entityName: "Department",
                                                                        predicate: try FetchPredicate(format: "name == 'R&D'")))
        try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context])

        #expect(research.isInvalid && ada.isInvalid)
        #expect(context.registeredObject(for: graph.employee("Ada")) == nil)
        #expect(context.registeredObject(for: graph.employee("Alan")) == nil)
        #expect(try grace.related("manager") == nil)                       // nullified in the store, refreshed
        #expect(try barbara.related("department") == nil)                  // the pending reference is gone
        let invalidated = recorder.userInfos.compactMap { $0[ManagedObjectContext.invalidatedObjectsKey] }.reduce(Set(), { $0.union($1) })
        #expect(invalidated == [research.objectID, ada.objectID])
        try context.save()
        #expect(try storedValue(barbara.objectID, "department", in: fixture.store) == .null)
        #expect(try fixture.fresh().count(for: FetchRequest(entityName: "Employee")) == 3)
        #expect(try fixture.fresh().count(for: FetchRequest(entityName: "Department")) == 1)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aDidSaveOfOneContextMergesIntoAnotherOnTheSameCoordinator(kind: BatchStoreKind) async throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let writer = fixture.fresh()
        let reader = fixture.fresh()
        let readerAda = try reader.existingObject(with: graph.employee("Ada"))
        let readerEngine = try reader.existingObject(with: graph.projects["Engine"]!)
        let readerSales = try reader.existingObject(with: graph.departments["Sales"]!)
        try readerSales.setValue("Sales & Marketing", forKey: "name")

        var saved: [SaveChanges] = []
        let stream = writer.didSave()
        try writer.existingObject(with: graph.employee("Ada")).setValue(.integer(1_000), forKey: "salary")
        writer.delete(try writer.existingObject(with: graph.projects["Engine"]!))
        let hire = try writer.insertObject(forEntityName: "Employee")
        try hire.setValue("Hedy", forKey: "firstName")
        try hire.setValue("Lamarr", forKey: "lastName")
        try hire.setObject(try writer.existingObject(with: graph.departments["Sales"]!), forKey: "department")
        try writer.save()
        for await changes in stream {
            saved.append(changes)
            break
        }
        let changes = try #require(saved.first)
        #expect(changes.deleted == [graph.projects["Engine"]!])
        reader.mergeChanges(fromContextDidSave: changes)

        #expect(try readerAda.int("salary") == 1_000)
        #expect(readerEngine.isInvalid)
        #expect(try readerAda.relatedSet("projects").map(\.objectID) == [graph.projects["Apollo"]!])
        #expect(try readerSales.objects(forKey: "employees").map(\.objectID).contains(hire.objectID))
        #expect(try readerSales.string("name") == "Sales & Marketing")
        let inserted = try #require(changes.inserted.first)
        #expect(try reader.object(with: inserted).string("firstName") == "Hedy")
        try reader.save()
        #expect(try storedValue(graph.departments["Sales"]!, "name", in: fixture.store) == .string("Sales & Marketing"))
    }

    @Test func remoteChangesCanBeGivenAsURIsAndUnknownKeysAreRejected() throws {
        let fixture = try BatchFixture(.memory)
        let graph = try BatchGraph(in: fixture.context)
        let context = fixture.fresh()
        let barbara = try context.existingObject(with: graph.employee("Barbara"))
        _ = try fixture.fresh().executeBatch(BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Barbara'"),
                                                                propertiesToUpdate: ["salary": 1]))
        try ManagedObjectContext.mergeChanges(
            fromRemoteContextSave: [ManagedObjectContext.updatedObjectsKey: [barbara.objectID.uriRepresentation()]], into: [context])
        #expect(try barbara.int("salary") == 1)
        let error = strataError {
            try ManagedObjectContext.mergeChanges(fromRemoteContextSave: ["changed": [barbara.objectID]], into: [context])
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.context.key == "changed")
        let badURI = strataError {
            try ManagedObjectContext.mergeChanges(
                fromRemoteContextSave: [ManagedObjectContext.deletedObjectsKey: [URL(string: "x-strata://nowhere/Employee/p1")!]], into: [context])
        }
        #expect(badURI?.code == .invalidObjectID)
        #expect(!barbara.isInvalid)
    }

    @Test func aMergedDeleteOfARecordTheContextAlsoDeletedLeavesNothingToSave() throws {
        let fixture = try BatchFixture(.document)
        let graph = try BatchGraph(in: fixture.context)
        let context = fixture.fresh()
        let apollo = try context.existingObject(with: graph.projects["Apollo"]!)
        context.delete(apollo)
        context.processPendingChanges()
        let result = try fixture.fresh().executeBatch(BatchDeleteRequest(entityName: "Project", predicate: try FetchPredicate(format: "name == 'Apollo'")))
        try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context])
        #expect(apollo.isInvalid)
        #expect(!context.hasChanges)
        try context.save()
        #expect(try fixture.fresh().count(for: FetchRequest(entityName: "Project")) == 1)
    }
}
