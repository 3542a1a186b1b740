import Foundation
import Strata
import Testing

/// What one run of a tool under a deadline ended as: its result, or nil when the deadline
/// passed and the process was killed (a hang — the test fails instead of hanging too).
private struct BoundedRun {
    var arguments: [String]
    var result: CommandResult?
}

/// Starts one process of `tool` per argument list, all at once, and waits at most `seconds`
/// for them: a process still running then is killed with SIGKILL and reported as hung.
private func runBounded(_ tool: String, _ argumentLists: [[String]], seconds: Double) throws -> [BoundedRun] {
    let scratch = try TemporaryDirectory()
    var running: [(process: Process, arguments: [String], out: URL, err: URL)] = []
    for (index, arguments) in argumentLists.enumerated() {
        let out = scratch.url.appendingPathComponent("out\(index)"), err = scratch.url.appendingPathComponent("err\(index)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = CLI.binary(tool)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        running.append((process, arguments, out, err))
    }
    let deadline = Date().addingTimeInterval(seconds)
    while running.contains(where: { $0.process.isRunning }), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    return try running.map { entry in
        var hung = false
        if entry.process.isRunning {
            hung = true
            kill(entry.process.processIdentifier, SIGKILL)
        }
        entry.process.waitUntilExit()
        for handle in [entry.process.standardOutput, entry.process.standardError] { try (handle as? FileHandle)?.close() }
        guard !hung else { return BoundedRun(arguments: entry.arguments, result: nil) }
        return BoundedRun(arguments: entry.arguments, result: CommandResult(
            status: entry.process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: entry.out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: entry.err), as: UTF8.self)))
    }
}

/// A path that is not a regular file — a FIFO, a device, a directory — is refused at once
/// by every command, with one line naming what it is (docs/LIMITS.md, "Files that are not
/// files"); it used to block `info`, `fetch`, `export`, `verify`, `dump` and `recover`
/// forever (issue 32, item 7).
@Suite("paths that are not regular files")
struct NonRegularFileTests {
    /// Generous for a loaded two-core machine; a refusal takes milliseconds, a hang forever.
    static let deadline = 60.0

    static func makeFIFO(_ path: String) {
        #expect(mkfifo(path, 0o644) == 0, "mkfifo \(path): errno \(errno)")
    }

    /// Every `strata` and `strata-log` command that opens a document, given `path`.
    static func documentCommands(_ path: String, sandbox: TemporaryDirectory) -> [(tool: String, arguments: [String])] {
        let csv = sandbox.path("rows.csv"), model = sandbox.path("model.json")
        return [
            ("strata", ["info", path]), ("strata", ["fetch", path, "Employee"]), ("strata", ["export", path]),
            ("strata", ["get", path, "Employee/p1"]), ("strata", ["insert", path, "Employee", "firstName=A"]),
            ("strata", ["update", path, "Employee", "--where", "TRUEPREDICATE", "salary=1"]),
            ("strata", ["delete", path, "Employee/p1"]), ("strata", ["undo", path]), ("strata", ["redo", path]),
            ("strata", ["history", path]), ("strata", ["import", path, csv, "--entity", "Employee"]),
            ("strata", ["migrate", path, "--model", model]),
            ("strata", ["push", path, sandbox.path("remote.strata-remote")]),
            ("strata-log", ["dump", path]), ("strata-log", ["verify", path]), ("strata-log", ["stats", path]),
            ("strata-log", ["export", path, "--out", sandbox.path("segments")]),
            ("strata-log", ["replay", path, "--to", "1", "--out", sandbox.path("replayed.strata")]),
            ("strata-log", ["recover", path]), ("strata-log", ["compact", path]),
        ]
    }

    /// The files the commands read besides the document: an import file and a model.
    static func writeInputs(_ sandbox: TemporaryDirectory) throws {
        try Data("firstName\nAda\n".utf8).write(to: URL(fileURLWithPath: sandbox.path("rows.csv")))
        try ManagedObjectModel.employeesExample().jsonRepresentation().write(to: URL(fileURLWithPath: sandbox.path("model.json")))
    }

    /// Runs every command on `path` under the deadline: each must fail with one error line
    /// containing `fragment`.
    func expectEveryCommandRefuses(_ path: String, sandbox: TemporaryDirectory, mentioning fragment: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        let commands = Self.documentCommands(path, sandbox: sandbox)
        for tool in ["strata", "strata-log"] {
            let lists = commands.filter { $0.tool == tool }.map(\.arguments)
            for run in try runBounded(tool, lists, seconds: Self.deadline) {
                guard let result = run.result else {
                    Issue.record("\(tool) \(run.arguments.joined(separator: " ")) hung on \(fragment)", sourceLocation: sourceLocation)
                    continue
                }
                expectFailure(result, tool: tool, mentions: [fragment], sourceLocation: sourceLocation)
            }
        }
    }

