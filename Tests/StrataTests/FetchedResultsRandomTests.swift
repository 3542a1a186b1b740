import Foundation
import Testing
@testable import Strata

/// Where the random edits of a `FetchedResultsRandom` run come from.
struct ChangeSources: Sendable, CustomStringConvertible {
    var document: Bool
    var mergedContext: Bool
    var secondConnection: Bool
    var description: String {
        (document ? "document" : "memory") + (mergedContext ? "+merged" : "") + (secondConnection ? "+second connection" : "")
    }
}

/// A seeded random walk of edits (inserts, deletes, salary and name changes, moves between
/// departments, department renames, inserts and deletes, undo, redo, saves) from the
/// controller's own context, a second context merged into it and a second connection to the
/// same document; after every step the controller must equal a fresh fetch, and the diffs it
/// reported must turn the previous snapshot into the new one.
@Suite struct FetchedResultsRandom {
    static let sources = [
        ChangeSources(document: false, mergedContext: false, secondConnection: false),
        ChangeSources(document: false, mergedContext: true, secondConnection: false),
        ChangeSources(document: true, mergedContext: true, secondConnection: false),
        ChangeSources(document: true, mergedContext: true, secondConnection: true),
    ]

    @Test(arguments: sources, [UInt64(1), 2, 3, 4])
    func controllerMatchesAFreshFetchAfterEveryStep(sources: ChangeSources, seed: UInt64) throws {
        try RandomRun(sources: sources, seed: seed).run(steps: 160)
    }

    @Test(arguments: [UInt64(7), 8])
    func withoutSectionsAndWithAPredicateOnARelatedObject(seed: UInt64) throws {
        try RandomRun(sources: Self.sources[3], seed: seed, sectioned: false).run(steps: 120)
    }
}

private final class RandomRun {
    let sources: ChangeSources
    var random: SeededGenerator
    let directory: TemporaryDirectory
    let model = sharedExampleModel
    let main: ManagedObjectContext
    let container: PersistentContainer
    let sibling: ManagedObjectContext?
    let remote: DocumentStack?
    let controller: FetchedResultsController<ManagedObject>
    let delegate = RecordingDelegate()
    let names = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald"]
    let departments = ["R&D", "Sales", "Ops", "Legal"]
    var stepNumber = 0
    var trail: [String] = []

