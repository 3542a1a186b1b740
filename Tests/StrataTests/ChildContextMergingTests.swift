import Foundation
import Testing
@testable import Strata

/// A child context's `automaticallyMergesChangesFromParent` follows its parent (Core Data's
/// semantics): what the parent saves to the store and what sibling children save into the
/// parent, not other root contexts' saves or other processes'.
@Suite("child contexts merge their parent's saves")
struct ChildContextMergingTests {
    private static func stack() throws -> (PersistentStoreCoordinator, ManagedObjectContext, ManagedObjectID) {
        let coordinator = PersistentStoreCoordinator(model: sharedExampleModel)
        try coordinator.addStore(InMemoryStore(model: sharedExampleModel))
        let view = ManagedObjectContext(coordinator: coordinator)
        let ada = try view.insertObject(forEntityName: "Employee")
        try ada.setValue("Ada", forKey: "firstName")
        try ada.setValue("Lovelace", forKey: "lastName")
        try ada.setValue(.integer(1), forKey: "salary")
        try view.save()
        return (coordinator, view, ada.objectID)
    }

    @Test func aMergingChildTakesInItsParentsSaveButNotASiblingRootsSave() throws {
        let (coordinator, view, id) = try Self.stack()
        view.automaticallyMergesChangesFromParent = true
        let child = ManagedObjectContext(parent: view)
        child.automaticallyMergesChangesFromParent = true
        #expect(child.automaticallyMergesChangesFromParent)
        let ada = try child.existingObject(with: id)
        #expect(try ada.int("salary") == 1)

        // Another root context's save reaches the view context, not the child.
        let other = ManagedObjectContext(coordinator: coordinator)
        try other.existingObject(with: id).setValue(.integer(2), forKey: "salary")
        try other.save()
        _ = try view.count(for: FetchRequest(entityName: "Employee"))
        #expect(try view.existingObject(with: id).int("salary") == 2)
        _ = try child.count(for: FetchRequest(entityName: "Employee"))
        #expect(try ada.int("salary") == 1, "not the parent's save")

        // The parent's own save reaches the child.
        try view.existingObject(with: id).setValue(.integer(3), forKey: "salary")
        let grace = try view.insertObject(forEntityName: "Employee")
        try grace.setValue("Grace", forKey: "firstName")
        try grace.setValue("Hopper", forKey: "lastName")
        try view.save()
        _ = try child.count(for: FetchRequest(entityName: "Employee"))
        #expect(try ada.int("salary") == 3)
        #expect(try child.count(for: FetchRequest(entityName: "Employee")) == 2)
    }

    @Test func aSiblingChildsSaveIntoTheParentReachesAMergingChildWithItsOwnChangesKept() throws {
        let (_, view, id) = try Self.stack()
        let listening = ManagedObjectContext(parent: view)
        listening.automaticallyMergesChangesFromParent = true
        let deaf = ManagedObjectContext(parent: view)
        let ada = try listening.existingObject(with: id)
        try ada.setValue("Augusta", forKey: "firstName")   // unsaved in the listening child
        let unchanged = try deaf.existingObject(with: id)
        #expect(try unchanged.int("salary") == 1)

        let sheet = ManagedObjectContext(parent: view)
        try sheet.existingObject(with: id).setValue(.integer(7), forKey: "salary")
        try sheet.save()   // into the view context only
        _ = try listening.count(for: FetchRequest(entityName: "Employee"))
        _ = try deaf.count(for: FetchRequest(entityName: "Employee"))
        #expect(try ada.int("salary") == 7)
        #expect(try ada.string("firstName") == "Augusta")
        #expect(try unchanged.int("salary") == 1, "a child that does not merge is left alone")
    }
}
