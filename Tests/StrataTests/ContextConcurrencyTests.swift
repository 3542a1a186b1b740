import Foundation
import Testing
@testable import Strata

@Suite struct ContextConcurrency {
    @Test func aPrivateQueueContextRunsItsWorkOnItsQueueAndReturnsIDs() async throws {
        let stack = Stack()
        let background = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue)
        #expect(background.concurrencyType == .privateQueue)
        #expect(!background.isOnWorkQueue)
        let id = try await background.perform {
            #expect(background.isOnWorkQueue)
            let ada = try background.insertObject(forEntityName: "Employee")
            try ada.setValue("Ada", forKey: "firstName")
            try ada.setValue("Lovelace", forKey: "lastName")
            try background.save()
            return ada.objectID
        }
        #expect(!id.isTemporaryID)
        #expect(try stack.context.existingObject(with: id).string("firstName") == "Ada")
    }

    @Test func performAndWaitReturnsRethrowsAndNestsWithoutDeadlock() async throws {
        let stack = Stack()
        let background = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue)
        let count = try background.performAndWait {
            try background.performAndWait {   // nested: runs at once on the same queue
                _ = try background.insertObject(forEntityName: "Department")
            }
            return try background.count(for: FetchRequest(entityName: "Department"))
        }
        #expect(count == 1)
        let error = strataError {
            try background.performAndWait { _ = try background.insertObject(forEntityName: "NoSuchEntity") }
        }
        #expect(error?.code == .unknownKey, "\(String(describing: error))")
        let inside = await background.perform {
            background.performAndWait { background.isOnWorkQueue }
        }
        #expect(inside)
        await #expect(throws: StrataError.self) {
            try await background.perform {
                try background.existingObject(with: ManagedObjectID.temporary(for: stack.model.entitiesByName["Employee"]!)).objectID
            }
        }
    }

    @Test func aConfinementContextRunsPerformAtOnceOnTheCaller() async throws {
        let stack = Stack()
        #expect(stack.context.concurrencyType == .confinement)
        let context = stack.context
        var ran = false
        context.performAndWait { ran = true }
        #expect(ran, "the body ran before performAndWait returned")
        let name = try await context.perform {
            let department = try context.insertObject(forEntityName: "Department")
            try department.setValue("R&D", forKey: "name")
            return try department.string("name")
        }
        #expect(name == "R&D")
    }

    @Test func aMainQueueContextRunsOnTheMainQueue() async throws {
        let stack = Stack()
        let ui = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .mainQueue)
        let (onQueue, marked) = await Task.detached {
            await ui.perform { (ui.isOnWorkQueue, DispatchQueue.getSpecific(key: ManagedObjectContext.mainQueueKey)) }
        }.value
        #expect(onQueue && marked == true)
        let fromDetached = await Task.detached { ui.isOnWorkQueue }.value
        #expect(!fromDetached)
    }

    @Test func privateQueueContextsSaveConcurrentlyIntoOneDocumentAndEveryObjectLands() async throws {
        let directory = try TemporaryDirectory()
        let stack = try DocumentStack.create(directory.file())
        let workers = 6, saves = 5, perSave = 20
        let ids = try await withThrowingTaskGroup(of: [ManagedObjectID].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let context = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue)
                    var saved: [ManagedObjectID] = []
                    for save in 0..<saves {
                        saved += try await context.perform {
                            var objects: [ManagedObject] = []
                            for index in 0..<perSave {
                                let employee = try context.insertObject(forEntityName: "Employee")
                                try employee.setValue(.string("w\(worker)-s\(save)-\(index)"), forKey: "firstName")
                                try employee.setValue("Worker", forKey: "lastName")
                                objects.append(employee)
                            }
                            try context.save()
                            return objects.map(\.objectID)
                        }
                    }
                    return saved
                }
            }
            var all: [ManagedObjectID] = []
            for try await batch in group { all += batch }
            return all
        }
        #expect(ids.count == workers * saves * perSave)
        #expect(Set(ids).count == ids.count, "every object got its own key")
        #expect(try stack.context.count(for: FetchRequest(entityName: "Employee")) == ids.count)
        #expect(try stack.store.info().segmentCount == workers * saves)
        try stack.store.close()
    }

    @Test func remoteMergesRunOnEachContextsQueue() async throws {
        let stack = Stack()
        let writer = stack.context
        let ada = try writer.insertObject(forEntityName: "Employee")
        try ada.setValue("Ada", forKey: "firstName")
        try ada.setValue("Lovelace", forKey: "lastName")
        try writer.save()
        let background = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue)
        let id = ada.objectID
        _ = try await background.perform { try background.existingObject(with: id).string("firstName") }
        try ada.setValue("Augusta", forKey: "firstName")
        try writer.save()
        // Called off the background context's queue: the merge hops onto it.
        try ManagedObjectContext.mergeChanges(fromRemoteContextSave: [ManagedObjectContext.updatedObjectsKey: [id]],
                                              into: [background])
        let name = try await background.perform { try background.existingObject(with: id).string("firstName") }
        #expect(name == "Augusta")
    }

    @Test func concurrentSavesAddingToOneRelationshipAllLandUnderAMergingPolicy() async throws {
        let directory = try TemporaryDirectory()
        let stack = try DocumentStack.create(directory.file())
        let project = try stack.context.insertObject(forEntityName: "Project")
        try project.setValue("Apollo", forKey: "name")
        try stack.context.save()
        let projectID = project.objectID
        let workers = 4, rounds = 6
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let context = ManagedObjectContext(coordinator: stack.coordinator, concurrencyType: .privateQueue)
                    context.mergePolicy = .mergeByPropertyObjectTrump
                    for round in 0..<rounds {
                        try await context.perform {
                            // The project is loaded once and goes stale as the others save.
                            let apollo = try context.existingObject(with: projectID)
                            let member = try context.insertObject(forEntityName: "Employee")
                            try member.setValue(.string("w\(worker)r\(round)"), forKey: "firstName")
                            try member.setValue("Member", forKey: "lastName")
                            try apollo.mutableSetValue(forKey: "members").add(member)
                            try context.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let reader = ManagedObjectContext(coordinator: stack.coordinator)
        let members = try reader.existingObject(with: projectID).value(forKey: "members").objectIDs
        #expect(members.count == workers * rounds, "every addition survived the others' saves")
        #expect(try reader.count(for: FetchRequest(entityName: "Employee")) == workers * rounds)
        try stack.store.close()
    }
}
