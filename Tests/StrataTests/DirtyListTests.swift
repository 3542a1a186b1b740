import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// The context's changed-since-save list: flags say who is in, departed entries are dropped
/// in bulk, and an object that comes back revives its entry instead of adding a second.
@Suite struct DirtyListTests {
    let entity: EntityDescription

    init() throws {
        entity = try ManagedObjectModel.employeesExample().entity(named: "Department")
    }

    func objects(_ count: Int) -> [ManagedObject] {
        (0..<count).map { _ in ManagedObject(entity: entity, insertInto: nil) }
    }

    @Test func objectsComeBackInTheirFirstOrderOnceEach() {
        var list = DirtyList()
        let made = objects(5)
        for object in made { list.insert(object) }
        list.insert(made[2])   // already in: nothing
        list.remove(made[1])
        list.remove(made[1])   // already out: nothing
        #expect(list.count == 4)
        #expect(!made[1].state.inDirtySet)
        list.insert(made[1])   // a short list dropped its entry: it comes back last
        #expect(list.count == 5)
        #expect(Array(list.values).map(ObjectIdentifier.init)
            == [made[0], made[2], made[3], made[4], made[1]].map(ObjectIdentifier.init))
        #expect(list.violations.isEmpty)
        list.removeAll()
        #expect(list.isEmpty)
        #expect(made.allSatisfy { !$0.state.inDirtySet && !$0.state.inDirtyList })
    }

    @Test func aShortListLetsADepartedObjectGoAtOnce() {
        var list = DirtyList()
        weak var gone: ManagedObject?
        do {
            let object = ManagedObject(entity: entity, insertInto: nil)
            gone = object
            list.insert(object)
            list.remove(object)
        }
        #expect(gone == nil)
        #expect(list.isEmpty)
    }

    @Test func aLongListDropsDepartedEntriesOnceTheyAreMoreThanHalf() {
        var list = DirtyList()
        let made = objects(DirtyList.shortList * 4)
        for object in made { list.insert(object) }
        // A quarter departs: their entries stay (each object keeps its list flag) …
        for object in made.prefix(made.count / 4) { list.remove(object) }
        #expect(list.count == made.count * 3 / 4)
        #expect(made.prefix(made.count / 4).allSatisfy { !$0.state.inDirtySet && $0.state.inDirtyList })
        #expect(list.violations.isEmpty)
        // … and one of them coming back revives its entry: no second one.
        list.insert(made[0])
        #expect(Array(list.values).count == list.count)
        #expect(Set(list.values.map(ObjectIdentifier.init)).count == list.count)
        // Past half departed, the departed entries are dropped and their list flags cleared
        // (those of the first quarter for sure; later ones may wait for the next drop).
        for object in made[(made.count / 4)..<(made.count * 3 / 4)] { list.remove(object) }
        #expect(list.count == made.count / 4 + 1)
        #expect(made[1..<(made.count * 3 / 4)].allSatisfy { !$0.state.inDirtySet })
        #expect(made[1..<(made.count / 4)].allSatisfy { !$0.state.inDirtyList })
        #expect(Array(list.values).map(ObjectIdentifier.init)
            == ([made[0]] + made[(made.count * 3 / 4)...]).map(ObjectIdentifier.init))
        #expect(list.violations.isEmpty)
    }

    @Test func aContextHoldsAChangedObjectUntilItHasNothingToSaveAmongManyChanged() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let departments = try (0..<(DirtyList.shortList * 2)).map { index in
            let department = try stack.context.insertObject(forEntityName: "Department")
            try department.setValue(.string("D\(index)"), forKey: "name")
            return department
        }
        try stack.context.save()
        for department in departments { try department.setValue(.string("renamed"), forKey: "name") }
        #expect(stack.context.updatedObjects.count == departments.count)
        // Set back: nothing to save, out of the changed set, whatever its entry's fate.
        try departments[7].setValue(.string("D7"), forKey: "name")
        stack.context.processPendingChanges()
        #expect(stack.context.updatedObjects.count == departments.count - 1)
        #expect(!stack.context.updatedObjects.contains(departments[7]))
        try stack.context.save()
        #expect(!stack.context.hasChanges)
    }

    @Test func anObjectThatLeavesTheChangedSetInAFlushIsStillRegisteredWhileItsObserversRun() throws {
        // Renamed in one flush, renamed back in the next: nothing to save, so the context
        // lets it go; but ObjectsDidChange names it, and an observer (a fetched-results
        // controller placing it again) must still find it.
        let stack = try DocumentStack(configuration: manualCompaction())
        var id: ManagedObjectID?
        do {
            let department = try stack.context.insertObject(forEntityName: "Department")
            try department.setValue(.string("R&D"), forKey: "name")
            try stack.context.save()
            try department.setValue(.string("Ops"), forKey: "name")
            stack.context.processPendingChanges()
            try department.setValue(.string("R&D"), forKey: "name")
            id = department.objectID
        }
        let seen = LockedBox<[Bool]>([])
        let context = stack.context
        let watched = try #require(id)
        let token = NotificationCenter.default.addObserver(forName: ManagedObjectContext.objectsDidChangeNotification,
                                                           object: context, queue: nil) { note in
            let updated = note.userInfo?[ManagedObjectContext.updatedObjectsKey] as? Set<ManagedObjectID> ?? []
            let found = updated.contains(watched) && context.registeredObject(for: watched) != nil
            seen.mutate { $0.append(found) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        context.processPendingChanges()
        #expect(seen.value == [true])
        #expect(!context.hasChanges)
    }
}
