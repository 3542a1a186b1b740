import Foundation
import Strata

/// W1 bulk create (and the figures W5 and W7 derive from it): inserts `objects` employees
/// with five attributes and a to-one, saves, compacts.
///
/// Figures: `W1.insert_s` (creating the objects and setting their values), `W1.save_s`
/// (one segment), `W1.compact_s` (segment folded into the snapshot tables),
/// `W1.insert_save_compact_s` (the three: what a bulk save costs with its folding),
/// `W5.compact_ops_per_s`, `W7.snapshot_bytes_per_object` (the file after dropping the log
/// and VACUUM), `W7.segment_bytes_per_object` (the stored LZ4 segment of the inserts).
/// Leaves the compacted document at `env.file("w1.strata")` for W3 and W4.
enum BulkCreateWorkload {
    static func strataDocumentURL(_ env: BenchEnvironment) -> URL { env.file("w1.strata") }

    /// The document store settings every Strata unit uses: WAL + synchronous FULL, no
    /// automatic compaction (the workloads compact when they measure it).
    static func configuration() -> DocumentStore.Configuration {
        var configuration = DocumentStore.Configuration()
        configuration.synchronous = .full
        configuration.turnOffAutomaticCompaction()
        configuration.compactsOnClose = false
        return configuration
    }

    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        let count = env.tier.objects
        let url = strataDocumentURL(env)
        let model = BenchData.model()
        let store = try DocumentStore(creatingAt: url, model: model, overwrite: true, configuration: configuration())
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        // Bulk import without undo registration, as a Core Data import would.
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        // The objects stay referenced through the save, as an app's would.
        let (graph, insertSeconds) = try Clock.measure { try BenchData.insertW1Graph(count: count, into: context) }
        note("W1 strata: inserted \(count) in \(insertSeconds) s")
        let (_, saveSeconds) = try Clock.measure { try context.save() }
        note("W1 strata: saved in \(saveSeconds) s")
        let segmentBytes = try store.segmentRecords().reduce(0) { $0 + $1.body.count }
        let (report, compactSeconds) = try Clock.measure { try store.compact() }
        note("W1 strata: compacted \(report.rowsWritten) rows in \(compactSeconds) s")
        let peak = peakMemoryMiB()
        withExtendedLifetime(graph) {}   // held until the peak is read, then let go

        // W7: the snapshot alone (log dropped), vacuumed, in a copy.
        try store.compact(retention: .none)
        try store.close()
        let sizes = try RawSQLite.sizeFigures(of: url, copy: env.file("w7-strata-size.sqlite"), count: count)

        return [
            "W1.insert_s": insertSeconds,
            "W1.save_s": saveSeconds,
            "W1.compact_s": compactSeconds,
            "W1.insert_save_s": insertSeconds + saveSeconds,
            "W1.insert_save_compact_s": insertSeconds + saveSeconds + compactSeconds,
            "W1.peak_mib": peak,
            "W5.compact_ops_per_s": Double(report.rowsWritten) / compactSeconds,
            "W7.segment_bytes_per_object": Double(segmentBytes) / Double(count),
        ].merging(sizes) { $1 }
    }

    /// The compacted W1 document, built now when an earlier unit has not left one.
    static func ensureStrataDocument(_ env: BenchEnvironment) throws -> URL {
        let url = strataDocumentURL(env)
        if !FileManager.default.fileExists(atPath: url.path) {
            note("building the \(env.tier.objects)-object Strata document")
            _ = try runStrata(env)
        }
        return url
    }
}
