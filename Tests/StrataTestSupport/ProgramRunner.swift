import Foundation

/// What one run of a built tool printed and returned.
package struct CommandResult {
    package var status: Int32
    package var stdout: String
    package var stderr: String

    /// A result as a test that runs its own process (under a deadline) collected it.
    package init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    /// Standard output parsed as JSON.
    package func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
    }
}

/// Runs the built programs (`strata`, `strata-log`, ...; see ``builtExecutable(_:)``) and
/// other programs given by absolute path as real processes.
package enum CLI {
    package static func binary(_ name: String) -> URL {
        name.hasPrefix("/") ? URL(fileURLWithPath: name) : builtExecutable(name)
    }

    /// Runs `tool` once; `input` is its standard input (nothing, like /dev/null, when nil).
    package static func run(_ tool: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
                            input: Data? = nil) throws -> CommandResult {
        try runAll(tool, [arguments], in: directory, environment: environment, input: input)[0]
    }

    /// Starts one process of `tool` per argument list, all at once, and waits for every one
    /// (the many-writer and contention tests need them running together).
    package static func runAll(_ tool: String, _ argumentLists: [[String]], in directory: URL? = nil,
                       environment: [String: String] = [:], input: Data? = nil) throws -> [CommandResult] {
        let executable = binary(tool)
        let outputs = try TemporaryDirectory()
        let scratch = outputs.url
        var running: [(process: Process, out: URL, err: URL)] = []
        for (index, arguments) in argumentLists.enumerated() {
            let outURL = scratch.appendingPathComponent("out\(index)"), errURL = scratch.appendingPathComponent("err\(index)")
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.standardOutput = try FileHandle(forWritingTo: outURL)
            process.standardError = try FileHandle(forWritingTo: errURL)
            if let input {
                let inURL = scratch.appendingPathComponent("in\(index)")
                try input.write(to: inURL)
                process.standardInput = try FileHandle(forReadingFrom: inURL)
            } else {
                process.standardInput = FileHandle.nullDevice
            }
            if let directory { process.currentDirectoryURL = directory }
            if !environment.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            running.append((process, outURL, errURL))
        }
        for entry in running { try entry.process.run() }
        return try running.map { entry in
            entry.process.waitUntilExit()
            for handle in [entry.process.standardOutput, entry.process.standardError] { try (handle as? FileHandle)?.close() }
            return CommandResult(
                status: entry.process.terminationStatus,
                stdout: String(decoding: try Data(contentsOf: entry.out), as: UTF8.self),
                stderr: String(decoding: try Data(contentsOf: entry.err), as: UTF8.self))
        }
    }

    package static func strata(_ arguments: String...) throws -> CommandResult { try run("strata", arguments) }
    package static func strataLog(_ arguments: String...) throws -> CommandResult { try run("strata-log", arguments) }
}

/// Runs the program at `path` to its end: its status and what it printed.
package func runProcess(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    let result = try CLI.run(path, arguments)
    return (result.status, result.stdout, result.stderr)
}
