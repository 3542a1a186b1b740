import Foundation
import Strata

/// W3 small save: in the W1 document (a copy), change one employee and save, `smallSaves`
/// times. Figures: `W3.median_ms`, `W3.p99_ms`, `W3.max_ms`.
///
/// The document uses Strata's defaults for compaction (64 segments or 8 MiB), so the
/// measured saves include the compactions a real application would see.
enum SmallSaveWorkload {
    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        let source = try BulkCreateWorkload.ensureStrataDocument(env)
        let url = env.file("w3.strata")
        try copyDatabase(source, to: url)
        let model = BenchData.model()
        var configuration = DocumentStore.Configuration()
        configuration.synchronous = .full
        let store = try DocumentStore(openingAt: url, model: model, configuration: configuration)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(
            entityName: "Employee",
            predicate: try FetchPredicate(format: "employeeID == %@", .value(.integer(Int64(env.tier.objects / 2)))))
        guard let employee = try context.fetch(request).first else {
            throw RawSQLite.Failure(description: "W3: employee \(env.tier.objects / 2) not found")
        }
        var times: [Double] = []
        for save in 0..<env.tier.smallSaves {
            try employee.setValue(.integer(Int64(30_000 + save)), forKey: "salary")
            let (_, seconds) = try Clock.measure { try context.save() }
            times.append(seconds)
        }
        try store.close()
        var figures = figures(times)
        figures["W3.peak_mib"] = peakMemoryMiB()
        return figures
    }

    static func figures(_ times: [Double]) -> [String: Double] {
        let sorted = times.sorted()
        guard !sorted.isEmpty else { return [:] }
        func percentile(_ p: Double) -> Double {
            sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
        }
        return ["W3.median_ms": percentile(0.5) * 1000, "W3.p99_ms": percentile(0.99) * 1000,
                "W3.max_ms": sorted[sorted.count - 1] * 1000]
    }

    /// Copies a database file (no WAL is left beside a closed one).
    static func copyDatabase(_ source: URL, to destination: URL) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: destination.path + suffix) }
        try FileManager.default.copyItem(at: source, to: destination)
    }
}
