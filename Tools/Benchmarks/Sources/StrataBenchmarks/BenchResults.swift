import Foundation

/// min/median/max of one figure over the repetitions of a run.
struct FigureStats: Codable, Sendable {
    var min: Double
    var median: Double
    var max: Double
    var values: [Double]

    init(_ values: [Double]) {
        let sorted = values.sorted()
        self.values = values
        min = sorted.first ?? 0
        max = sorted.last ?? 0
        median = sorted.isEmpty ? 0
            : sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// The machine a run measured on.
struct MachineInfo: Codable, Sendable {
    var cpu: String
    var cores: Int
    var memoryBytes: UInt64
    var os: String
    var kernel: String
    var swift: String
    var loadAverageAtStart: String
    var loadAverageAtEnd: String?

    static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let cpu = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown"
        let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let os = release.split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
            .map { String($0.dropFirst("PRETTY_NAME=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) } ?? "Linux"
        let kernel = ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let swift = shell(["swift", "--version"]).split(separator: "\n").first.map(String.init) ?? "unknown"
        return MachineInfo(
            cpu: cpu, cores: ProcessInfo.processInfo.activeProcessorCount, memoryBytes: ProcessInfo.processInfo.physicalMemory,
            os: os, kernel: kernel, swift: swift, loadAverageAtStart: loadAverage(), loadAverageAtEnd: nil)
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "")
            .split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// Everything a run writes to its JSON file; `--compare` reads one back.
struct BenchResults: Codable, Sendable {
    var tier: String
    var date: String
    var durationSeconds: Double
    var command: String
    var machine: MachineInfo
    var commit: String
    var commitIsDirty: Bool
    var sizes: [String: Int]
    /// Units that ran at another size than the tier's, and units that failed.
    var notes: [String]
    var figures: [String: FigureStats]
    var targets: [Target.Result]

    var medians: [String: Double] { figures.mapValues(\.median) }

    func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(self).write(to: url)
    }

    static func read(from url: URL) throws -> BenchResults {
        try JSONDecoder().decode(BenchResults.self, from: Data(contentsOf: url))
    }
}

/// Runs a command and returns its standard output ("" when it cannot run).
func shell(_ arguments: [String], directory: URL? = nil) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return "" }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
