import Foundation
import Strata
import StrataToolSupport

/// Where `strata fetch` and `strata export` write as they read: standard output, or a
/// file built under a hidden temporary name beside it and renamed into place when
/// complete (``AtomicFileWriter``). Text is buffered up to ``flushThreshold`` bytes and
/// written out, so memory stays the same whatever the number of records.
///
/// ```swift
/// let output = try StreamedOutput(path: "out.json")   // nil or "-": standard output
/// output.write("[")
/// try output.finish()                                  // renames out.json into place
/// ```
///
/// A file is never left half-written at its name: an error, SIGINT, SIGTERM or SIGHUP
/// removes the temporary file (the handler unlinks it, then dies of the signal as it
/// would have), and only ``finish()`` renames it. SIGKILL leaves the hidden temporary
/// file (`.NAME.writing-UUID`) beside the target, never a partial file at its name.
final class StreamedOutput {
    /// Bytes held before they are written out.
    static let flushThreshold = 1 << 16

    private var buffer: [UInt8] = []
    private let descriptor: Int32
    /// The destination when writing a file (nil: standard output).
    private let target: URL?
    private let temporary: URL?
    /// Whether a file's descriptor is still open.
    private var isOpen: Bool
    /// Whether the output is finished (renamed into place) or abandoned.
    private var isDone = false

    /// Opens standard output (`path` nil or `-`) or a temporary file beside `path`.
    /// - Throws: `.io` naming the file when the temporary file cannot be created.
    init(path: String?) throws {
        buffer.reserveCapacity(Self.flushThreshold + 4096)
        guard let path, path != ToolStandardStreams.dash else {
            // What `print` already buffered goes first.
            fflush(nil)
            (descriptor, target, temporary, isOpen) = (STDOUT_FILENO, nil, nil, false)
            return
        }
        let url = URL(fileURLWithPath: path)
        let temporary = AtomicFileWriter.temporaryName(for: url)
        var mode: mode_t = 0o644
        var info = stat()
        if stat(url.path, &info) == 0 { mode = info.st_mode & 0o7777 }
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw AtomicFileWriter.failure(url.path, errno) }
        (self.descriptor, target, self.temporary, isOpen) = (descriptor, url, temporary, true)
        TemporaryFileCleanup.register(temporary.path)
    }

    deinit { abandon() }

    /// Appends text; writes the buffer out when it passes ``flushThreshold``.
    /// - Throws: `.io` naming the destination when the write fails (a full disk, a closed pipe).
    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Appends bytes that `body` writes into the buffer (records written straight from
    /// values, no `String` between); writes the buffer out when it passes ``flushThreshold``.
    /// - Throws: `.io` naming the destination when the write fails; whatever `body` throws.
    func append(_ body: (inout [UInt8]) throws -> Void) throws {
        try body(&buffer)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Writes everything out; a file is `fsync`ed, closed and renamed over its target.
    /// - Throws: `.io` naming the destination; a file's target is then as it was.
    func finish() throws {
        do {
            try flush()
            if let target, let temporary {
                guard fsync(descriptor) == 0 else { throw AtomicFileWriter.failure(target.path, errno) }
                isOpen = false
                guard close(descriptor) == 0 else { throw AtomicFileWriter.failure(target.path, errno) }
                try AtomicFileWriter.moveIntoPlace(temporary, target)
                TemporaryFileCleanup.unregister()
            }
            isDone = true
        } catch {
            abandon()
            throw error
        }
    }

    /// Removes an unfinished file's temporary file (standard output stays as written).
    private func abandon() {
        guard !isDone else { return }
        isDone = true
        guard let temporary else { return }
        if isOpen { close(descriptor) }
        isOpen = false
        unlink(temporary.path)
        TemporaryFileCleanup.unregister()
    }

    private func flush() throws {
        var offset = 0
        try buffer.withUnsafeBytes { bytes in
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    if let target { throw AtomicFileWriter.failure(target.path, code) }
                    throw StrataError(.io, "Cannot write to standard output: \(String(cString: strerror(code))); the output is incomplete.",
                                      context: .init { $0.errno = code })
                }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Removes an unfinished output's temporary file when SIGINT, SIGTERM or SIGHUP ends the
/// process, then lets the signal end it as it would have (the exit status says so).
///
/// The path is a C string allocated once per file, so the handler only calls
/// async-signal-safe functions (`unlink`, `signal`, `raise`).
enum TemporaryFileCleanup {
    /// The temporary file to remove, or nil. Only the main thread sets it (one output at
    /// a time); the handler reads it.
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var installed = false
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Removes `temporary` if a signal ends the process before ``unregister()``.
    static func register(_ temporary: String) {
        let copy = strdup(temporary)
        let previous = path
        path = copy
        free(previous)
        guard !installed else { return }
        installed = true
        for number in signals {
            signal(number) { received in
                if let path = TemporaryFileCleanup.path { unlink(path) }
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }

    /// The temporary file is gone or renamed into place: nothing to remove.
    static func unregister() {
        let previous = path
        path = nil
        free(previous)
    }
}
