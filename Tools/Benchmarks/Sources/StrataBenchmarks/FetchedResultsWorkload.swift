import Foundation
import Strata

/// W9 fetched results: a `FetchedResultsController` over `min(objects, 100,000)` employees
/// (in memory, so the figures are the controller's and the context's, not the disk's),
/// sorted by last name then employee ID and sectioned by last name (100 sections).
/// Figures:
/// - `W9.move_median_ms`, `W9.move_p99_ms`: one last-name edit that moves an employee to
///   another section, from the setter to the delegate's `controllerDidChangeContent`
///   (`processPendingChanges()` delivers it), 200 edits;
/// - `W9.insert_save_ms`: 1,000 new employees inserted and saved in one save, each reported
///   (the flush's diff of 1,000 insertions and the save's diff of their permanent IDs);
/// - `W9.fetch_s`: the first `performFetch()`.
enum FetchedResultsWorkload {
    /// Counts the diffs the controller delivers.
    final class Counter: FetchedResultsControllerDelegate {
        var batches = 0
        var moves = 0
        var insertions = 0
        func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange object: ManagedObject, at indexPath: ResultIndexPath?,
                        for type: FetchedResultsChangeType, newIndexPath: ResultIndexPath?) {
            if type == .move { moves += 1 }
            if type == .insert { insertions += 1 }
        }
        func controllerDidChangeContent(_ controller: FetchedResultsController<some ManagedObject>) { batches += 1 }
    }

    static func name(_ index: Int) -> String { String(format: "Name%03d", index % 100) }

    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        // 100 sections that 200 moves never empty: at least 50 objects each, whatever the tier.
        let count = max(min(env.tier.objects, 100_000), 5_000)
        let model = BenchData.model()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        for index in 0..<count {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string(name(index)), forKey: "lastName")
            try employee.setValue(.integer(Int64(index)), forKey: "employeeID")
            try employee.setValue(.integer(Int64(30_000 + index % 1_000)), forKey: "salary")
        }
        try context.save()
        context.undoManager = ContextUndoManager()   // an editor's context: undo on while editing

        let request = FetchRequest(entityName: "Employee",
                                   sortDescriptors: [FetchSortDescriptor("lastName"), FetchSortDescriptor("employeeID")])
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "lastName")
        let counter = Counter()
        controller.delegate = counter
        let (_, fetchSeconds) = try Clock.measure { try controller.performFetch() }
        guard controller.numberOfSections == 100 else {
            throw RawSQLite.Failure(description: "W9: \(controller.numberOfSections) sections, expected 100")
        }

        var generator = SystemRandomNumberGenerator()
        var moveTimes: [Double] = []
        for edit in 0..<200 {
            let section = Int.random(in: 0..<100, using: &generator)
            let object = controller.object(at: ResultIndexPath(item: Int.random(in: 0..<controller.numberOfObjects(inSection: section), using: &generator),
                                                               section: section))
            let target = name(section + 1 + edit % 98)
            let before = counter.moves
            let (_, seconds) = try Clock.measure {
                try object.setValue(.string(target), forKey: "lastName")
                context.processPendingChanges()
            }
            guard counter.moves == before + 1 else { throw RawSQLite.Failure(description: "W9: the edit was not reported as a move") }
            moveTimes.append(seconds)
        }
        try context.save()

        let inserted = counter.insertions
        let (_, insertSeconds) = try Clock.measure {
            for index in 0..<1_000 {
                let employee = try context.insertObject(forEntityName: "Employee")
                try employee.setValue(.string(name(index * 7)), forKey: "lastName")
                try employee.setValue(.integer(Int64(count + index)), forKey: "employeeID")
            }
            try context.save()
        }
        guard counter.insertions == inserted + 1_000 else { throw RawSQLite.Failure(description: "W9: inserts not reported") }

        let sorted = moveTimes.sorted()
        return ["W9.move_median_ms": sorted[sorted.count / 2] * 1000,
                "W9.move_p99_ms": sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))] * 1000,
                "W9.insert_save_ms": insertSeconds * 1000, "W9.fetch_s": fetchSeconds, "W9.peak_mib": peakMemoryMiB()]
    }
}
