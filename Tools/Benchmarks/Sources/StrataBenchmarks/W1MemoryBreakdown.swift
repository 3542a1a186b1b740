import Foundation
import Strata
import CSQLiteBench

/// `StrataBenchmarks w1-memory [--quick] [--objects N]`: where W1's memory goes. Runs W1's
/// steps (inserts, save, compaction) in this process and after each prints the bytes
/// malloc holds (mallinfo2: bytes in use, mmapped chunks included), the resident set, and the peak
/// resident set reached during the step alone (the kernel's high-water mark, reset before
/// each step through /proc/self/clear_refs). docs/benchmarks/HISTORY.md ("Memory of a big
/// context" and the sections after it) keeps the breakdowns it printed.
enum W1MemoryBreakdown {
    static func main(quick: Bool) throws {
        let arguments = CommandLine.arguments
        var count = quick ? Tier.quick.objects : Tier.full.objects
        if let index = arguments.firstIndex(of: "--objects"), index + 1 < arguments.count, let value = Int(arguments[index + 1]) {
            count = value
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-w1-memory-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("w1.strata")

        print("W1 memory breakdown, \(count) objects; MiB (per object: bytes)")
        print("step                        | in use | Δ in use | B/object | resident | step peak RSS")
        var meter = Meter(count: count)
        meter.step("start (model, no store)")
        let model = BenchData.model()
        let store = try DocumentStore(creatingAt: url, model: model, overwrite: true, configuration: BulkCreateWorkload.configuration())
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        meter.step("store open")
        var graph = try BenchData.insertW1Graph(count: count, into: context)
        meter.step("inserted (objects held)")
        let instanceBytes = malloc_usable_size(Unmanaged.passUnretained(graph.employees[0]).toOpaque())
        context.processPendingChanges()
        meter.step("flushed (log holds inserts)")
        try context.save()
        meter.step("saved")
        let report = try store.compact()
        meter.step("compacted (\(report.rowsWritten) rows)")
        context.refreshAllObjects()
        meter.step("refreshAllObjects")
        graph = ([], [])
        meter.step("app's references dropped")
        context.reset()
        meter.step("context reset")
        try store.close()
        meter.step("store closed")
        // Not getrusage's ru_maxrss: resetting the high-water mark resets it too.
        print("peak RSS of the whole run: \(String(format: "%.1f", meter.largestPeakMiB)) MiB")
        print("sizes: PropertyValue \(MemoryLayout<PropertyValue>.size)/\(MemoryLayout<PropertyValue>.stride) B, ManagedObjectID \(MemoryLayout<ManagedObjectID>.size)/\(MemoryLayout<ManagedObjectID>.stride) B, ChangeOperation \(MemoryLayout<ChangeOperation>.stride) B")
        print("ManagedObject instance: \(instanceBytes) B (malloc_usable_size)")
    }

    /// Takes the figures after each step.
    struct Meter {
        let count: Int
        private var lastInUse = 0
        /// The largest step peak so far.
        private(set) var largestPeakMiB = 0.0

        init(count: Int) {
            self.count = count
            Self.resetPeak()
        }

        mutating func step(_ name: String) {
            let info = mallinfo2()
            let inUse = Int(info.uordblks) + Int(info.hblkhd)
            let delta = inUse - lastInUse
            lastInUse = inUse
            let mib = { (bytes: Int) in String(format: "%7.1f", Double(bytes) / 1_048_576) }
            let perObject = String(format: "%8.1f", Double(delta) / Double(count))
            let peak = ProcessMemory.statusKiB("VmHWM") * 1024
            largestPeakMiB = max(largestPeakMiB, Double(peak) / 1_048_576)
            print("\(name.padding(toLength: 27, withPad: " ", startingAt: 0)) | \(mib(inUse)) | \(mib(delta)) | \(perObject) | \(mib(ProcessMemory.statusKiB("VmRSS") * 1024)) | \(mib(peak))")
            Self.resetPeak()
        }

        /// Resets the kernel's peak resident set (VmHWM) to the current one.
        static func resetPeak() {
            try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        }
    }
}