    @Test("a FIFO as the document: every command refuses it at once (the issue's reproduction)")
    func fifoDocument() throws {
        let sandbox = try TemporaryDirectory()
        try Self.writeInputs(sandbox)
        let fifo = sandbox.path("fifo.strata")
        Self.makeFIFO(fifo)
        try expectEveryCommandRefuses(fifo, sandbox: sandbox, mentioning: "\(fifo) is a FIFO (named pipe), not a Strata document")
    }

    @Test("a directory and a character device as the document are refused, naming what they are")
    func directoryAndDevice() throws {
        let sandbox = try TemporaryDirectory()
        try Self.writeInputs(sandbox)
        let directory = sandbox.path("folder.strata")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try expectEveryCommandRefuses(directory, sandbox: sandbox, mentioning: "is a directory, not a Strata document")
        for run in try runBounded("strata", [["info", "/dev/null"], ["fetch", "/dev/zero", "Employee"]], seconds: Self.deadline) {
            let result = try #require(run.result, "strata \(run.arguments) hung")
            expectFailure(result, mentions: ["is a character device, not a Strata document"])
        }
    }

    @Test("a FIFO beside the document, where SQLite opens its write-ahead log, is refused at once")
    func fifoWAL() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        Self.makeFIFO(document + "-wal")
        let runs = try runBounded("strata", [["info", document], ["insert", document, "Employee", "firstName=A", "lastName=B"]],
                                  seconds: Self.deadline)
        for run in runs {
            let result = try #require(run.result, "strata \(run.arguments) hung")
            expectFailure(result, mentions: ["\(document)-wal is a FIFO (named pipe), not a document's write-ahead log"])
        }
    }

    @Test("a symbolic link to a document still opens")
    func symlinkToDocument() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "salary=1")
        let link = sandbox.path("link.strata")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: document)
        let count = try CLI.strata("fetch", link, "Employee", "--count")
        #expect(count.status == 0 && count.stdout == "1\n", "\(count.stderr)")
        #expect(try CLI.strata("insert", link, "Employee", "firstName=Alan", "lastName=Turing", "salary=2").status == 0)
        #expect(try CLI.strataLog("verify", link).status == 0)
        #expect(try CLI.strata("fetch", document, "Employee", "--count").stdout == "2\n")
    }

    @Test("an import source or model file that is a FIFO or a device is refused at once (the issue's /dev/zero import)")
    func importSourceAndModelFile() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let fifo = sandbox.path("rows.fifo")
        Self.makeFIFO(fifo)
        let before = try sandbox.bytes("staff.strata")
        let imports = try runBounded("strata", [
            ["import", document, "/dev/zero", "--format", "csv", "--entity", "Employee"],
            ["import", document, fifo, "--format", "csv", "--entity", "Employee"],
            ["import", document, fifo, "--entity", "Employee"],
        ], seconds: Self.deadline)
        for (run, what) in zip(imports, ["/dev/zero: it is a character device", "\(fifo): it is a FIFO (named pipe)", "it is a FIFO"]) {
            let result = try #require(run.result, "strata \(run.arguments) hung")
            expectFailure(result, mentions: ["Cannot import", what, "not a regular file"])
        }
        #expect(try sandbox.bytes("staff.strata") == before)
        let models = try runBounded("strata", [
            ["new", sandbox.path("a.strata"), "--model", fifo], ["new", sandbox.path("b.strata"), "--model", "/dev/zero"],
            ["codegen", fifo],
        ], seconds: Self.deadline)
        for run in models {
            let result = try #require(run.result, "strata \(run.arguments) hung")
            expectFailure(result, mentions: ["not a regular file"])
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("a.strata")))
    }

    @Test("a FIFO as a file remote is refused at once")
    func fifoRemote() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let fifo = sandbox.path("remote.fifo")
        Self.makeFIFO(fifo)
        let runs = try runBounded("strata", [["push", document, fifo], ["pull", document, fifo], ["clone", fifo, sandbox.path("copy.strata")]],
                                  seconds: Self.deadline)
        for run in runs {
            let result = try #require(run.result, "strata \(run.arguments) hung")
            expectFailure(result, mentions: ["is a FIFO (named pipe)"])
        }
    }
}
