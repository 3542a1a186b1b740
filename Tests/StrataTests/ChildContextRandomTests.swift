import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Random pending changes in a parent, random edits in its child: the child's fetches must
/// equal a brute-force filter and sort of every object as the child sees it, and after the
/// child saves, the parent's must equal one over the parent's objects, its graph consistent.
@Suite struct ChildContextRandomTests {
    @Test func aChildsFetchesEqualABruteForceOverWhatItSees() throws {
        let seed = testSeed("ChildContextRandomTests")
        for runSeed in [seed, seed &+ 1, seed &+ 2, seed &+ 3, seed &+ 4, 7, 99, 1_000] {
            var world = try RandomFetchWorld(seed: runSeed)
            try world.makePendingChanges(count: 12)
            let child = ManagedObjectContext(parent: world.context)
            var editor = ChildEditor(child: child, seed: runSeed)
            try editor.edit(count: 15, employees: world.employees, departments: world.departments)
            let label = "seed \(runSeed)\nparent: \(world.changes.joined(separator: "; "))\nchild: \(editor.changes.joined(separator: "; "))"
            for round in 0..<40 {
                let (request, text) = try world.request()
                let expected = try editor.bruteForce(request, parent: world)
                let why = "\(label)\nround \(round): \(text)"
                let fetched = try child.fetch(request).map(\.objectID)
                #expect(fetched == expected, "\(why)")
                #expect(try child.count(for: request) == expected.count, "\(why)")
                // Without its own pending changes, a child answers with its parent's state.
                request.includesPendingChanges = false
                let parentAnswer = try world.context.performAndWait {
                    request.includesPendingChanges = true
                    defer { request.includesPendingChanges = false }
                    return try world.context.fetchObjectIDs(request)
                }
                #expect(try child.fetchObjectIDs(request) == parentAnswer, "\(why)")
                if fetched != expected { return }
            }

            // The parent changes more after the child read its objects: conflicts, resolved
            // by a policy picked by the seed (under .error the save must throw and push nothing).
            let policies: [MergePolicy] = [.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback]
            child.mergePolicy = policies[Int(runSeed % UInt64(policies.count))]
            try world.makePendingChanges(count: 6)
            world.context.processPendingChanges()
            if child.mergePolicy == .error {
                let before = world.context.undoManager?.undoCount
                if let error = strataError({ try child.save() }) {
                    #expect(error.code == .mergeConflict, "\(label)\n\(error)")
                    #expect(world.context.undoManager?.undoCount == before, "\(label)")
                    child.mergePolicy = .mergeByPropertyObjectTrump
                }
            }
            // The save: the parent holds what the child held, and answers like a brute force.
            try child.save()
            #expect(world.context.graphInvariantViolations().isEmpty, "\(label)")
            for object in child.registeredObjects where !object.isFault && !object.isInvalid {
                let theirs = try world.context.existingObject(with: object.objectID)
                #expect(ManagedObjectContext.samePersistentValues(object.storage.array, theirs.storage.array, of: object.entity),
                        "\(label)\n\(object) ≠ \(theirs)")
            }
            try world.check(rounds: 20, label: "seed \(runSeed), after the child's save (\(child.mergePolicy))")
            // And the parent's save writes a consistent document.
            try world.context.save()
            #expect(world.context.graphInvariantViolations().isEmpty, "\(label)")
        }
    }
}

/// Random edits in a child context, and the brute-force answer over what it sees.
private struct ChildEditor {
    let child: ManagedObjectContext
    var random: SeededGenerator
    var inserted: [ManagedObject] = []
    var changes: [String] = []

    init(child: ManagedObjectContext, seed: UInt64) {
        self.child = child
        random = SeededGenerator(seed: seed &* 31 &+ 17)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    /// The child's object for one of the parent's live objects (or one it inserted), in ID
    /// order so a seed replays.
    mutating func live(_ parentObjects: [ManagedObject]) -> ManagedObject? {
        let entityName = parentObjects.first?.entity.name
        let theirs = parentObjects.filter { !$0.isDeleted && !$0.isInvalid }.map(\.objectID).sorted()
            .map { child.object(with: $0) }.filter { (try? child.existingObject(with: $0.objectID)) != nil }
        let usable = (theirs + inserted.filter { $0.entity.name == entityName }).filter { !$0.isDeleted && !$0.isInvalid }
        guard !usable.isEmpty else { return nil }
        return pick(usable)
    }

    mutating func edit(count: Int, employees: [ManagedObject], departments: [ManagedObject]) throws {
        for _ in 0..<count {
            switch int(0...6) {
            case 0:
                let employee = try child.insertObject(forEntityName: "Employee")
                try employee.setValue(.string(pick(["Ada", "Mary", "Grace"])), forKey: "firstName")
                try employee.setValue(.string(pick(["Jackson", "Hopper", "lovelace", "Zed"])), forKey: "lastName")
                try employee.setValue(.integer(Int64(int(0...20)) * 10_000), forKey: "salary")
                if let department = live(departments) { try employee.setObject(department, forKey: "department") }
                inserted.append(employee)
                changes.append("insert \(employee.objectID)")
            case 1:
                guard let employee = live(employees) else { continue }
                child.delete(employee)
                changes.append("delete \(employee.objectID)")
            case 2, 3:
                guard let employee = live(employees) else { continue }
                let salary = int(0...5) == 0 ? PropertyValue.null : .integer(Int64(int(0...20)) * 10_000)
                try employee.setValue(salary, forKey: "salary")
                changes.append("salary \(employee.objectID) = \(salary)")
            case 4:
                guard let employee = live(employees) else { continue }
                let department = int(0...4) == 0 ? nil : live(departments)
                try employee.setObject(department, forKey: "department")
                changes.append("department \(employee.objectID) = \(department?.objectID.description ?? "nil")")
            case 5:
                guard let department = live(departments) else { continue }
                let name = pick(["Alpha", "beta", "Gamma", "délta"])
                try department.setValue(.string(name), forKey: "name")
                changes.append("rename \(department.objectID) = \(name)")
            default:
                guard let employee = live(employees) else { continue }
                let name = pick(["Lovelace", "Turing", "Émile"])
                try employee.setValue(.string(name), forKey: "lastName")
                changes.append("lastName \(employee.objectID) = \(name)")
            }
        }
    }

    /// Every employee the child sees (the store's, the parent's new ones, its own), judged
    /// and sorted one by one by the child's current values.
    func bruteForce(_ request: FetchRequest<ManagedObject>, parent world: RandomFetchWorld) throws -> [ManagedObjectID] {
        child.processPendingChanges()
        let entity = try world.stack.model.entity(named: "Employee")
        var ids = Set(try world.stack.store.objectIDs(for: entity, includingSubentities: true))
        for object in world.context.insertedObjects where object.entity === entity { ids.insert(object.objectID) }
        for object in child.insertedObjects where object.entity === entity { ids.insert(object.objectID) }
        var records: [(id: ManagedObjectID, keys: [PropertyValue])] = []
        for id in ids {
            let object = child.object(with: id)
            guard (try? child.existingObject(with: id)) != nil, !object.isDeleted else { continue }
            if let predicate = request.predicate, try !predicate.evaluate(with: object) { continue }
            records.append((id, try FetchSortDescriptor.sortKeys(of: object, for: request.sortDescriptors)))
        }
        let sorted = FetchSortDescriptor.sort(records, by: request.sortDescriptors).map(\.id)
        return StoreFetchMerge.window(sorted, offset: request.fetchOffset, limit: request.fetchLimit)
    }
}
