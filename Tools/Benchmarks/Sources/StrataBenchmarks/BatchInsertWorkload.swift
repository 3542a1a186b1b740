import Foundation
import Strata

/// W1b batch insert: W1's employees (five attributes and a to-one to one of 100
/// departments) inserted into a fresh document with one `BatchInsertRequest` filled by a
/// `dictionaryHandler`, against raw SQLite's prepared-statement insert of the same rows into
/// the same tables and indexes in one transaction (W1's raw SQLite peer, run again here).
///
/// Two Strata units, each in its own child process: `w1b-strata` with the default store
/// settings, so the request is folded into the snapshot right after it, as it is for users
/// (`W1b.insert_fold_s`: the request's call, fold included); `w1b-strata-nofold` with
/// automatic compaction off (`W1b.insert_s`: the request alone, its rows left in the log).
/// Both report `W1b.rows_per_s` (rows / their time) and `W1b.peak_mib`. The departments are
/// saved by a context before the clock starts; the rows name them by object ID.
enum BatchInsertWorkload {
    /// The request with its fold (default settings).
    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        var configuration = DocumentStore.Configuration()
        configuration.compactsOnClose = false   // the fold measured is the automatic one
        let seconds = try insert(env, url: env.file("w1b.strata"), configuration: configuration)
        let count = Double(env.tier.objects)
        return ["W1b.insert_fold_s": seconds, "W1b.rows_per_s": count / seconds, "W1b.peak_mib": peakMemoryMiB()]
    }

    /// The request alone (automatic compaction off).
    static func runStrataWithoutFold(_ env: BenchEnvironment) throws -> [String: Double] {
        let seconds = try insert(env, url: env.file("w1b-nofold.strata"), configuration: BulkCreateWorkload.configuration())
        let count = Double(env.tier.objects)
        return ["W1b.insert_s": seconds, "W1b.rows_per_s": count / seconds, "W1b.peak_mib": peakMemoryMiB()]
    }

    /// W1's raw SQLite peer, its figures renamed for this workload.
    static func runSQLite(_ env: BenchEnvironment) throws -> [String: Double] {
        let figures = try RawSQLitePeer.bulkCreate(env)
        guard let seconds = figures["W1.insert_save_s"], let peak = figures["W1.peak_mib"] else { return [:] }
        let count = Double(env.tier.objects)
        return ["W1b.insert_s": seconds, "W1b.insert_fold_s": seconds, "W1b.rows_per_s": count / seconds, "W1b.peak_mib": peak]
    }

    /// Creates the document, saves the departments, and times one batch insert of the
    /// tier's employees (the call returns once its transaction, and any fold, committed).
    private static func insert(_ env: BenchEnvironment, url: URL, configuration: DocumentStore.Configuration) throws -> Double {
        let count = env.tier.objects
        let model = BenchData.model()
        let store = try DocumentStore(creatingAt: url, model: model, overwrite: true, configuration: configuration)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        let request = try BenchData.employeeBatch(count: count, in: context)
        let (result, seconds) = try Clock.measure { try context.executeBatch(request) }
        note("W1b strata: batch insert of \(result.count) rows in \(seconds) s (\(url.lastPathComponent))")
        try store.close()
        return seconds
    }
}
