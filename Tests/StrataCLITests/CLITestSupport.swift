import Foundation
import Testing
// Every file of the test target sees the temporary directory and the built-program locator.
@_exported import StrataTestSupport

/// What one run of a built tool printed and returned.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Standard output parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
    }
}

/// Runs the built programs (`strata`, `strata-log`, ...; see ``builtExecutable(_:)``) and
/// other programs given by absolute path as real processes.
enum CLI {
    static func binary(_ name: String) -> URL {
        name.hasPrefix("/") ? URL(fileURLWithPath: name) : builtExecutable(name)
    }

    static func run(_ tool: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws -> CommandResult {
        try runAll(tool, [arguments], in: directory, environment: environment)[0]
    }

    /// Starts one process of `tool` per argument list, all at once, and waits for every one
    /// (the many-writer and contention tests need them running together).
    static func runAll(_ tool: String, _ argumentLists: [[String]], in directory: URL? = nil,
                       environment: [String: String] = [:]) throws -> [CommandResult] {
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
            process.standardInput = FileHandle.nullDevice
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

    static func strata(_ arguments: String...) throws -> CommandResult { try run("strata", arguments) }
    static func strataLog(_ arguments: String...) throws -> CommandResult { try run("strata-log", arguments) }
}

/// A test's documents, made with the `strata` tool in its temporary directory.
extension TemporaryDirectory {
    /// Creates an employees-example document and returns its path.
    func employees(_ name: String = "staff.strata") throws -> String {
        let document = path(name)
        let result = try CLI.strata("new", document, "--example", "employees")
        #expect(result.status == 0, "strata new failed: \(result.stderr)")
        return document
    }

    /// Inserts an object and returns its URI.
    func insert(_ document: String, _ entity: String, _ assignments: String...) throws -> String {
        let result = try CLI.run("strata", ["insert", document, entity] + assignments)
        #expect(result.status == 0, "strata insert failed: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Expects a failure: a non-zero status, exactly one `PREFIX: error: ` line first on
/// standard error containing every fragment, nothing that looks like a stack trace.
func expectFailure(_ result: CommandResult, tool: String = "strata", mentions fragments: [String],
                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status != 0, "expected a failure, got status 0: \(result.stdout)", sourceLocation: sourceLocation)
    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
    #expect(lines.first?.hasPrefix("\(tool): error: ") == true, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    #expect(lines.filter { $0.hasPrefix("\(tool): error: ") }.count == 1, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
    for fragment in fragments {
        #expect(lines.first?.contains(fragment) == true, "'\(fragment)' missing from: \(result.stderr)", sourceLocation: sourceLocation)
    }
    #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"), sourceLocation: sourceLocation)
}

/// Objects of a `fetch --format json` / `export` output without their URIs (keys re-based
/// on entity and key so documents with other store identifiers compare).
func withoutStoreIdentifiers(_ json: Any) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    let text = String(decoding: data, as: UTF8.self)
    return text.replacingOccurrences(of: "x-strata://[0-9A-F-]+/", with: "REF/", options: .regularExpression)
}
