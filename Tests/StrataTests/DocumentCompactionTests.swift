import Foundation
import Testing
@testable import Strata

/// Random edits, undo and redo over the example model in a document-backed context.
struct DocumentEditor {
    let context: ManagedObjectContext
    var random: SeededGenerator
    var log: [String] = []

    init(context: ManagedObjectContext, seed: UInt64) {
        self.context = context
        random = SeededGenerator(seed: seed)
        context.retainsRegisteredObjects = true
    }

    func live(_ entity: String) -> [ManagedObject] {
        context.registeredObjects
            .filter { $0.entity.name == entity && !$0.isDeleted && !$0.isInvalid }
            .sorted { $0.objectID < $1.objectID }   // by ID: temporary numbers are process-wide
    }

    mutating func pick(_ entity: String) -> ManagedObject? {
        let candidates = live(entity)
        return candidates.isEmpty ? nil : candidates[Int.random(in: 0..<candidates.count, using: &random)]
    }

    mutating func number(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &random) }

    /// One random edit (flushed as one undo group), or an undo or redo.
    mutating func step() throws {
        let undo = context.undoManager!
        switch Int.random(in: 0..<16, using: &random) {
        case 0, 1:
            let employee = try context.insertObject(forEntityName: "Employee")
            let n = number(0...999)
            try employee.setValue(.string("F\(n)"), forKey: "firstName")
            try employee.setValue(.string("L\(n % 13)"), forKey: "lastName")
            try employee.setValue(.integer(n * 100), forKey: "salary")
            log.append("insert employee")
        case 2:
            try insertNamed("Department", "D\(number(0...99))", in: context)
            log.append("insert department")
        case 3:
            try insertNamed("Project", "P\(number(0...99))", in: context)
            log.append("insert project")
        case 4, 5:
            guard let employee = pick("Employee") else { return }
            let n = number(-1000...1000)
            let (key, value): (String, PropertyValue) = switch Int.random(in: 0..<8, using: &random) {
            case 0: ("salary", n < -900 ? .null : .integer(abs(n)))
            case 1: ("rating", .double(Double(n) / 7))
            case 2: ("bonus", .decimal(Decimal(n) / 1000))
            case 3: ("startDate", .date(Date(timeIntervalSinceReferenceDate: Double(n) * 86_400.125)))
            case 4: ("active", .boolean(n % 2 == 0))
            case 5: ("badge", .uuid(UUID()))
            case 6: ("photo", .data(Data((0..<Int(abs(n) % 40)).map { UInt8(truncatingIfNeeded: $0 &* 31) })))
            default: ("email", n < 0 ? .null : .string("e\(n)@example.com"))
            }
            try employee.setValue(value, forKey: key)
            log.append("set \(key)")
        case 6:
            guard let employee = pick("Employee") else { return }
            try employee.setObject(Bool.random(using: &random) ? pick("Department") : nil, forKey: "department")
            log.append("set department")
        case 7:
            guard let employee = pick("Employee") else { return }
            try employee.setObject(Bool.random(using: &random) ? pick("Employee") : nil, forKey: "manager")
            log.append("set manager")
        case 8:
            guard let employee = pick("Employee"), let project = pick("Project") else { return }
            let projects = try employee.mutableSetValue(forKey: "projects")
            if try projects.contains(project) { try projects.remove(project) } else { try projects.add(project) }
            log.append("toggle project")
        case 9:
            let entity = ["Employee", "Employee", "Department", "Project"][Int.random(in: 0..<4, using: &random)]
            guard let object = pick(entity) else { return }
            context.delete(object)
            log.append("delete \(entity)")
        case 10:
            guard let department = pick("Department") else { return }
            let members = live("Employee").filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
            try department.mutableSetValue(forKey: "employees").set(members)
            log.append("set employees")
        case 11, 12:
            guard undo.canUndo else { return }
            try undo.undo()
            log.append("undo")
            return
        case 13:
            guard undo.canRedo else { return }
            try undo.redo()
            log.append("redo")
            return
        default:
            guard let project = pick("Project") else { return }
            try project.setValue(.date(Date(timeIntervalSinceReferenceDate: Double(number(0...1_000_000)) + 0.25)), forKey: "deadline")
            log.append("set deadline")
        }
        context.processPendingChanges()
    }

    /// Saves; a save refused by validation is rolled back.
    mutating func save() throws {
        do {
            try context.save()
            log.append("save")
        } catch let error as StrataError where error.code == .validation {
            context.rollback()
            log.append("rollback: \(error.message)")
        }
    }

    /// The live graph in comparable form (what the store must hold after a save).
    func graph() throws -> [RecordKey: [String: ComparableValue]] {
        var result: [RecordKey: [String: ComparableValue]] = [:]
        for object in context.registeredObjects where !object.isDeleted && !object.isInvalid {
            try context.fireFault(object)
            result[RecordKey(entity: object.entity.name, key: object.objectID.primaryKey)] = comparable(object.storage, of: object.entity)
        }
        return result
    }
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
            var editor = DocumentEditor(context: stack.context, seed: seed)
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
            let graph = try editor.graph()
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
            var editor = DocumentEditor(context: stack.context, seed: seed)
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
