import Foundation
import Strata

/// W10 open after a big save: one context save of up to 200,000 employees (W1's rows) with
/// Strata's default compaction thresholds, then the document reopened and the 20 employees
/// with one last name fetched (indexed equality), every attribute read — what a user's next
/// command costs after an import. Run twice: with the default thresholds (the save is folded
/// into the snapshot right after it) and with automatic compaction off (the segment stays in
/// the log and the open decodes it), which is how such a document behaved before.
/// Figures: `W10.save_s` (the save, folding included), `W10.open_fetch_ms`,
/// `W10.unfolded_save_s`, `W10.unfolded_open_fetch_ms`, `W10.objects`.
enum BigSaveOpenWorkload {
    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        let count = min(env.tier.objects, 200_000)
        var defaults = DocumentStore.Configuration()
        defaults.compactsOnClose = false   // only the automatic thresholds fold
        var manual = BulkCreateWorkload.configuration()
        manual.compactsOnClose = false
        let folded = try saveThenOpen(env.file("w10-folded.strata"), count: count, configuration: defaults)
        let unfolded = try saveThenOpen(env.file("w10-unfolded.strata"), count: count, configuration: manual)
        note("W10 strata: \(count) objects; open + fetch \(folded.openFetch * 1000) ms folded, \(unfolded.openFetch * 1000) ms unfolded")
        return ["W10.save_s": folded.save, "W10.open_fetch_ms": folded.openFetch * 1000,
                "W10.unfolded_save_s": unfolded.save, "W10.unfolded_open_fetch_ms": unfolded.openFetch * 1000,
                "W10.objects": Double(count)]
    }

    /// Creates the document, saves `count` employees in one save, closes it, and times a
    /// reopen with the first indexed fetch.
    private static func saveThenOpen(_ url: URL, count: Int, configuration: DocumentStore.Configuration) throws -> (save: Double, openFetch: Double) {
        let model = BenchData.model()
        var saveSeconds = 0.0
        do {
            let store = try DocumentStore(creatingAt: url, model: model, overwrite: true, configuration: configuration)
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addStore(store)
            let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
            _ = try BenchData.insertW1Graph(count: count, into: context)
            (_, saveSeconds) = try Clock.measure { try context.save() }
            try store.close()
        }
        let equality = FetchRequest(entityName: "Employee",
                                    predicate: try FetchPredicate(format: "lastName == %@", .value(.string(BenchData.probeLastName(count: count)))))
        let keys = ["firstName", "lastName", "salary", "employeeID", "startDate", "department"]
        var reading = DocumentStore.Configuration()
        reading.synchronous = .full
        let start = Clock.now
        let store = try DocumentStore(openingAt: url, model: model, configuration: reading)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        var checksum = 0
        for object in try context.fetch(equality) { for key in keys { checksum &+= try object.value(forKey: key).hashValue } }
        let openFetchSeconds = Clock.seconds(since: start)
        blackHole(checksum)
        try store.close()
        return (saveSeconds, openFetchSeconds)
    }
}
