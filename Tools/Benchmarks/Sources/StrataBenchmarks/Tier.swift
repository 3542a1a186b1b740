import Foundation

/// Workload sizes for one tier: `--smoke` (CI: every unit runs, in seconds, on a debug
/// build), `--quick` (small sizes, under a minute once built) or full.
struct Tier: Sendable {
    var name: String
    /// W1/W3/W4/W7: employees in the bulk-created document.
    var objects: Int
    /// W2/W6: objects edited, edits, and edits per undo group.
    var editObjects: Int
    var edits: Int
    var editsPerGroup: Int
    /// W6: undo groups per saved segment while building the history.
    var groupsPerSegment: Int
    /// W3: saves measured.
    var smallSaves: Int
    /// W15: keystrokes of each editing trace applied into a text (0: the whole trace), and
    /// the prefix the whole-string peer applies (it copies the string on every keystroke).
    var textKeystrokes: Int
    var stringKeystrokes: Int
    /// Repetitions of each unit (each in a fresh child process).
    var repetitions: Int
    /// Repetitions of the slow bulk units (W1 and its peers).
    var bulkRepetitions: Int

    static let smoke = Tier(
        name: "smoke", objects: 300, editObjects: 50, edits: 500, editsPerGroup: 10,
        groupsPerSegment: 10, smallSaves: 5, textKeystrokes: 300, stringKeystrokes: 200, repetitions: 1, bulkRepetitions: 1)

    static let quick = Tier(
        name: "quick", objects: 20_000, editObjects: 2_000, edits: 50_000, editsPerGroup: 100,
        groupsPerSegment: 100, smallSaves: 50, textKeystrokes: 20_000, stringKeystrokes: 5_000, repetitions: 1, bulkRepetitions: 1)

    static let full = Tier(
        name: "full", objects: 1_000_000, editObjects: 10_000, edits: 1_000_000, editsPerGroup: 100,
        groupsPerSegment: 1_000, smallSaves: 200, textKeystrokes: 0, stringKeystrokes: 20_000, repetitions: 3, bulkRepetitions: 3)

    var groups: Int { edits / editsPerGroup }

    /// The sizes as `--name value` arguments for a child process.
    var arguments: [String] {
        ["--tier", name, "--objects", "\(objects)", "--edit-objects", "\(editObjects)", "--edits", "\(edits)",
         "--edits-per-group", "\(editsPerGroup)", "--groups-per-segment", "\(groupsPerSegment)",
         "--small-saves", "\(smallSaves)", "--text-keystrokes", "\(textKeystrokes)",
         "--string-keystrokes", "\(stringKeystrokes)", "--repetitions", "\(repetitions)", "--bulk-repetitions", "\(bulkRepetitions)"]
    }

    /// Reads sizes given as arguments over a base tier.
    static func parse(_ arguments: [String], base: Tier) -> Tier {
        var tier = base
        func int(_ flag: String) -> Int? {
            guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
            return Int(arguments[index + 1])
        }
        if let index = arguments.firstIndex(of: "--tier"), index + 1 < arguments.count { tier.name = arguments[index + 1] }
        tier.objects = int("--objects") ?? tier.objects
        tier.editObjects = int("--edit-objects") ?? tier.editObjects
        tier.edits = int("--edits") ?? tier.edits
        tier.editsPerGroup = int("--edits-per-group") ?? tier.editsPerGroup
        tier.groupsPerSegment = int("--groups-per-segment") ?? tier.groupsPerSegment
        tier.smallSaves = int("--small-saves") ?? tier.smallSaves
        tier.textKeystrokes = int("--text-keystrokes") ?? tier.textKeystrokes
        tier.stringKeystrokes = int("--string-keystrokes") ?? tier.stringKeystrokes
        tier.repetitions = int("--repetitions") ?? tier.repetitions
        tier.bulkRepetitions = int("--bulk-repetitions") ?? tier.bulkRepetitions
        return tier
    }
}

/// Where units keep the files they share (the bulk-created documents), under the scratch
/// directory.
struct BenchEnvironment: Sendable {
    var tier: Tier
    var dataDirectory: URL
    /// The Python interpreter with `loro` installed, if any.
    var python: String?
    /// Tools/Benchmarks/peers.
    var peersDirectory: URL

    func file(_ name: String) -> URL {
        dataDirectory.appendingPathComponent("\(tier.name)-\(tier.objects)-\(name)")
    }
}

enum Clock {
    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func seconds(since start: UInt64) -> Double { Double(now - start) / 1e9 }

    /// The processor time of this process so far, every thread's (`CLOCK_PROCESS_CPUTIME_ID`),
    /// in nanoseconds: on a shared host a short read's wall time is mostly waiting for a core.
    static var processorNow: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
    static func processorSeconds(since start: UInt64) -> Double { Double(processorNow - start) / 1e9 }

    /// Runs `body` and returns its result and the seconds it took.
    static func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = now
        let result = try body()
        return (result, seconds(since: start))
    }
}


func fileSize(_ url: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
}

/// Progress for people, on standard error (standard output carries the child's JSON).
func note(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
