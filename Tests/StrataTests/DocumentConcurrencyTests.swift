import Foundation
import Testing
@testable import Strata

/// Runs `body(index)` on `count` new threads at once and waits for all of them.
private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) -> [String] {
    let errors = LockedBox<[String]>([])
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            defer { group.leave() }
            do { try body(index) } catch { errors.mutate { $0.append("thread \(index): \(error)") } }
        }
        thread.start()
    }
    group.wait()
    return errors.value
}

@Suite struct DocumentConcurrency {
    static let threads = 4
    static let savesPerThread = 6
    static let insertsPerSave = 25

    @Test func contextsOnSeveralThreadsSaveIntoOneDocumentAndEveryObjectLandsExactlyOnce() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        var configuration = DocumentStore.Configuration()
        configuration.compactionSegmentThreshold = 5   // compactions run between the saves too
        let store = try DocumentStore(creatingAt: url, model: sharedExampleModel, configuration: configuration)
        let coordinator = PersistentStoreCoordinator(model: sharedExampleModel)
        try coordinator.addStore(store)
        let employee = try sharedExampleModel.entity(named: "Employee")

        let reads = LockedBox(0)
        let writersDone = LockedBox(0)
        let errors = onThreads(Self.threads + 1) { index in
            if index == Self.threads {
                // A reader: every listed record can be read while the writers save.
                while writersDone.value < Self.threads {
                    for id in try store.objectIDs(for: employee, includingSubentities: false) {
                        guard try store.values(for: id) != nil else { throw StrataError(.objectNotFound, "\(id) listed but unreadable") }
                        reads.mutate { $0 += 1 }
                    }
                }
                return
            }
            defer { writersDone.mutate { $0 += 1 } }
            // Each writer: its own context, created and used on this thread only.
            let context = ManagedObjectContext(coordinator: coordinator)
            var previous: ManagedObject?
            for save in 0..<Self.savesPerThread {
                try previous?.setValue(.integer(999), forKey: "salary")   // an update of a saved object
                for item in 0..<Self.insertsPerSave {
                    let object = try context.insertObject(forEntityName: "Employee")
                    try object.setValue(.string("T\(index)-\(save)-\(item)"), forKey: "firstName")
                    try object.setValue(.string("T\(index)"), forKey: "lastName")
                    try object.setValue(.integer(Int64(item)), forKey: "salary")
                    if let previous { try object.setObject(previous, forKey: "manager") }
                    previous = object
                }
                try context.save()
            }
        }
        #expect(errors.isEmpty, "\(errors)")
        #expect(reads.value > 0)

        func check(_ store: DocumentStore, _ label: String) throws {
            let ids = try store.objectIDs(for: employee, includingSubentities: false)
            let expected = Self.threads * Self.savesPerThread * Self.insertsPerSave
            #expect(ids.count == expected, "\(label)")
            #expect(Set(ids.map(\.primaryKey)).count == expected, "\(label): keys are unique")
            var names: [String: Int] = [:]
            var managers = 0
            for id in ids {
                let values = try #require(try store.values(for: id))
                if case .string(let name) = values[employee.slot(forKey: "firstName") ?? -1] { names[name, default: 0] += 1 }
                if case .object = values[employee.slot(forKey: "manager") ?? -1] { managers += 1 }
            }
            #expect(names.count == expected, "\(label): every object is there")
            #expect(names.values.allSatisfy { $0 == 1 }, "\(label): none twice")
            #expect(managers == expected - Self.threads, "\(label): each writer's chain of managers is intact")
        }
        try check(store, "live")
        #expect(try store.info().segmentCount == Self.threads * Self.savesPerThread)
        try store.close()
        let reopened = try DocumentStore(openingAt: url, model: sharedExampleModel)
        try check(reopened, "reopened")
        try reopened.close()
    }
}
