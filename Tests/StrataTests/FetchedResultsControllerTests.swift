import Foundation
import Testing
@testable import Strata

/// Each kind of change a `FetchedResultsController` reports, checked against a fresh fetch
/// and by applying the diff, through the delegate and the stream.
@Suite struct FetchedResultsControllerKinds {
    /// A container in memory with departments and employees, and a controller over
    /// employees sectioned by department name.
    final class Fixture {
        let container: PersistentContainer
        var context: ManagedObjectContext { container.viewContext }
        let controller: FetchedResultsController<ManagedObject>
        let delegate = RecordingDelegate()
        var snapshot = FetchedResultsSnapshot()
        var departments: [String: ManagedObject] = [:]

        init(predicate: String = "salary >= 10") throws {
            var options = PersistentContainer.Options()
            options.viewContextConcurrencyType = .confinement
            container = try PersistentContainer(name: "Staff", model: sharedExampleModel, url: nil, options: options)
            let request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: predicate),
                                       sortDescriptors: [FetchSortDescriptor("department.name"), FetchSortDescriptor("lastName")])
            controller = FetchedResultsController(fetchRequest: request, managedObjectContext: container.viewContext,
                                                  sectionNameKeyPath: "department.name")
            controller.delegate = delegate
            for name in ["A", "B", "C"] { departments[name] = try insertNamed("Department", name, in: context) }
            for (last, department) in [("k", "A"), ("m", "A"), ("p", "B")] { _ = try employee(last, in: department) }
            try context.save()
            try controller.performFetch()
            snapshot = controller.snapshot()
        }

        @discardableResult
        func employee(_ last: String, in department: String?, salary: Int64 = 50) throws -> ManagedObject {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue("E", forKey: "firstName")
            try employee.setValue(.string(last), forKey: "lastName")
            try employee.setValue(.integer(salary), forKey: "salary")
            try employee.setObject(department.flatMap { departments[$0] }, forKey: "department")
            return employee
        }

        func named(_ last: String) throws -> ManagedObject {
            for object in controller.fetchedObjects ?? [] where try object.string("lastName") == last { return object }
            throw StrataError(.objectNotFound, "no employee \(last) in the results")
        }

        /// Flushes, checks against a fresh fetch and the applied diff, returns the one batch.
        func flush() throws -> FetchedResultsDiff {
            context.processPendingChanges()
            let batches = delegate.batches
            snapshot = try checkController(controller, delegate: delegate, previous: snapshot, step: "flush")
            #expect(batches.count == 1)
            return batches.first ?? FetchedResultsDiff()
        }

        var names: [String] { controller.sections?.map(\.name) ?? [] }
    }

    @Test func anInsertedMatchingObjectIsAnInsertion() throws {
        let fixture = try Fixture()
        try fixture.employee("l", in: "A")
        let diff = try fixture.flush()
        #expect(diff.insertions.map(\.newIndexPath) == [ResultIndexPath(item: 1, section: 0)])
        #expect(diff.deletions.isEmpty && diff.moves.isEmpty && diff.insertedSections.isEmpty)
    }

    @Test func aDeletedObjectIsADeletionAndAnEmptiedSectionIsDeleted() throws {
        let fixture = try Fixture()
        fixture.context.delete(try fixture.named("p"))
        let diff = try fixture.flush()
        #expect(diff.deletions.map(\.oldIndexPath) == [ResultIndexPath(item: 0, section: 1)])
        #expect(diff.deletedSections == [1])
        #expect(fixture.names == ["A"])
    }

    @Test func aChangeOutsideTheSortKeysIsAnUpdateInPlace() throws {
        let fixture = try Fixture()
        try fixture.named("k").setValue(.integer(60), forKey: "salary")
        let diff = try fixture.flush()
        #expect(diff.updates.map(\.oldIndexPath) == [ResultIndexPath(item: 0, section: 0)])
        #expect(diff.moves.isEmpty)
    }

    @Test func aSortKeyChangeIsAMoveWithinTheSection() throws {
        let fixture = try Fixture()
        try fixture.named("k").setValue("z", forKey: "lastName")
        let diff = try fixture.flush()
        #expect(diff.moves.count == 1)
        #expect(diff.moves.first?.oldIndexPath == ResultIndexPath(item: 0, section: 0))
        #expect(diff.moves.first?.newIndexPath == ResultIndexPath(item: 1, section: 0))
    }

    @Test func aSectionKeyChangeIsAMoveBetweenSections() throws {
        let fixture = try Fixture()
        try fixture.named("k").setObject(fixture.departments["B"], forKey: "department")
        let diff = try fixture.flush()
        #expect(diff.moves.map(\.oldIndexPath) == [ResultIndexPath(item: 0, section: 0)])
        #expect(diff.moves.map(\.newIndexPath) == [ResultIndexPath(item: 0, section: 1)])
    }

    @Test func anObjectInANewSectionInsertsTheSection() throws {
        let fixture = try Fixture()
        try fixture.named("m").setObject(fixture.departments["C"], forKey: "department")
        let diff = try fixture.flush()
        #expect(diff.insertedSections == [2])
        #expect(diff.moves.map(\.newIndexPath) == [ResultIndexPath(item: 0, section: 2)])
        #expect(fixture.names == ["A", "B", "C"])
    }

    @Test func anObjectNoLongerMatchingIsADeletionAndOneNowMatchingAnInsertion() throws {
        let fixture = try Fixture()
        try fixture.named("k").setValue(.integer(1), forKey: "salary")
        var diff = try fixture.flush()
        #expect(diff.deletions.map(\.oldIndexPath) == [ResultIndexPath(item: 0, section: 0)])
        try fixture.context.undoManager?.undo()
        diff = try fixture.flush()
        #expect(diff.insertions.map(\.newIndexPath) == [ResultIndexPath(item: 0, section: 0)])
    }

    @Test func renamingARelatedObjectMovesItsObjectsToAnotherSection() throws {
        let fixture = try Fixture()
        try fixture.departments["A"]!.setValue("D", forKey: "name")
        let diff = try fixture.flush()
        #expect(fixture.names == ["B", "D"])
        #expect(diff.deletedSections == [0] && diff.insertedSections == [1])
        #expect(diff.moves.count == 2)
    }

    @Test func aSaveReportsTemporaryIDsBecomingPermanentAsUpdates() throws {
        let fixture = try Fixture()
        let added = try fixture.employee("l", in: "A")
        _ = try fixture.flush()
        try fixture.context.save()
        let diff = try #require(fixture.delegate.batches.first)
        #expect(diff.updates.map(\.objectID) == [added.objectID])
        fixture.snapshot = try checkController(fixture.controller, delegate: fixture.delegate, previous: fixture.snapshot, step: "save")
    }

    @Test func readingByIndexPath() throws {
        let fixture = try Fixture()
        let p = try fixture.named("p")
        #expect(fixture.controller.indexPath(for: p) == ResultIndexPath(item: 0, section: 1))
        #expect(fixture.controller.object(at: ResultIndexPath(item: 0, section: 1)) === p)
        #expect(fixture.controller.numberOfSections == 2 && fixture.controller.numberOfObjects(inSection: 0) == 2)
        #expect(fixture.controller.sectionName(at: 1) == "B")
        let outside = try fixture.employee("x", in: "A", salary: 1)
        fixture.context.processPendingChanges()
        #expect(fixture.controller.indexPath(for: outside) == nil)
    }

    @Test func aBackgroundSaveMergedIntoTheContextIsReported() throws {
        let fixture = try Fixture()
        let other = ManagedObjectContext(coordinator: fixture.container.coordinator)
        let department = try other.existingObject(with: fixture.departments["C"]!.objectID)
        let employee = try other.insertObject(forEntityName: "Employee")
        try employee.setValue("E", forKey: "firstName")
        try employee.setValue("a", forKey: "lastName")
        try employee.setValue(.integer(20), forKey: "salary")
        try employee.setObject(department, forKey: "department")
        try other.save()
        _ = try fixture.context.count(for: FetchRequest(entityName: "Department"))   // takes in the merge
        let diff = try #require(fixture.delegate.batches.first)
        #expect(diff.insertedSections == [2] && diff.insertions.map(\.objectID) == [employee.objectID])
        fixture.snapshot = try checkController(fixture.controller, delegate: fixture.delegate, previous: fixture.snapshot, step: "merge")
    }

    @Test func theStreamGivesTheSnapshotThenEachDiff() async throws {
        let fixture = try Fixture()
        var updates = fixture.controller.changes().makeAsyncIterator()
        let first = try #require(await updates.next())
        #expect(first.snapshot == fixture.snapshot && first.diff.isEmpty)
        try fixture.named("k").setObject(fixture.departments["C"], forKey: "department")
        fixture.context.processPendingChanges()
        let second = try #require(await updates.next())
        #expect(second.snapshot == fixture.controller.snapshot())
        #expect(applying(second.diff, to: first.snapshot, sectionNames: [2: "C"]) == second.snapshot)
    }

    @Test func requestsWithAWindowAreRefused() throws {
        let fixture = try Fixture()
        fixture.controller.fetchRequest.fetchLimit = 2
        #expect(throws: StrataError.self) { try fixture.controller.performFetch() }
    }
}
