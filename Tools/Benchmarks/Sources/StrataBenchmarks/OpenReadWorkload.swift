import Foundation
import Strata

/// W4 open and read: opens the W1 document, fetches the 20 employees with one last name
/// (indexed equality), then 100 with `lastName BEGINSWITH[c] 'q' AND salary > 50000`
/// sorted by lastName, reading every attribute of each result.
/// Figures: `W4.open_s`, `W4.first_result_s` (open + first fetch), `W4.equality_s`,
/// `W4.prefix_s`, `W4.peak_mib`.
enum OpenReadWorkload {
    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = try BulkCreateWorkload.ensureStrataDocument(env)
        let probe = BenchData.probeLastName(count: env.tier.objects)
        let model = BenchData.model()
        let equality = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "lastName == %@", .value(.string(probe))))
        let prefix = FetchRequest(
            entityName: "Employee", predicate: try FetchPredicate(format: "lastName BEGINSWITH[c] 'q' AND salary > 50000"),
            sortDescriptors: [FetchSortDescriptor("lastName")])
        prefix.fetchLimit = 100
        let keys = ["firstName", "lastName", "salary", "employeeID", "startDate", "department"]

        let start = Clock.now
        var configuration = DocumentStore.Configuration()
        configuration.synchronous = .full
        let store = try DocumentStore(openingAt: url, model: model, configuration: configuration)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        let openSeconds = Clock.seconds(since: start)
        let first = try context.fetch(equality)
        var checksum = 0
        for object in first { for key in keys { checksum &+= try object.value(forKey: key).hashValue } }
        let firstSeconds = Clock.seconds(since: start)
        let prefixStart = Clock.now
        let second = try context.fetch(prefix)
        for object in second { for key in keys { checksum &+= try object.value(forKey: key).hashValue } }
        let prefixSeconds = Clock.seconds(since: prefixStart)
        blackHole(checksum)
        note("W4 strata: \(first.count) and \(second.count) objects")
        let peak = peakMemoryMiB()
        try store.close()
        return ["W4.open_s": openSeconds, "W4.first_result_s": firstSeconds, "W4.equality_s": firstSeconds - openSeconds,
                "W4.prefix_s": prefixSeconds, "W4.rows": Double(first.count + second.count), "W4.peak_mib": peak]
    }
}
