import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Resident memory figures of a process, from /proc/PID/status.
///
/// Peaks are `VmHWM`, the high-water mark of the process's own address space, not
/// getrusage's `ru_maxrss`: a process started with posix_spawn (Foundation's `Process`)
/// begins in its parent's address space, and Linux carries that space's peak into the
/// child's `ru_maxrss` at exec. So `ru_maxrss` was never below the parent's peak: the
/// `sqlite3` shell's `.import`, which peaks at 6.5 MiB (`/usr/bin/time -v`), read 25 MiB,
/// the peak of the benchmark process that started it.
enum ProcessMemory {
    /// A field of /proc/PID/status (of this process when `pid` is nil), in KiB; 0 when the
    /// process is gone.
    static func statusKiB(_ field: String, pid: pid_t? = nil) -> Int {
        let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.map(String.init) ?? "") ?? 0
        }
        return 0
    }

    /// Resets this process's peak resident memory (`VmHWM`) to its current resident size,
    /// after giving the allocator's free heap back to the system: the peak a unit reports is
    /// then the workload's, not what it did before (W15: the trace's JSON parsing; W4x: building
    /// its documents). Linux only (writing 5 to clear_refs, Linux ≥ 4.0); elsewhere it does
    /// nothing and the peak includes what came before.
    static func resetPeak() {
        // Freed memory is still the process's until malloc gives it back to the system:
        // without this, the reset peak is what came before (W15's parse: about 1 GiB).
        // glibc's malloc_trim, which Swift's Glibc module does not export.
        if let trim = dlsym(nil, "malloc_trim") {
            _ = unsafeBitCast(trim, to: (@convention(c) (Int) -> Int32).self)(0)
        }
        guard let file = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return }
        try? file.write(contentsOf: Data("5".utf8))
        try? file.close()
    }

    /// The peak resident memory of a process's own address space so far, in KiB.
    static func peakKiB(pid: pid_t? = nil) -> Int { statusKiB("VmHWM", pid: pid) }

    /// Reads another process's `VmHWM` every 10 ms on a dispatch worker, until stopped: the
    /// last reading before the process is gone is its peak (to within the last 10 ms).
    final class PeakWatcher: @unchecked Sendable {
        private let lock = NSLock()
        private var peak = 0
        private var stopped = false
        private let finished = DispatchSemaphore(value: 0)

        init(pid: pid_t) {
            DispatchQueue.global().async { [self] in
                while true {
                    let reading = ProcessMemory.peakKiB(pid: pid)
                    let done = lock.withLock {
                        peak = max(peak, reading)
                        return stopped
                    }
                    if done { break }
                    usleep(10_000)
                }
                finished.signal()
            }
        }

        /// Stops watching; returns the largest reading, in KiB.
        func stop() -> Int {
            lock.withLock { stopped = true }
            finished.wait()
            return lock.withLock { peak }
        }
    }
}

/// This process's peak resident memory so far, in MiB (`VmHWM`; see ``ProcessMemory``).
func peakMemoryMiB() -> Double {
    Double(ProcessMemory.peakKiB()) / 1024
}
