import Foundation

// What the test suites' child programs (strata-crash-writer, strata-stress-writer) share:
// unbuffered lines on standard output for the parent to read, and one way to fail.

/// Writes one line to standard output at once (no buffering: the parent reads it while
/// the child runs, and may kill the child right after).
package func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes `message` to standard error and exits with `status`.
package func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}
