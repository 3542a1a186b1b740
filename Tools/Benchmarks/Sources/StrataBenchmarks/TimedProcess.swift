import Foundation

/// A tool run as a child process of a unit (the release `strata` tool, the `sqlite3`
/// shell), timed end to end with its own peak memory: W8, W8b, W13 and W14 measure what a
/// user waits for at a shell prompt.
enum TimedProcess {
    /// What a run took and printed.
    struct Outcome {
        var seconds: Double
        var peakMiB: Double
        /// Bytes and newlines the program wrote to standard output.
        var outputBytes: Int
        var outputLines: Int
    }

    /// The release `strata` tool (`STRATA_BENCH_STRATA`, set by Tools/Benchmarks/run).
    static func strataTool() throws -> String {
        guard let tool = ProcessInfo.processInfo.environment["STRATA_BENCH_STRATA"] else {
            throw ChildProcess.Failure(description: "STRATA_BENCH_STRATA (the release `strata` tool) is not set")
        }
        return tool
    }

    /// Runs a program to completion and returns its wall-clock seconds, its peak resident
    /// memory (its own `VmHWM`, read every 10 ms on another thread while it runs, so that
    /// the timing does not wait for a poll; ``ProcessMemory`` says why not `ru_maxrss`) and
    /// the size of its output, which is read as it comes and not kept (W13 prints a million
    /// rows) but for its last 64 KiB, as fast as `cat` reads it (``OutputDrain``); fails
    /// on a non-zero status or when that tail lacks `expecting`.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], expecting: String? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        // The end is taken when Foundation sees the exit, not when `waitUntilExit` returns:
        // that wait returned tens of milliseconds late, most of a first fetch's time (the
        // shell's indexed fetch read 54 ms; it takes 11).
        let ended = EndTime()
        process.terminationHandler = { _ in ended.mark() }
        let start = Clock.now
        try process.run()
        // `/usr/bin/env` execs the program in the same process, so its pid is the program's.
        let watcher = ProcessMemory.PeakWatcher(pid: process.processIdentifier)
        let drained = OutputDrain(output.fileHandleForReading.fileDescriptor)
        process.waitUntilExit()
        let seconds = ended.seconds(since: start)
        let peakKiB = watcher.stop()
        let name = arguments.prefix(2).joined(separator: " ")
        guard process.terminationStatus == 0 else {
            throw ChildProcess.Failure(description: "\(name): exit status \(process.terminationStatus)")
        }
        if let expecting, !String(decoding: drained.tail, as: UTF8.self).contains(expecting) {
            throw ChildProcess.Failure(description: "\(name): the result lacks \(expecting)")
        }
        return Outcome(seconds: seconds, peakMiB: Double(peakKiB) / 1024, outputBytes: drained.bytes, outputLines: drained.lines)
    }

    /// When a child's exit was seen (set on Foundation's monitoring thread).
    private final class EndTime: @unchecked Sendable {
        private let lock = NSLock()
        private var end: UInt64?

        func mark() { lock.withLock { end = Clock.now } }

        /// Seconds from `start` to the exit (to now, if the exit was not seen yet).
        func seconds(since start: UInt64) -> Double {
            let end = lock.withLock { self.end } ?? Clock.now
            return Double(end - start) / 1e9
        }
    }
}
