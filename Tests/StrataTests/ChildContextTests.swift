import Foundation
import Testing
@testable import Strata

/// Child contexts (Core Data's `parent`): reads through the parent, saves into it.
@Suite struct ChildContextTests {
    // MARK: Reading through the parent

    @Test func faultsAreFulfilledFromTheParentsUnsavedValues() throws {
        let fixture = try FetchFixture()
        let ada = try fixture.employee("Lovelace")
        try ada.setValue(.integer(1), forKey: "salary")                       // unsaved in the parent
        let newcomer = try fixture.insertEmployee("Katherine", "Johnson", salary: 5, department: nil)
        let child = ManagedObjectContext(parent: fixture.context)
        #expect(child.parent === fixture.context && child.coordinator === fixture.coordinator)
        #expect(try child.existingObject(with: ada.objectID).value(forKey: "salary") == .integer(1))
        // An object the parent inserted (temporary ID) is there too.
        let seen = try child.existingObject(with: newcomer.objectID)
        #expect(try seen.value(forKey: "lastName") == .string("Johnson"))
        #expect(!seen.isInserted && !child.hasChanges)
        // A record the parent deletes is not.
        let turing = try fixture.employee("Turing")
        fixture.context.delete(turing)
        fixture.context.processPendingChanges()
        #expect(strataError { _ = try child.existingObject(with: turing.objectID) }?.code == .objectNotFound)
    }