    init(sources: ChangeSources, seed: UInt64, sectioned: Bool = true) throws {
        self.sources = sources
        random = SeededGenerator(seed: seed)
        directory = try TemporaryDirectory()
        var options = PersistentContainer.Options()
        options.viewContextConcurrencyType = .confinement
        options.configuration = manualCompaction()
        let url = directory.file()
        if sources.document {
            // Seed the document, so a second connection can open it.
            try PersistentContainer(name: "Staff", model: model, url: url, options: options).close()
        }
        container = try PersistentContainer(name: "Staff", model: model, url: sources.document ? url : nil, options: options)
        main = container.viewContext
        main.mergePolicy = .mergeByPropertyObjectTrump
        if sources.mergedContext {
            let other = ManagedObjectContext(coordinator: container.coordinator)
            other.mergePolicy = .mergeByPropertyObjectTrump
            other.automaticallyMergesChangesFromParent = true
            sibling = other
        } else {
            sibling = nil
        }
        if sources.secondConnection {
            let stack = try DocumentStack.open(url, configuration: manualCompaction())
            stack.context.mergePolicy = .mergeByPropertyObjectTrump
            remote = stack
        } else {
            remote = nil
        }
        let request: FetchRequest<ManagedObject>
        if sectioned {
            request = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary >= 20"),
                                   sortDescriptors: [FetchSortDescriptor("department.name"), FetchSortDescriptor("lastName"),
                                                     FetchSortDescriptor("salary", ascending: false)])
        } else {
            request = FetchRequest(entityName: "Employee",
                                   predicate: try FetchPredicate(format: "department.name != 'Legal' AND salary >= 10"),
                                   sortDescriptors: [FetchSortDescriptor("salary"), FetchSortDescriptor("lastName")])
        }
        controller = FetchedResultsController(fetchRequest: request, managedObjectContext: main,
                                              sectionNameKeyPath: sectioned ? "department.name" : nil)
        controller.delegate = delegate
    }

    func run(steps: Int) throws {
        // A starting population, saved.
        for name in departments.prefix(3) { try insertNamed("Department", name, in: main) }
        for _ in 0..<12 { try insertEmployee(in: main) }
        try main.save()
        try controller.performFetch()
        var snapshot = controller.snapshot()
        snapshot = try checkController(controller, delegate: delegate, previous: snapshot, step: "start")
        for step in 0..<steps {
            stepNumber = step
            trail = []
            let described = try randomStep() + " " + trail.joined(separator: "; ")
            snapshot = try checkController(controller, delegate: delegate, previous: snapshot,
                                           step: "\(sources) step \(step) (\(described))")
        }
        try remote?.store.close()
        try container.close()
    }

    private func randomStep() throws -> String {
        let roll = Int.random(in: 0..<100, using: &random)
        if let sibling, roll < 20 {
            do {
                try edit(in: sibling)
                try sibling.save()
            } catch {
                sibling.rollback()   // a pick raced with a merged delete: nothing saved
                return "merged save failed: \(error)"
            }
            _ = try main.count(for: FetchRequest(entityName: "Department"))   // takes in the merge
            return "merged save"
        }
        if let remote, roll < 35 {
            _ = try remote.store.refreshFromLog()
            remote.context.reset()
            try edit(in: remote.context)
            try remote.context.save()
            try container.mergeChangesFromOtherProcesses()
            return "second connection's save"
        }
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            _ = try? main.undoManager?.undo()
            main.processPendingChanges()
            return "undo"
        case 1:
            _ = try? main.undoManager?.redo()
            main.processPendingChanges()
            return "redo"
        case 2:
            do {
                try main.save()
            } catch {
                // A record another context deleted under a pending reference: the engine's
                // matter, not the controller's; the controller must follow the rollback.
                main.rollback()
                return "save failed, rolled back: \(error)"
            }
            return "save"
        default:
            let count = Int.random(in: 1...3, using: &random)
            do {
                for _ in 0..<count { try edit(in: main) }
            } catch {
                trail.append("edit failed (\(error)), rolled back")
                main.rollback()
            }
            main.processPendingChanges()
            return "\(count) edits"
        }
    }

    private func pick(_ entity: String, in context: ManagedObjectContext) throws -> ManagedObject? {
        let all = try context.fetch(FetchRequest(entityName: entity, sortDescriptors: [FetchSortDescriptor("lastName")].filter { _ in entity == "Employee" }))
        return all.isEmpty ? nil : all[Int.random(in: 0..<all.count, using: &random)]
    }

    private func insertEmployee(in context: ManagedObjectContext) throws {
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue(.string(names.randomElement(using: &random)!), forKey: "firstName")
        try employee.setValue(.string(names.randomElement(using: &random)!), forKey: "lastName")
        try employee.setValue(.integer(Int64.random(in: 0..<40, using: &random)), forKey: "salary")
        if Int.random(in: 0..<5, using: &random) > 0, let department = try pick("Department", in: context) {
            try employee.setObject(department, forKey: "department")
        }
    }

    private func edit(in context: ManagedObjectContext) throws {
        switch Int.random(in: 0..<11, using: &random) {
        case 0, 1: try insertEmployee(in: context)
        case 2:
            if let employee = try pick("Employee", in: context) { trail.append("delete \(employee.objectID.primaryKey)"); context.delete(employee) }
        case 3, 4:
            if let employee = try pick("Employee", in: context) {
                try employee.setValue(.integer(Int64.random(in: 0..<40, using: &random)), forKey: "salary")
            }
        case 5:
            if let employee = try pick("Employee", in: context) {
                try employee.setValue(.string(names.randomElement(using: &random)!), forKey: "lastName")
            }
        case 6, 7:
            if let employee = try pick("Employee", in: context) {
                let department = Int.random(in: 0..<4, using: &random) == 0 ? nil : try pick("Department", in: context)
                trail.append("move \(employee.objectID.primaryKey) to \(department.map { "\($0.objectID.primaryKey)" } ?? "nil")")
                try employee.setObject(department, forKey: "department")
            }
        case 8:
            if let department = try pick("Department", in: context) {
                let name = departments.randomElement(using: &random)!
                trail.append("rename d\(department.objectID.primaryKey) to \(name)")
                try department.setValue(.string(name), forKey: "name")
            }
        case 9:
            try insertNamed("Department", departments.randomElement(using: &random)!, in: context)
        default:
            if Int.random(in: 0..<3, using: &random) == 0, let department = try pick("Department", in: context) {
                trail.append("delete d\(department.objectID.primaryKey)")
                context.delete(department)   // cascades to its employees
            }
        }
    }
}
