import Foundation

/// What one run of a built tool printed and returned.
package struct CommandResult {
    package var status: Int32
    package var stdout: String
    package var stderr: String
    /// The signal that ended the process, when one did (`status` is then its number, as
    /// Foundation's `Process` reports it).
    package var signal: Int32?

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
        let executable = binary(tool).path
        let outputs = try TemporaryDirectory()
        var running: [(process: SpawnedProcess, out: URL, err: URL)] = []
        for (index, arguments) in argumentLists.enumerated() {
            let outURL = outputs.url.appendingPathComponent("out\(index)"), errURL = outputs.url.appendingPathComponent("err\(index)")
            var inPath: String?
            if let input {
                let inURL = outputs.url.appendingPathComponent("in\(index)")
                try input.write(to: inURL)
                inPath = inURL.path
            }
            let process = try SpawnedProcess(executable, arguments, stdin: inPath, stdout: outURL.path, stderr: errURL.path,
                                              environment: environment, directory: directory?.path)
            running.append((process, outURL, errURL))
        }
        // Every child is reaped before a deadline failure is thrown, so none is left behind.
        let endings = running.map { $0.process.wait() }
        return try zip(running, endings).map { entry, ending in
            let stdout = String(decoding: (try? Data(contentsOf: entry.out)) ?? Data(), as: UTF8.self)
            let stderr = String(decoding: (try? Data(contentsOf: entry.err)) ?? Data(), as: UTF8.self)
            switch ending {
            case .exited(let status):
                return CommandResult(status: status, stdout: stdout, stderr: stderr)
            case .signalled(let signal):   // as Foundation's Process reports it
                var result = CommandResult(status: signal, stdout: stdout, stderr: stderr)
                result.signal = signal
                return result
            case .timedOut(let seconds):
                throw ProcessDeadlineExceeded(command: ([tool] + entry.process.arguments).joined(separator: " "),
                                              seconds: seconds, stdout: stdout, stderr: stderr)
            }
        }
    }

    package static func strata(_ arguments: String...) throws -> CommandResult { try run("strata", arguments) }
    package static func strataLog(_ arguments: String...) throws -> CommandResult { try run("strata-log", arguments) }
}

/// A tool run that outlived ``SpawnedProcess/defaultDeadline`` and was killed: the test
/// fails naming the command and showing what it printed, instead of hanging the run.
package struct ProcessDeadlineExceeded: Error, CustomStringConvertible {
    package let command: String
    package let seconds: TimeInterval
    package let stdout: String
    package let stderr: String

    package var description: String {
        "`\(command)` ran past its \(Int(seconds)) s deadline and was killed; it printed:\n\(stdout)\n\(stderr)"
    }
}

/// Runs the program at `path` to its end: its status and what it printed.
package func runProcess(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    let result = try CLI.run(path, arguments)
    return (result.status, result.stdout, result.stderr)
}
