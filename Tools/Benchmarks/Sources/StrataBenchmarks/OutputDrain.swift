import Foundation

/// A child's standard output read to its end as fast as `cat > /dev/null` would: counted,
/// not kept, but for its last 64 KiB.
///
/// The pipe is part of what W13 times (a user pipes the rows on), but the reader must not
/// be: a reader slower than the writer fills the pipe, and the child then waits on it, so
/// its wall time grows with the bytes it prints and not with its own work. This reads
/// 1 MiB at a time with `read(2)` and counts line breaks with `memchr`, no per-byte loop
/// and no copy but the tail's.
struct OutputDrain {
    private(set) var bytes = 0
    private(set) var lines = 0
    /// The last bytes read (at least 64 KiB of them when there were that many).
    private(set) var tail = Data()

    private static let chunk = 1 << 20
    private static let kept = 1 << 16

    /// Reads `descriptor` until end of file (retrying interrupted reads).
    init(_ descriptor: Int32) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, Self.chunk)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += count
            lines += Self.lineBreaks(in: UnsafeRawBufferPointer(start: buffer, count: count))
            let last = UnsafeRawBufferPointer(start: buffer + max(0, count - Self.kept), count: min(count, Self.kept))
            if count >= Self.kept { tail = Data(last) } else {
                tail.append(contentsOf: last)
                if tail.count > 2 * Self.kept { tail = tail.suffix(Self.kept) }
            }
        }
    }

    private static func lineBreaks(in bytes: UnsafeRawBufferPointer) -> Int {
        guard var cursor = bytes.baseAddress else { return 0 }
        let end = cursor + bytes.count
        var found = 0
        while cursor < end, let hit = memchr(cursor, Int32(UInt8(ascii: "\n")), end - cursor) {
            found += 1
            cursor = UnsafeRawPointer(hit) + 1
        }
        return found
    }
}