    @Test func fetchesSeeTheParentsPendingChangesWithTheChildsOnTop() throws {
        let fixture = try FetchFixture()
        try fixture.employee("Turing").setValue(.integer(130_000), forKey: "salary")     // now matches
        fixture.context.delete(try fixture.employee("Hopper"))                           // gone
        try fixture.insertEmployee("Katherine", "Johnson", salary: 200_000, department: nil)
        let child = ManagedObjectContext(parent: fixture.context)
        let request = try employeesRequest("salary > 100000", sortedBy: [FetchSortDescriptor("salary")])
        #expect(try lastNames(child.fetch(request)) == ["Lovelace", "Turing", "Johnson"])
        #expect(try child.count(for: request) == 3)
        // The child's own changes go on top, judged and sorted by the child's values.
        let ada = try child.existingObject(with: try fixture.employee("Lovelace").objectID)
        try ada.setValue(.integer(500_000), forKey: "salary")
        let mine = try child.insertObject(forEntityName: "Employee")
        try mine.setValue("Mary", forKey: "firstName")
        try mine.setValue("Jackson", forKey: "lastName")
        try mine.setValue(.integer(110_000), forKey: "salary")
        #expect(try lastNames(child.fetch(request)) == ["Jackson", "Turing", "Johnson", "Lovelace"])
        // Key paths through related objects read the parent's state: a department renamed there.
        let research = try fixture.context.fetch(try FetchRequest(entityName: "Department", predicate: FetchPredicate(format: "name == 'R&D'")))[0]
        try research.setValue("Research", forKey: "name")
        let inResearch = try employeesRequest("department.name == 'Research'", sortedBy: [FetchSortDescriptor("lastName")])
        #expect(try lastNames(child.fetch(inResearch)) == ["Lovelace", "Turing"])
        // Dictionaries too, with the parent's unsaved salary.
        let rows = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "lastName == 'Turing'"))
        rows.propertiesToFetch = ["lastName", "salary"]
        #expect(try child.fetchDictionaries(rows) == [["lastName": .string("Turing"), "salary": .integer(130_000)]])
        // The parent is untouched by the child's fetches and edits.
        #expect(try fixture.employee("Lovelace").value(forKey: "salary") == .integer(120_000))
    }

    // MARK: Saving up

    @Test func aSavePushesIntoTheParentNotToTheStore() throws {
        let fixture = try FetchFixture()
        let parent = fixture.context
        let adaID = try fixture.employee("Lovelace").objectID
        let child = ManagedObjectContext(parent: parent)
        let ada = try child.existingObject(with: adaID)
        try ada.setValue(.integer(160_000), forKey: "salary")
        let mary = try child.insertObject(forEntityName: "Employee")
        try mary.setValue("Mary", forKey: "firstName")
        try mary.setValue("Jackson", forKey: "lastName")
        try mary.setObject(try ada.object(forKey: "department"), forKey: "department")
        child.delete(try child.existingObject(with: try fixture.employee("Liskov").objectID))
        fixture.store.resetCounts()
        try child.save()
        #expect(!child.hasChanges)
        #expect(parent.hasChanges)
        // Nothing reached the store.
        #expect(try fixture.freshContext().existingObject(with: adaID).value(forKey: "salary") == .integer(120_000))
        // The parent holds the changes, with the child's temporary ID and inverses kept.
        #expect(try parent.existingObject(with: adaID).value(forKey: "salary") == .integer(160_000))
        let pushed = try #require(parent.registeredObject(for: mary.objectID))
        #expect(mary.objectID.isTemporaryID && pushed.isInserted)
        let research = try #require(try pushed.object(forKey: "department"))
        #expect(try research.value(forKey: "employees").objectIDs.contains(mary.objectID))
        #expect(try parent.count(for: FetchRequest(entityName: "Employee")) == 5)
        // The parent's save persists them; the child takes the permanent ID.
        try parent.save()
        let fresh = fixture.freshContext()
        #expect(try fresh.existingObject(with: adaID).value(forKey: "salary") == .integer(160_000))
        #expect(try lastNames(fresh.fetch(employeesRequest(nil, sortedBy: [FetchSortDescriptor("lastName")])))
            == ["Hopper", "Jackson", "Lovelace", "Turing", "dijkstra"])
        _ = try child.count(for: FetchRequest(entityName: "Employee"))    // the child's next operation
        #expect(!mary.objectID.isTemporaryID)
        #expect(mary.objectID == pushed.objectID)
        #expect(try child.existingObject(with: research.objectID).value(forKey: "employees").objectIDs.contains(mary.objectID))
    }

    @Test func thePushIsOneUndoGroupInTheParentNamedAfterTheChildsAction() throws {
        let fixture = try FetchFixture()
        let parent = fixture.context
        let adaID = try fixture.employee("Lovelace").objectID
        let child = ManagedObjectContext(parent: parent)
        let ada = try child.existingObject(with: adaID)
        try ada.setValue(.integer(1), forKey: "salary")
        try ada.setValue("Augusta", forKey: "firstName")
        child.undoManager?.setActionName("Edit Employee")
        let undo = try #require(parent.undoManager)
        let before = undo.undoCount
        try child.save()
        #expect(undo.undoCount == before + 1 && undo.undoActionName == "Edit Employee")
        try undo.undo()
        let mine = try parent.existingObject(with: adaID)
        #expect(try mine.value(forKey: "salary") == .integer(120_000) && mine.value(forKey: "firstName") == .string("Ada"))
        try undo.redo()
        #expect(try mine.value(forKey: "salary") == .integer(1))
    }

    @Test func discardingTheChildLeavesTheParentUntouched() throws {
        let fixture = try FetchFixture()
        let parent = fixture.context
        let adaID = try fixture.employee("Lovelace").objectID
        let undoCount = parent.undoManager?.undoCount
        var child: ManagedObjectContext? = ManagedObjectContext(parent: parent)
        let ada = try child!.existingObject(with: adaID)
        try ada.setValue(.integer(1), forKey: "salary")
        _ = try child!.insertObject(forEntityName: "Department")
        child!.rollback()
        #expect(!child!.hasChanges)
        #expect(try ada.value(forKey: "salary") == .integer(120_000))
        try ada.setValue(.integer(2), forKey: "salary")
        child = nil                                                               // thrown away
        #expect(!parent.hasChanges)
        #expect(try parent.existingObject(with: adaID).value(forKey: "salary") == .integer(120_000))
        #expect(try parent.count(for: FetchRequest(entityName: "Department")) == 2)
        #expect(parent.undoManager?.undoCount == undoCount)
    }

    @Test func nestedTwoLevelsSavesStepByStep() throws {
        let fixture = try FetchFixture()
        let root = fixture.context
        let middle = ManagedObjectContext(parent: root)
        let leaf = ManagedObjectContext(parent: middle)
        let adaID = try fixture.employee("Lovelace").objectID
        try middle.existingObject(with: adaID).setValue(.integer(10), forKey: "salary")
        // The grandchild sees the middle's unsaved value, and the root's through it.
        try root.existingObject(with: try fixture.employee("Turing").objectID).setValue(.integer(20), forKey: "salary")
        let ada = try leaf.existingObject(with: adaID)
        #expect(try ada.value(forKey: "salary") == .integer(10))
        #expect(try leaf.fetch(employeesRequest("salary < 50", sortedBy: [FetchSortDescriptor("salary")])).map { try $0.value(forKey: "salary") }
            == [.integer(10), .integer(20)])
        let department = try leaf.insertObject(forEntityName: "Department")
        try department.setValue("Leaf", forKey: "name")
        try ada.setObject(department, forKey: "department")
        try leaf.save()
        #expect(!leaf.hasChanges && middle.hasChanges && root.hasChanges)   // the root: Turing's salary
        #expect(root.registeredObject(for: department.objectID) == nil)         // not yet in the root
        try middle.save()
        let inRoot = try #require(root.registeredObject(for: department.objectID))
        #expect(try inRoot.value(forKey: "employees").objectIDs == [adaID])
        try root.save()
        _ = try leaf.count(for: FetchRequest(entityName: "Department"))
        #expect(!department.objectID.isTemporaryID && department.objectID == inRoot.objectID)
        let fresh = fixture.freshContext()
        let stored = try fresh.existingObject(with: adaID)
        #expect(try stored.object(forKey: "department")?.value(forKey: "name") == .string("Leaf"))
        #expect(try stored.value(forKey: "salary") == .integer(10))
    }

    @Test func permanentIDsObtainedInAChildReachItsAncestors() throws {
        let fixture = try FetchFixture()
        let root = fixture.context
        let middle = ManagedObjectContext(parent: root)
        let leaf = ManagedObjectContext(parent: middle)
        let department = try leaf.insertObject(forEntityName: "Department")
        try department.setValue("Early", forKey: "name")
        try leaf.save()
        try middle.save()
        let temporary = department.objectID
        try leaf.obtainPermanentIDs(for: [department])
        let permanent = department.objectID
        #expect(temporary.isTemporaryID && !permanent.isTemporaryID)
        #expect(root.registeredObject(for: temporary) == nil)
        #expect(try root.registeredObject(for: permanent)?.value(forKey: "name") == .string("Early"))
        #expect(try middle.existingObject(with: permanent).value(forKey: "name") == .string("Early"))
        try root.save()
        #expect(try fixture.freshContext().existingObject(with: permanent).value(forKey: "name") == .string("Early"))
    }

    @Test func theChildHasItsOwnUndo() throws {
        let fixture = try FetchFixture()
        let parent = fixture.context
        let adaID = try fixture.employee("Lovelace").objectID
        let child = ManagedObjectContext(parent: parent)
        let ada = try child.existingObject(with: adaID)
        try ada.setValue(.integer(1), forKey: "salary")
        child.processPendingChanges()
        try ada.setValue(.integer(2), forKey: "salary")
        child.processPendingChanges()
        let undo = try #require(child.undoManager)
        #expect(undo.undoCount == 2)
        try undo.undo()
        #expect(try ada.value(forKey: "salary") == .integer(1))
        try child.save()
        #expect(try parent.existingObject(with: adaID).value(forKey: "salary") == .integer(1))
        // Undo in the child after its save is a new change of the child, pushed by the next save.
        try undo.undo()
        #expect(try ada.value(forKey: "salary") == .integer(120_000) && child.hasChanges)
        #expect(try parent.existingObject(with: adaID).value(forKey: "salary") == .integer(1))
        try child.save()
        #expect(try parent.existingObject(with: adaID).value(forKey: "salary") == .integer(120_000))
    }

    @Test func deleteRulesAndManyToManysCrossThePush() throws {
        let fixture = try FetchFixture()
        let parent = fixture.context
        let child = ManagedObjectContext(parent: parent)
        let research = try fixture.department("R&D")
        let researchIDs = try research.value(forKey: "employees").objectIDs
        let hopperID = try fixture.employee("Hopper").objectID
        // A project joined by Hopper, in the child only; the R&D department deleted (cascade).
        let project = try child.insertObject(forEntityName: "Project")
        try project.setValue("Apollo", forKey: "name")
        try child.existingObject(with: hopperID).mutableSetValue(forKey: "projects").add(project)
        child.delete(try child.existingObject(with: research.objectID))
        try child.save()
        #expect(research.isDeleted)
        for id in researchIDs { #expect(parent.registeredObject(for: id)?.isDeleted == true) }
        let pushed = try #require(parent.registeredObject(for: project.objectID))
        #expect(try pushed.value(forKey: "members").objectIDs == [hopperID])
        #expect(try parent.existingObject(with: hopperID).value(forKey: "projects").objectIDs == [project.objectID])
        #expect(parent.graphInvariantViolations().isEmpty)
        try parent.save()
        let fresh = fixture.freshContext()
        #expect(try fresh.count(for: FetchRequest(entityName: "Employee")) == 3)
        #expect(try fresh.existingObject(with: hopperID).value(forKey: "projects").objectIDs.count == 1)
    }

    @Test func queueContextsPushOnTheParentsQueue() async throws {
        let fixture = try FetchFixture()
        let adaID = try fixture.employee("Lovelace").objectID
        let parent = ManagedObjectContext(coordinator: fixture.coordinator, concurrencyType: .privateQueue)
        let child = ManagedObjectContext(parent: parent, concurrencyType: .privateQueue)
        let newID = try await child.perform {
            child.retainsRegisteredObjects = true        // the child's department stays registered
            try child.existingObject(with: adaID).setValue(.integer(7), forKey: "salary")
            let department = try child.insertObject(forEntityName: "Department")
            try department.setValue("Queues", forKey: "name")
            try child.save()
            return department.objectID
        }
        let (salary, name, changed) = try await parent.perform {
            (try parent.existingObject(with: adaID).value(forKey: "salary"),
             try parent.existingObject(with: newID).value(forKey: "name"), parent.hasChanges)
        }
        #expect(salary == .integer(7) && name == .string("Queues") && changed)
        let saved = try await parent.perform {
            try parent.save()
            return try parent.fetchObjectIDs(FetchRequest(entityName: "Department", predicate: FetchPredicate(format: "name == 'Queues'")))
        }
        let renamed = try await child.perform {
            _ = try child.count(for: FetchRequest(entityName: "Department"))     // takes the permanent IDs in
            return child.registeredObjects.filter { $0.entity.name == "Department" && !$0.isFault }.map(\.objectID)
        }
        #expect(newID.isTemporaryID && saved.count == 1 && !saved[0].isTemporaryID)
        #expect(renamed.contains(saved[0]) && !renamed.contains(newID))
    }

    @Test func aControllerOnTheChildFollowsItsEditsAndThePermanentIDs() throws {
        let fixture = try FetchFixture()
        let parent = fixture.context
        let child = ManagedObjectContext(parent: parent)
        let request = try employeesRequest("salary > 100000", sortedBy: [FetchSortDescriptor("lastName")])
        let list = FetchedResultsController(fetchRequest: request, managedObjectContext: child)
        try list.performFetch()
        #expect(try lastNames(list.fetchedObjects ?? []) == ["Hopper", "Lovelace"])
        let mary = try fixture.insertEmployee("Mary", "Jackson", salary: 200_000, department: nil, in: child)
        child.processPendingChanges()
        #expect(try lastNames(list.fetchedObjects ?? []) == ["Hopper", "Jackson", "Lovelace"])
        try child.save()
        try parent.save()
        _ = try child.count(for: request)                   // the child takes the permanent IDs in
        #expect(!mary.objectID.isTemporaryID)
        // The controller names her by her permanent ID, as after a save of its own context.
        let ids = list.snapshot().objectIDs
        #expect(ids.contains(mary.objectID) && ids.allSatisfy { !$0.isTemporaryID })
        #expect(list.indexPath(for: mary) == ResultIndexPath(item: 1, section: 0))
    }

    // MARK: The edit sheet, end to end

    @Test func theEditSheetFlowOnADocument() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let adaURI: URL
        do {
            let container = try PersistentContainer(name: "Staff", model: sharedExampleModel, url: url, options: confinedContainer())
            let view = container.viewContext
            let research = try view.insertObject(forEntityName: "Department")
            try research.setValue("Research", forKey: "name")
            let ada = try view.insertObject(forEntityName: "Employee")
            try ada.setValue("Ada", forKey: "firstName")
            try ada.setValue("Lovelace", forKey: "lastName")
            try ada.setObject(research, forKey: "department")
            try view.save()
            adaURI = ada.objectID.uriRepresentation()
            let list = FetchedResultsController(
                fetchRequest: FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("department.name"), FetchSortDescriptor("lastName")]),
                managedObjectContext: view, sectionNameKeyPath: "department.name")
            try list.performFetch()
            let observer = SectionRecorder()
            list.delegate = observer

            // The sheet: edit Ada, add a colleague in a new department, then OK.
            let sheet = ManagedObjectContext(parent: view)
            let editing = try sheet.existingObject(with: ada.objectID)
            try editing.setValue(.integer(99), forKey: "salary")
            let sales = try sheet.insertObject(forEntityName: "Department")
            try sales.setValue("Sales", forKey: "name")
            let grace = try sheet.insertObject(forEntityName: "Employee")
            try grace.setValue("Grace", forKey: "firstName")
            try grace.setValue("Hopper", forKey: "lastName")
            try grace.setObject(sales, forKey: "department")
            sheet.undoManager?.setActionName("Edit Staff")
            #expect(list.fetchedObjects?.count == 1)                 // nothing until the sheet saves
            try sheet.save()
            #expect(list.sections?.map(\.name) == ["Research", "Sales"])
            #expect(observer.events == ["will", "section insert 1", "object insert 1.0", "object update 0.0", "did"])
            #expect(view.undoManager?.undoActionName == "Edit Staff")
            try view.save()
            _ = observer
        }
        let reopened = try PersistentContainer(name: "Staff", model: sharedExampleModel, url: url, options: confinedContainer())
        let context = reopened.viewContext
        let ada = try context.existingObject(with: try reopened.coordinator.managedObjectID(forURIRepresentation: adaURI))
        #expect(try ada.value(forKey: "salary") == .integer(99))
        let names = try context.fetch(FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("lastName")]))
            .map { "\(try $0.value(forKey: "lastName")) \(try $0.object(forKey: "department")?.value(forKey: "name") ?? .null)" }
        #expect(names == ["\"Hopper\" \"Sales\"", "\"Lovelace\" \"Research\""])
        #expect(context.undoManager?.undoActionName == "Edit Staff")
    }
}

/// A container whose view context is used directly (tests have no main queue running).
private func confinedContainer() -> PersistentContainer.Options {
    var options = PersistentContainer.Options()
    options.viewContextConcurrencyType = .confinement
    return options
}

/// A delegate that writes down what it hears.
private final class SectionRecorder: FetchedResultsControllerDelegate {
    var events: [String] = []
    func controllerWillChangeContent(_ controller: FetchedResultsController<some ManagedObject>) { events.append("will") }
    func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange section: FetchedResultsSection,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        events.append("section \(type) \(sectionIndex)")
    }
    func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange object: ManagedObject,
                    at indexPath: ResultIndexPath?, for type: FetchedResultsChangeType, newIndexPath: ResultIndexPath?) {
        let path = newIndexPath ?? indexPath
        events.append("object \(type) \(path.map { "\($0.section).\($0.item)" } ?? "-")")
    }
    func controllerDidChangeContent(_ controller: FetchedResultsController<some ManagedObject>) { events.append("did") }
}
