import Foundation
import Testing
@testable import Strata

/// Kills `strata-crash-writer` with SIGKILL at seeded random moments while it saves (or
/// compacts) and checks after each kill that the document reopens and holds exactly the
/// saves 1...k, k at least the last save the child reported: nothing lost, nothing partial.
@Suite struct DocumentCrash {
    static let batch = 3
    static let killsPerMode = 100
    static let killsPerDocument = 10

    struct Round {
        var printed = 0          // the last "saved K" the child wrote
        var exitedBySignal = true
        var errorOutput = ""
    }

    /// Starts the child, kills it `delay` seconds after its first save (after its start
    /// when `fromStart`), and returns what it reported.
    static func runAndKill(_ writer: String, mode: String, url: URL, synchronous: String, delay: Double, fromStart: Bool) throws -> Round {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: writer)
        process.arguments = [mode, url.path, "--batch", String(batch), "--synchronous", synchronous]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        var outData = Data()
        if !fromStart {
            // Blocks until the first "saved" line (or the child's end).
            outData = output.fileHandleForReading.availableData
        }
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        outData += output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var round = Round()
        round.exitedBySignal = process.terminationReason == .uncaughtSignal
        round.errorOutput = String(decoding: errData, as: UTF8.self)
        for line in String(decoding: outData, as: UTF8.self).split(separator: "\n") where line.hasPrefix("saved ") {
            round.printed = max(round.printed, Int(line.dropFirst("saved ".count)) ?? 0)
        }
        return round
    }

    /// Reopens the document and returns k, the number of saves it holds, after checking
    /// that they are exactly saves 1...k, each complete.
    static func verifyPrefix(_ url: URL, printed: Int, previous: Int, label: String) throws -> Int {
        guard FileManager.default.fileExists(atPath: url.path) else {
            #expect(printed == 0 && previous == 0, "\(label): the document vanished")
            return 0
        }
        let store: DocumentStore
        do {
            store = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: manualCompaction())
        } catch {
            Issue.record("\(label): reopening failed: \(error)")
            throw error
        }
        defer { try? store.close() }
        let integrity = try integrityCheck(url)
        #expect(integrity == "ok", "\(label): \(integrity)")
        let counts = try employeeSaveNumbers(store)
        let k = Int(counts.keys.max() ?? 0)
        #expect(Set(counts.keys) == Set((0..<Int64(k)).map { $0 + 1 }), "\(label): saves present \(counts.keys.sorted())")
        let partial = counts.filter { $0.value != batch }
        #expect(partial.isEmpty, "\(label): partial saves \(partial)")
        // Every reported save is there; at most one more (committed, killed before it printed).
        #expect(k >= max(printed, previous), "\(label): the child reported save \(printed) (before: \(previous)) but the document holds \(k)")
        #expect(k <= max(printed, previous) + 1, "\(label): the document holds \(k) saves, the child reported \(printed) (before: \(previous))")
        // The department updated by every save agrees with the employees.
        let department = try store.model.entity(named: "Department")
        var budgets: [PropertyValue] = []
        for id in try store.objectIDs(for: department, includingSubentities: false) {
            budgets.append(try store.values(for: id)?[department.slot(forKey: "budget") ?? -1] ?? .null)
        }
        #expect(budgets == (k == 0 ? [] : [.decimal(Decimal(k))]), "\(label): progress \(budgets) for \(k) saves")
        return k
    }

    @Test(arguments: ["save", "compact"])
    func aWriterKilledAtRandomMomentsLeavesExactlyAPrefixOfItsSaves(mode: String) throws {
        let writer = builtExecutable("strata-crash-writer").path
        let seed = testSeed("DocumentCrash \(mode)")
        var random = SeededGenerator(seed: seed)
        let directory = try TemporaryDirectory()
        var url = directory.file()
        var held = 0
        var totalSaves = 0
        var killedMidRun = 0
        let start = Date()
        for round in 0..<Self.killsPerMode {
            if round % Self.killsPerDocument == 0 {
                url = directory.file("crash-\(round).strata")
                held = 0
            }
            // Mostly kills within the save loop; one in five from the start (during launch,
            // create or open).
            let fromStart = Int.random(in: 0..<5, using: &random) == 0
            let delay = fromStart ? Double.random(in: 0.0...0.12, using: &random) : Double.random(in: 0.0...0.04, using: &random)
            // Every other document saves with synchronous=FULL (the default), the others with
            // NORMAL (durable against process kills, faster, so more kills fit in the time).
            let synchronous = (round / Self.killsPerDocument) % 2 == 0 ? "NORMAL" : "FULL"
            let result = try Self.runAndKill(writer, mode: mode, url: url, synchronous: synchronous, delay: delay, fromStart: fromStart)
            let label = "seed \(seed) \(mode) \(synchronous) round \(round) (kill \(String(format: "%.3f", delay)) s after \(fromStart ? "start" : "the first save"))"
            #expect(result.exitedBySignal, "\(label): the child exited on its own: \(result.errorOutput)")
            if !result.exitedBySignal { return }
            let k = try Self.verifyPrefix(url, printed: result.printed, previous: held, label: label)
            if k > held { killedMidRun += 1 }
            totalSaves += k - held
            held = k
        }
        let seconds = Date().timeIntervalSince(start)
        print("DocumentCrash \(mode): \(Self.killsPerMode) kills, \(totalSaves) saves survived, \(killedMidRun) kills after saves, \(String(format: "%.1f", seconds)) s")
        #expect(killedMidRun > Self.killsPerMode / 2, "seed \(seed): too few kills landed while saving")
        #expect(totalSaves > Self.killsPerMode, "seed \(seed): the child saved too little to test anything")
    }
}
