import Foundation
import Strata

/// The bytes of an import file, read in chunks from a file handle (or from memory), so
/// that a reader holds one chunk and the row it is building, never the whole file.
package final class ImportByteSource {
    /// How many bytes one read asks for.
    package static let chunkSize = 1 << 20

    private let handle: FileHandle?
    // Unchecked: one reader on one thread reads these, byte by byte and run by run, and
    // the runtime's access checks on a class's fields cost as much as the reading
    // (docs/ARCHITECTURE.md, "A plain CSV goes from bytes to slots").
    @exclusivity(unchecked) private var chunk: [UInt8]
    @exclusivity(unchecked) private var index = 0
    @exclusivity(unchecked) private var atEnd: Bool
    /// Bytes handed out so far (for progress by bytes read).
    @exclusivity(unchecked) package private(set) var bytesConsumed = 0
    /// The file's size when known (progress's total), else 0.
    package let totalBytes: Int

    /// Reads the file at `path`.
    /// - Throws: `.io` naming the file when it cannot be opened; `.invalidArgument` when it
    ///   is not a regular file (a FIFO, a device such as `/dev/zero`, a directory).
    package init(path: String) throws {
        let url = URL(fileURLWithPath: path)
        // An import reads its file up to three times (the format, the rows naming each
        // other, the rows): a pipe would give each read different bytes and a FIFO with no
        // writer blocks forever, a device never ends.
        if case .other(let what) = FileKind(of: path) {
            throw StrataError(.invalidArgument,
                              "Cannot import \(path): it is \(what), not a regular file (an import reads its file more than once; save a stream to a file first).",
                              context: .init { $0.path = path; $0.kind = .notRegularFile })
        }
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            // The errno of a missing file, so the tools exit EX_NOINPUT (ToolExitStatus).
            let missing = !FileManager.default.fileExists(atPath: path)
            throw StrataError(.io, "Cannot read \(path): \(error.localizedDescription)", context: .init { $0.path = path; $0.errno = missing ? ENOENT : nil })
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        totalBytes = size ?? 0
        chunk = []
        atEnd = false
    }

    /// Bytes already in memory (the fuzzers and tests).
    package init(bytes: [UInt8]) {
        handle = nil
        chunk = bytes
        atEnd = true
        totalBytes = bytes.count
    }

    deinit { try? handle?.close() }

    /// The next byte without consuming it, or nil at the end of the file.
    /// - Throws: `.io` when reading fails.
    @inline(__always)
    package func peek() throws -> UInt8? {
        if index < chunk.count { return chunk[index] }
        guard try refill() else { return nil }
        return chunk[index]
    }

    /// The next byte, consumed, or nil at the end of the file.
    /// - Throws: `.io` when reading fails.
    @inline(__always)
    package func next() throws -> UInt8? {
        if index < chunk.count {
            let byte = chunk[index]
            index += 1
            bytesConsumed += 1
            return byte
        }
        guard try refill() else { return nil }
        let byte = chunk[index]
        index += 1
        bytesConsumed += 1
        return byte
    }

    /// Consumes the bytes before the next comma, double quote, CR or LF (or the end of the
    /// file), appending them to `field`: a CSV field's plain text, copied a run at a time.
    /// It stops once `field` holds `limit` bytes, so a file without separators cannot
    /// fill memory: the caller checks the field's size against its limit.
    /// - Throws: `.io` when reading fails.
    package func appendPlainRun(to field: inout [UInt8], upTo limit: Int = .max) throws {
        while field.count < limit {
            if index >= chunk.count {
                guard try refill() else { return }
            }
            let start = index
            let stop = start + min(chunk.count - start, limit - field.count)
            // Found and copied from the chunk's buffer: appending `chunk[start..<end]` made a
            // slice (a retain) and took the generic path, for every field.
            let end = chunk.withUnsafeBufferPointer { buffer -> Int in
                var position = start
                while position < stop {
                    let byte = buffer[position]
                    if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                        break
                    }
                    position += 1
                }
                if position > start { field.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<position])) }
                return position
            }
            if end > start {
                bytesConsumed += end - start
                index = end
            }
            if end < stop { return }
        }
    }

    private func refill() throws -> Bool {
        guard !atEnd, let handle else { return false }
        let data: Data?
        do {
            data = try handle.read(upToCount: Self.chunkSize)
        } catch {
            throw StrataError(.io, "Cannot read the import file: \(error.localizedDescription)")
        }
        guard let data, !data.isEmpty else {
            atEnd = true
            chunk = []
            index = 0
            return false
        }
        chunk = [UInt8](data)
        index = 0
        return true
    }
}
