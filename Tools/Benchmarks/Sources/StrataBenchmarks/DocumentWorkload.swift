import Foundation
import Strata

/// `StrataBenchmarks document [--quick]`: the document store on a large file.
///
/// Builds a document of `objects` employees (saved in batches, then compacted), and
/// measures: the save of a one-object change (median of `saves`), opening the document
/// and reading one object, compaction throughput (segment operations per second), and
/// the compressed segment bytes per operation.
struct DocumentWorkload {
    var objects: Int
    var batch: Int
    var saves: Int

    struct Result {
        var buildSeconds: Double
        var compactSeconds: Double
        var compactedOperations: Int
        var segmentBytes: Int
        var segmentRawBytes: Int
        var segmentOperations: Int
        var saveMedian: Double
        var saveP90: Double
        var openAndReadSeconds: Double
        var fileBytes: Int
    }

    func run() throws -> Result {
        let model = ManagedObjectModel.employeesExample()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("large.strata")
        var manual = DocumentStore.Configuration()
        manual.turnOffAutomaticCompaction()
        manual.compactsOnClose = false

        // Build: `objects` inserts in segments of `batch`, one context per batch.
        let store = try DocumentStore(creatingAt: url, model: model, configuration: manual)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let buildStart = Clock.now
        var inserted = 0
        while inserted < objects {
            let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
            for index in inserted..<min(objects, inserted + batch) {
                let employee = try context.insertObject(forEntityName: "Employee")
                try employee.setValue(.string("First\(index)"), forKey: "firstName")
                try employee.setValue(.string("Last\(index % 1000)"), forKey: "lastName")
                try employee.setValue(.integer(Int64(index)), forKey: "salary")
                try employee.setValue(.integer(Int64(index)), forKey: "employeeID")
            }
            try context.save()
            inserted = min(objects, inserted + batch)
        }
        let buildSeconds = Clock.seconds(since: buildStart)
        let before = try store.info()
        let operations = try store.segmentRecords().reduce(0) { $0 + $1.operationCount }
        let compactStart = Clock.now
        try store.compact()
        let compactSeconds = Clock.seconds(since: compactStart)

        // One-object saves on the compacted million-object document.
        let employeeEntity = try model.entity(named: "Employee")
        guard let target = try store.objectIDs(for: employeeEntity, includingSubentities: false).dropFirst(objects / 2).first else {
            throw StrataError(.objectNotFound, "the document is empty")
        }
        let context = ManagedObjectContext(coordinator: coordinator)
        let employee = try context.existingObject(with: target)
        var times: [Double] = []
        for save in 0..<saves {
            try employee.setValue(.integer(Int64(save)), forKey: "salary")
            let start = Clock.now
            try context.save()
            times.append(Clock.seconds(since: start))
        }
        times.sort()
        try store.close()

        // Open and read one object.
        let uri = target.uriRepresentation()
        let openStart = Clock.now
        let reopened = try DocumentStore(openingAt: url, model: model, configuration: manual)
        let readCoordinator = PersistentStoreCoordinator(model: model)
        try readCoordinator.addStore(reopened)
        let readContext = ManagedObjectContext(coordinator: readCoordinator)
        let read = try readContext.existingObject(with: try readCoordinator.managedObjectID(forURIRepresentation: uri))
        guard case .string = try read.value(forKey: "firstName") else { throw StrataError(.objectNotFound, "no name") }
        let openSeconds = Clock.seconds(since: openStart)
        try reopened.close()
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0

        return Result(
            buildSeconds: buildSeconds, compactSeconds: compactSeconds, compactedOperations: operations,
            segmentBytes: before.segmentBytes, segmentRawBytes: before.segmentRawBytes, segmentOperations: operations,
            saveMedian: times[times.count / 2], saveP90: times[times.count * 9 / 10],
            openAndReadSeconds: openSeconds, fileBytes: size)
    }

    static func main(quick: Bool) throws {
        let workload = DocumentWorkload(objects: quick ? 100_000 : 1_000_000, batch: 50_000, saves: 100)
        let result = try workload.run()
        print("document: \(workload.objects) employees in segments of \(workload.batch)")
        print(String(format: "build (insert+save)   %.2f s (%.0f objects/s)", result.buildSeconds, Double(workload.objects) / result.buildSeconds))
        print(String(format: "compaction            %.2f s, %d operations (%.0f operations/s)",
                     result.compactSeconds, result.compactedOperations, Double(result.compactedOperations) / result.compactSeconds))
        print(String(format: "segment bytes/op      %.1f compressed, %.1f raw (%d / %d bytes)",
                     Double(result.segmentBytes) / Double(result.segmentOperations),
                     Double(result.segmentRawBytes) / Double(result.segmentOperations), result.segmentBytes, result.segmentRawBytes))
        print(String(format: "1-object save         median %.3f ms, p90 %.3f ms (%d saves)", result.saveMedian * 1000, result.saveP90 * 1000, workload.saves))
        print(String(format: "open + read 1 object  %.3f ms", result.openAndReadSeconds * 1000))
        print("file size             \(result.fileBytes) bytes")
    }
}
