import Foundation

/// How the command-line tools write files: to a hidden temporary name beside the target,
/// `fsync`ed, then renamed over it (and the directory `fsync`ed), so a failure — a full
/// disk, a killed process — never leaves a truncated file where a good one was.
///
/// ```swift
/// try AtomicFileWriter.write(Data(text.utf8), to: URL(fileURLWithPath: "out.json"))
/// ```
package enum AtomicFileWriter {
    /// Writes `data` to `url` atomically.
    /// - Throws: `.io` naming the file and the cause (disk full, permission...); the target
    ///   is then as it was.
    package static func write(_ data: Data, to url: URL) throws {
        try replace(url) { descriptor in
            try data.withUnsafeBytes { buffer in try writeAll(descriptor, buffer, path: url.path) }
        }
    }

    /// Copies the file at `source` to `url` atomically.
    package static func copy(from source: URL, to url: URL) throws {
        guard let input = FileHandle(forReadingAtPath: source.path) else {
            throw StrataError(.io, "Cannot read \(source.path): \(String(cString: strerror(errno))).", context: .init { $0.path = source.path })
        }
        defer { try? input.close() }
        try replace(url) { descriptor in
            while true {
                let chunk = try input.read(upToCount: 1 << 20) ?? Data()
                if chunk.isEmpty { break }
                try chunk.withUnsafeBytes { buffer in try writeAll(descriptor, buffer, path: url.path) }
            }
        }
    }

    /// A hidden name beside `url` for building its replacement.
    package static func temporaryName(for url: URL, purpose: String = "writing") -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(purpose)-\(UUID().uuidString)")
    }

    /// Moves a finished file over `url` and makes the rename durable.
    /// - Throws: `.io` naming the cause.
    package static func moveIntoPlace(_ temporary: URL, _ url: URL) throws {
        if let code = FileWriteFaults.failure(.rename, url.path) { throw failure(url.path, code) }
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            throw failure(url.path, code)
        }
        syncDirectory(of: url)
    }

    private static func replace(_ url: URL, _ fill: (Int32) throws -> Void) throws {
        let temporary = temporaryName(for: url)
        var mode: mode_t = 0o644
        var info = stat()
        if stat(url.path, &info) == 0 { mode = info.st_mode & 0o7777 }
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure(url.path, errno) }
        do {
            try fill(descriptor)
            if let code = FileWriteFaults.failure(.sync, url.path) { throw failure(url.path, code) }
            guard fsync(descriptor) == 0 else { throw failure(url.path, errno) }
            guard close(descriptor) == 0 else {
                unlink(temporary.path)
                throw failure(url.path, errno)
            }
        } catch {
            close(descriptor)
            unlink(temporary.path)
            throw error
        }
        do {
            try moveIntoPlace(temporary, url)
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    private static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        if let code = FileWriteFaults.failure(.write, path) { throw failure(path, code) }
        while offset < buffer.count {
            let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw failure(path, errno)
            }
            offset += written
        }
    }

    private static func syncDirectory(of url: URL) {
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        guard directory >= 0 else { return }
        _ = fsync(directory)
        close(directory)
    }

    /// The `.io` error for an `errno`, naming a full disk or a permission problem plainly.
    package static func failure(_ path: String, _ code: Int32) -> StrataError {
        let cause: String
        switch code {
        case ENOSPC, EDQUOT: cause = "the disk is full (no space left on the device)"
        case EACCES, EPERM, EROFS: cause = "permission denied"
        default: cause = String(cString: strerror(code))
        }
        return StrataError(.io, "Cannot write \(path): \(cause); any existing file there is unchanged.",
                           context: .init { $0.path = path; $0.errno = code })
    }
}
