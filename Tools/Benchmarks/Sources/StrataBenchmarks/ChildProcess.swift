import Foundation

/// Starts one repetition of a unit in a fresh process and reads its figures.
enum ChildProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// A peer that is not installed: reported, not a failure of the run.
        var isSkip = false
    }

    static var executable: URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0])
    }

    static func run(_ unit: BenchUnit, tier: Tier, environment: BenchEnvironment) throws -> [String: Double] {
        let process = Process()
        switch unit.body {
        case .swift:
            process.executableURL = executable
            process.arguments = ["--child", unit.id, "--data", environment.dataDirectory.path] + tier.arguments
        case .python(let script, let arguments):
            guard let python = environment.python, FileManager.default.isExecutableFile(atPath: python) else {
                throw Failure(description: "skipped: no Python with loro (pass --python or set STRATA_BENCH_PYTHON)", isSkip: true)
            }
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [environment.peersDirectory.appendingPathComponent(script).path] + arguments
                + ["--data", environment.dataDirectory.path] + tier.arguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "exit status \(process.terminationStatus)")
        }
        guard let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last,
              let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let figures = object["figures"] as? [String: Any]
        else { throw Failure(description: "no JSON figures on standard output") }
        return figures.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }
}
