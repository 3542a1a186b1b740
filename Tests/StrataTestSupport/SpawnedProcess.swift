import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A child process started with `posix_spawn` and reaped with `waitpid`, under a deadline.
///
/// The test suites start thousands of tool processes from parallel tests. Foundation's
/// `Process.waitUntilExit()` learns of a child's end through a SIGCHLD dispatch source and
/// the waiting thread's run loop; under that load on Linux it can miss the end and wait
/// forever (one such wait hung a CI run for an hour). Here the waiting thread asks the
/// kernel itself (`waitpid(pid, WNOHANG)`), which cannot miss it, and a child that outlives
/// its deadline is killed and reported as a failure, with what it printed, instead of
/// hanging the run.
package struct SpawnedProcess {
    /// How long a child may run before it is killed: `STRATA_TEST_PROCESS_DEADLINE`
    /// seconds, else 600 (far beyond any tool run a test makes, even under a sanitizer).
    package static let defaultDeadline: TimeInterval =
        ProcessInfo.processInfo.environment["STRATA_TEST_PROCESS_DEADLINE"].flatMap(TimeInterval.init) ?? 600

    package let pid: pid_t
    package let executable: String
    package let arguments: [String]

    /// Starts `executable` with `arguments`; its standard input, output and error are the
    /// files at the given paths (`/dev/null` for a nil input); `environment` is added to
    /// this process's own; `directory` is its working directory.
    package init(_ executable: String, _ arguments: [String], stdin: String?, stdout: String, stderr: String,
                 environment: [String: String] = [:], directory: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing else this process has open reaches the child: a pipe another test reads
        // must see its end when that test's own child exits, not when this one does.
        _ = Self.addCloseFrom?(&actions, 3)
        if let directory {
            guard let addChdir = Self.addChdir else {
                throw CocoaError(.featureUnsupported, userInfo: [
                    NSLocalizedDescriptionKey: "this C library cannot start a process in another directory"])
            }
            _ = addChdir(&actions, directory)
        }

        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [
                NSLocalizedDescriptionKey: "cannot start \(executable): \(String(cString: strerror(status)))"])
        }
        self.pid = pid
        self.executable = executable
        self.arguments = arguments
    }

    // glibc's GNU extensions (2.29 and 2.34), which its module map does not import.
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addChdir: AddChdir? = dlsym(nil, "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: AddChdir.self) }
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// How the child ended.
    package enum Ending: Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (its number).
        case signalled(Int32)
        /// It ran past the deadline and was killed.
        case timedOut(TimeInterval)
    }

    /// Waits for the child's end, killing it (SIGKILL) once `deadline` seconds have passed.
    package func wait(deadline: TimeInterval = SpawnedProcess.defaultDeadline) -> Ending {
        let start = Date()
        var pause: useconds_t = 1_000
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return Self.ending(status) }
            if reaped == -1 && errno != EINTR { return .exited(-1) }
            if Date().timeIntervalSince(start) > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                return .timedOut(deadline)
            }
            // A tool run takes tens to hundreds of milliseconds, and the suites make thousands:
            // a 5 ms cap keeps the wait after each one's end short at the cost of a cheap call.
            usleep(pause)
            pause = min(pause * 2, 5_000)
        }
    }

    /// `waitpid`'s status as an ending (the macros WIFEXITED and friends are not imported).
    private static func ending(_ status: Int32) -> Ending {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}
