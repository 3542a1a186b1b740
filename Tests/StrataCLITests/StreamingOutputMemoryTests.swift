import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

// `strata fetch` and `strata export` hold no record once it is printed (issue 36, item 2):
// their peak memory must not grow with the number of records. Measured as the peak
// resident set (VmHWM) of the process for a document of N and of 10 N employees. Before
// streaming, 200,000 employees took 626 MB in a debug build (about 3 KB a record), so
// ten times the records showed as tens of megabytes more; streaming, the two peaks are
// the same within SQLite's page cache and the allocator's noise.

/// Employees of the memory test: `STRATA_STREAM_ROWS` (default 2,000) and ten times it.
/// The debug build prints about 2,000 records a second, so the default keeps the test
/// near half a minute; the proportionality is the same at any size.
private let smallRows = ProcessInfo.processInfo.environment["STRATA_STREAM_ROWS"].flatMap { Int($0) } ?? 2_000

/// Writes a CSV of `count` employees numbered from `first` (seven columns, as issue 36's).
private func employeeRows(_ path: String, from first: Int, count: Int) throws {
    var text = "firstName,lastName,salary,startDate,employeeID,email,active\n"
    for index in first..<(first + count) {
        text += "F\(index),L\(index % 15_000),\(30_000 + index % 90_000),2024-01-\(10 + index % 19),\(index),p\(index)@example.com,\(index % 2 == 0)\n"
    }
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

@Suite("strata fetch and export stream in constant memory", .serialized)
struct StreamingOutputMemoryTests {
    /// The most the larger document's peak may exceed the smaller's: 30 % (the allocator
    /// and SQLite's page cache, which fills with more pages) plus 8 MiB.
    static func bound(_ small: Int) -> Int { small + small * 3 / 10 + 8 * 1024 * 1024 }

    @Test("fetch --format csv and export of ten times the records peak at the same memory")
    func peakDoesNotGrowWithRecords() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let strata = CLI.binary("strata").path
        func peaks() throws -> (fetch: Int, export: Int) {
            let (fetched, fetchPeak, fetchErrors) = try StreamingImportTests.runMeasured(strata, ["fetch", document, "Employee", "--format", "csv", "--sort", "lastName"])
            #expect(fetched == 0, "\(fetchErrors)")
            let (exported, exportPeak, exportErrors) = try StreamingImportTests.runMeasured(strata, ["export", document, "--output", sandbox.path("all.json")])
            #expect(exported == 0, "\(exportErrors)")
            return (fetchPeak, exportPeak)
        }
        func importRows(from first: Int, count: Int) throws {
            try employeeRows(sandbox.path("rows.csv"), from: first, count: count)
            let result = try CLI.strata("import", document, sandbox.path("rows.csv"), "--entity", "Employee")
            #expect(result.status == 0, "\(result.stderr)")
        }
        try importRows(from: 0, count: smallRows)
        let small = try peaks()
        try importRows(from: smallRows, count: smallRows * 9)
        let large = try peaks()
        let mib = { (bytes: Int) in "\(bytes / 1_048_576) MiB" }
        #expect(large.fetch <= Self.bound(small.fetch),
                "fetch --format csv: \(mib(small.fetch)) for \(smallRows) records, \(mib(large.fetch)) for \(smallRows * 10)")
        #expect(large.export <= Self.bound(small.export),
                "export: \(mib(small.export)) for \(smallRows) records, \(mib(large.export)) for \(smallRows * 10)")
        // The output is whole: a header and a line per record; a JSON array of them all.
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sandbox.path("all.json")))) as? [Any])
        #expect(exported.count == smallRows * 10)

        // An export killed mid-way (SIGTERM, SIGINT, SIGHUP) leaves the old file as it was,
        // or no file, and no temporary file beside it.
        let previous = try Data(contentsOf: URL(fileURLWithPath: sandbox.path("all.json")))
        for (signal, target) in [(SIGTERM, "all.json"), (SIGINT, "new.json"), (SIGHUP, "all.json")] {
            let ending = try Self.exportKilled(strata, document, output: sandbox.path(target), with: signal)
            #expect(ending == .signaled(signal), "export ended \(ending), not by signal \(signal)")
            if target == "all.json" {
                #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.path(target))) == previous, "signal \(signal) changed the old export")
            } else {
                #expect(!FileManager.default.fileExists(atPath: sandbox.path(target)), "signal \(signal) left a partial export")
            }
            let leftovers = Self.names(in: sandbox.path("")).filter { $0.contains(".writing-") }
            #expect(leftovers.isEmpty, "signal \(signal) left \(leftovers)")
        }
    }

    /// How a process ended.
    enum Ending: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    /// Starts `strata export DOC --output FILE`, sends `signal` once it has written part
    /// of its temporary file, and returns how it ended.
    static func exportKilled(_ strata: String, _ document: String, output: String, with signal: Int32) throws -> Ending {
        let process = try spawnUnblocked(strata, ["export", document, "--output", output])
        let directory = URL(fileURLWithPath: output).deletingLastPathComponent().path
        let name = "." + URL(fileURLWithPath: output).lastPathComponent + ".writing-"
        let deadline = Date().addingTimeInterval(120)
        var status: Int32 = 0
        while Date() < deadline {
            let partial = Self.names(in: directory).first { $0.hasPrefix(name) }
            var info = stat()
            if let partial, stat(directory + "/" + partial, &info) == 0, info.st_size > 0 {
                kill(process, signal)
                break
            }
            if waitpid(process, &status, WNOHANG) == process { return Self.ending(status) }
            usleep(2_000)
        }
        while waitpid(process, &status, 0) == -1, errno == EINTR {}
        return Self.ending(status)
    }

    /// Starts a program with no signal blocked and default dispositions (the test
    /// runner's threads block some, and a spawned child inherits its spawner's mask),
    /// standard streams on /dev/null; returns its pid.
    static func spawnUnblocked(_ program: String, _ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in Int32(0)...2 {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([program] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, &attributes, argv + [nil], environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        return pid
    }

    private static func ending(_ status: Int32) -> Ending {
        (status & 0x7F) == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
    }

    /// Every name in a directory, hidden ones included (readdir).
    static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            names.append(withUnsafePointer(to: entry.pointee.d_name) { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) })
        }
        return names
    }
}
