import Foundation
import Testing
@testable import Strata

/// The live graph of a context in comparable form (what the store must hold after a save).
func liveGraph(_ context: ManagedObjectContext) throws -> [RecordKey: [String: ComparableValue]] {
    var result: [RecordKey: [String: ComparableValue]] = [:]
    for object in context.registeredObjects where !object.isDeleted && !object.isInvalid {
        try context.fireFault(object)
        result[RecordKey(entity: object.entity.name, key: object.objectID.primaryKey)] = comparable(object.storage.array, of: object.entity)
    }
    return result
}

@Suite struct DocumentCompaction {
    @Test func aRandomHistoryReadsTheSameBeforeAndAfterCompactionAndReopen() throws {
        let seed = testSeed("DocumentCompaction")
        let directory = try TemporaryDirectory()
        let url = directory.file()
        var reference: [RecordKey: [String: ComparableValue]] = [:]
        var saves = 0
        do {
            let stack = try DocumentStack.create(url, configuration: manualCompaction())
            var editor = RandomEditor(context: stack.context, seed: seed, undoesAndRedoes: true)
            var random = SeededGenerator(seed: seed ^ 0xFEED)
            for index in 0..<260 {
                try editor.step()
                if Int.random(in: 0..<10, using: &random) == 0 {
                    try editor.save()
                    saves += 1
                }
                if index == 130 {
                    // Compact mid-history: later segments then patch snapshot rows.
                    try editor.save()
                    try stack.store.compact()
                }
            }
            try editor.save()
            for kind in ["undo", "redo", "delete", "insert", "set", "toggle project"] {
                #expect(editor.log.contains { $0.hasPrefix(kind) }, "seed \(seed): the history has no \(kind)")
            }
            let graph = try liveGraph(editor.context)
            reference = try readEverything(stack.store)
            #expect(reference.count > 20, "seed \(seed): too little was saved")
            #expect(firstDifference(graph, reference) == nil,
                    "seed \(seed): the store differs from the live graph: \(firstDifference(graph, reference) ?? "")\n\(editor.log.suffix(20))")
            try stack.store.compact()
            let compacted = try readEverything(stack.store)
            #expect(firstDifference(reference, compacted) == nil, "seed \(seed) after compaction: \(firstDifference(reference, compacted) ?? "")")
            try stack.store.close()
        }
        #expect(saves > 5, "seed \(seed)")
        do {
            let stack = try DocumentStack.open(url, configuration: manualCompaction())
            let reopened = try readEverything(stack.store)
            #expect(firstDifference(reference, reopened) == nil, "seed \(seed) after reopen: \(firstDifference(reference, reopened) ?? "")")
            try stack.store.close()
        }
        let stack = try DocumentStack.open(url, configuration: manualCompaction(retention: .none))
        let report = try stack.store.compact()
        #expect(report.segmentsDropped > 0)
        #expect(try stack.store.info().segmentCount == 0)
        let pruned = try readEverything(stack.store)
        #expect(firstDifference(reference, pruned) == nil, "seed \(seed) after retention none: \(firstDifference(reference, pruned) ?? "")")
        try stack.store.close()
    }

    @Test func anUncompactedHistoryReadsTheSameAfterReopenAsBeforeCompaction() throws {
        let seed = testSeed("DocumentCompaction (overlay)")
        let directory = try TemporaryDirectory()
        let url = directory.file()
        var reference: [RecordKey: [String: ComparableValue]] = [:]
        do {
            let stack = try DocumentStack.create(url, configuration: manualCompaction())
            var editor = RandomEditor(context: stack.context, seed: seed, undoesAndRedoes: true)
            for index in 0..<150 {
                try editor.step()
                if index % 15 == 14 { try editor.save() }
            }
            try editor.save()
            reference = try readEverything(stack.store)
            try stack.store.close()
        }
        let stack = try DocumentStack.open(url, configuration: manualCompaction())
        #expect(try stack.store.logPosition.compactedThrough == 0)
        let decoded = try readEverything(stack.store)
        #expect(firstDifference(reference, decoded) == nil, "seed \(seed): \(firstDifference(reference, decoded) ?? "")")
        try stack.store.compact()
        let compacted = try readEverything(stack.store)
        #expect(firstDifference(reference, compacted) == nil, "seed \(seed): \(firstDifference(reference, compacted) ?? "")")
        try stack.store.close()
    }

    @Test func theSegmentThresholdCompactsAutomaticallyAfterASave() throws {
        let directory = try TemporaryDirectory()
        var configuration = manualCompaction()
        configuration.compactionSegmentThreshold = 4
        let stack = try DocumentStack.create(directory.file(), configuration: configuration)
        let department = try insertNamed("Department", "D", in: stack.context)
        var positions: [UInt64] = []
        for budget in 1...10 {
            try department.setValue(.decimal(Decimal(budget)), forKey: "budget")
            try stack.context.save()
            positions.append(try stack.store.logPosition.compactedThrough)
        }
        #expect(positions == [0, 0, 0, 4, 4, 4, 4, 8, 8, 8])
        let info = try stack.store.info()
        #expect(info.segmentCount == 10, "retention .all keeps every segment")
        #expect(info.lastSegment == 10)
        #expect(try sqlRows(stack.store.url, "SELECT budget FROM Department").first?.first == .text("8"))
        #expect(try stack.store.values(for: department.objectID)?[department.slot("budget")] == .decimal(10))
    }

    @Test func theByteThresholdCompactsAutomaticallyAndRetentionKeepsTheLastSegments() throws {
        let directory = try TemporaryDirectory()
        var configuration = manualCompaction(retention: .last(2))
        configuration.compactionByteThreshold = 1
        let stack = try DocumentStack.create(directory.file(), configuration: configuration)
        let project = try insertNamed("Project", "P", in: stack.context)
        for index in 1...5 {
            try project.setValue(.string("P\(index)"), forKey: "name")
            try stack.context.save()
            #expect(try stack.store.logPosition.compactedThrough == UInt64(index))
        }
        #expect(try stack.store.segmentRecords().map(\.sequence) == [4, 5])
        #expect(try stack.store.groupRecords().map(\.sequence) == [4, 5])
        #expect(try sqlRows(stack.store.url, "SELECT name FROM Project").first?.first == .text("P5"))
    }

    @Test func compactionReportsWhatItDidAndCallsProgress() throws {
        let directory = try TemporaryDirectory()
        let stack = try DocumentStack.create(directory.file(), configuration: manualCompaction())
        var projects: [ManagedObject] = []
        for index in 0..<6 { projects.append(try insertNamed("Project", "P\(index)", in: stack.context)) }
        try stack.context.save()
        try stack.store.compact()
        stack.context.delete(projects[0])
        try projects[1].setValue("renamed", forKey: "name")
        try stack.context.save()
        let calls = LockedBox<[(Int, Int)]>([])
        let report = try stack.store.compact { done, total in calls.mutate { $0.append((done, total)) } }
        #expect(report.segments == 1)
        #expect(report.rowsWritten == 1)
        #expect(report.rowsDeleted == 1)
        #expect(report.compactedThrough == 2)
        #expect(calls.value.last.map { $0.0 == $0.1 } == true)
        #expect(try sqlRows(stack.store.url, "SELECT COUNT(*) FROM Project").first?.first == .integer(5))
        #expect(try stack.store.compact().segments == 0, "nothing left to compact")
    }
}
