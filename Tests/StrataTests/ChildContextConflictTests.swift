import Foundation
import Testing
@testable import Strata

/// A child's save against changes its parent made since the child read the objects: a
/// conflict, decided by the child's merge policy with the parent in the store's place.
@Suite struct ChildContextConflictTests {
    /// The parent and the child both change Ada after the child read her.
    private func conflict(_ policy: MergePolicy) throws -> (parent: ManagedObjectContext, child: ManagedObjectContext,
                                                             ada: ManagedObject, error: StrataError?) {
        let fixture = try FetchFixture()
        let parent = fixture.context
        let child = ManagedObjectContext(parent: parent)
        child.mergePolicy = policy
        let adaID = try fixture.employee("Lovelace").objectID
        let ada = try child.existingObject(with: adaID)
        let theirs = try parent.existingObject(with: adaID)
        try theirs.setValue(.integer(1), forKey: "salary")                 // parent: salary
        try theirs.setValue("Augusta", forKey: "firstName")                // parent: first name
        try ada.setValue(.integer(2), forKey: "salary")                    // child: salary
        try ada.setValue("Byron", forKey: "lastName")                      // child: last name
        return (parent, child, ada, strataError { try child.save() })
    }

    @Test func aConflictWithTheParentFailsUnderTheErrorPolicy() throws {
        let (parent, child, ada, error) = try conflict(.error)
        let failure = try #require(error)
        #expect(failure.code == .mergeConflict)
        #expect(failure.mergeConflicts.count == 1 && failure.mergeConflicts[0].objectID == ada.objectID)
        #expect(failure.mergeConflicts[0].storeChangedKeys == ["firstName", "salary"])
        #expect(failure.message.contains("parent"))
        // Nothing was pushed; the child keeps its changes.
        let theirs = try parent.existingObject(with: ada.objectID)
        #expect(try theirs.value(forKey: "lastName") == .string("Lovelace") && theirs.value(forKey: "salary") == .integer(1))
        #expect(child.hasChanges)
        #expect(try ada.value(forKey: "salary") == .integer(2))
    }

    @Test(arguments: [
        (MergePolicy.mergeByPropertyObjectTrump, 2, "Augusta", "Byron"),
        (MergePolicy.mergeByPropertyStoreTrump, 1, "Augusta", "Byron"),
        (MergePolicy.overwrite, 2, "Ada", "Byron"),
        (MergePolicy.rollback, 1, "Augusta", "Lovelace"),
    ])
    func aConflictWithTheParentIsResolvedByThePolicy(policy: MergePolicy, salary: Int64, first: String, last: String) throws {
        let (parent, child, ada, error) = try conflict(policy)
        #expect(error == nil)
        let theirs = try parent.existingObject(with: ada.objectID)
        #expect(try theirs.value(forKey: "salary") == .integer(salary))
        #expect(try theirs.value(forKey: "firstName") == .string(first))
        #expect(try theirs.value(forKey: "lastName") == .string(last))
        // The child holds what the parent decided.
        #expect(!child.hasChanges)
        let mine = try child.existingObject(with: ada.objectID)
        #expect(try mine.value(forKey: "salary") == .integer(salary) && mine.value(forKey: "firstName") == .string(first))
    }

    @Test func movesOnBothSidesKeepTheParentsGraphConsistent() throws {
        let fixture = try FetchFixture()
        let parent = fixture.context
        let child = ManagedObjectContext(parent: parent)
        child.mergePolicy = .mergeByPropertyStoreTrump
        let adaID = try fixture.employee("Lovelace").objectID
        let salesID = try fixture.employee("Hopper").object(forKey: "department")!.objectID
        let mine = try child.existingObject(with: adaID)
        let newDepartment = try child.insertObject(forEntityName: "Department")
        try newDepartment.setValue("New", forKey: "name")
        try mine.setObject(newDepartment, forKey: "department")            // child: to New
        try parent.existingObject(with: adaID).setObject(try parent.existingObject(with: salesID), forKey: "department")  // parent: to Sales
        try child.save()
        let ada = try parent.existingObject(with: adaID)
        #expect(try ada.object(forKey: "department")?.objectID == salesID)   // the parent's move wins
        #expect(try parent.existingObject(with: salesID).value(forKey: "employees").objectIDs.contains(adaID))
        let pushed = try #require(parent.registeredObject(for: newDepartment.objectID))
        #expect(try pushed.value(forKey: "employees").objectIDs.isEmpty)
        #expect(parent.graphInvariantViolations().isEmpty)
        #expect(try child.existingObject(with: adaID).object(forKey: "department")?.objectID == salesID)
    }

    @Test func anObjectTheParentDeletedStaysDeleted() throws {
        let fixture = try FetchFixture()
        let parent = fixture.context
        let child = ManagedObjectContext(parent: parent)
        let adaID = try fixture.employee("Lovelace").objectID
        let ada = try child.existingObject(with: adaID)
        parent.delete(try parent.existingObject(with: adaID))
        try ada.setValue(.integer(3), forKey: "salary")
        #expect(strataError { try child.save() }?.mergeConflicts.first?.persistedSnapshot == nil)
        child.mergePolicy = .mergeByPropertyObjectTrump
        try child.save()
        #expect(ada.isInvalid)
        #expect(parent.registeredObject(for: adaID)?.isDeleted == true)
    }
}
