import CLZ4
import Foundation

/// Compresses a body into one LZ4 frame as it is written, chunk by chunk: the frame
/// ``LZ4Frame/compress(_:)`` makes (linked 256 KB blocks, fast level, content checksum,
/// the content size in the header), without the whole raw body in memory at once.
///
/// A million-object save encoded a 24 MiB raw body and then compressed it; written
/// through this, the raw bytes pass in chunks of about a megabyte (docs/ARCHITECTURE.md,
/// "Saves").
///
/// The content size is known only at the end, and LZ4's streaming API writes the header
/// first; so the frame starts with eight spare bytes, and ``finish()`` rewrites the header
/// over them with the size field in place (no byte of the body moves).
///
/// ```swift
/// let writer = LZ4FrameWriter()
/// for chunk in chunks { chunk.withUnsafeBytes { writer.append($0) } }
/// let frame = writer.finish()   // LZ4Frame.decompress(frame, …) == the chunks joined
/// ```
package final class LZ4FrameWriter {
    private var context: OpaquePointer?
    private var preferences = LZ4Frame.preferences(contentSize: 0)
    /// The frame so far, in pieces of about ``pieceSize``: one growing array held the old
    /// buffer beside the doubled one each time it grew, up to twice a bulk save's frame.
    private var pieces: [[UInt8]] = []
    private var piece: [UInt8]
    private var scratch: [UInt8] = []
    /// The raw bytes appended so far.
    package private(set) var contentSize = 0

    /// The room left before the header for its size field.
    private static let sizeFieldRoom = 8
    /// The header LZ4F writes without a size field: magic, FLG, BD, header checksum.
    private static let plainHeaderSize = 7
    /// The size of the frame's pieces until ``finish()`` joins them.
    private static let pieceSize = 1 << 20

    /// Starts a frame.
    package init() {
        // Only an allocation failure makes either call fail: nothing the input decides.
        guard LZ4F_isError(LZ4F_createCompressionContext(&context, UInt32(LZ4F_VERSION))) == 0 else {
            fatalError("LZ4F_createCompressionContext failed")
        }
        piece = [UInt8](repeating: 0, count: Self.sizeFieldRoom)
        piece.reserveCapacity(Self.pieceSize)
        var header = [UInt8](repeating: 0, count: Int(LZ4F_HEADER_SIZE_MAX))
        let written = header.withUnsafeMutableBytes {
            LZ4F_compressBegin(context, $0.baseAddress, $0.count, &preferences)
        }
        guard LZ4F_isError(written) == 0, written == Self.plainHeaderSize else {
            fatalError("LZ4F_compressBegin wrote an unexpected header")
        }
        piece.append(contentsOf: header[..<written])
    }

    deinit { LZ4F_freeCompressionContext(context) }

    /// Compresses `bytes` onto the frame.
    package func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        write(bound: LZ4F_compressBound(bytes.count, &preferences)) { context, destination in
            LZ4F_compressUpdate(context, destination.baseAddress, destination.count, bytes.baseAddress, bytes.count, nil)
        }
        contentSize += bytes.count
    }

    /// Ends the frame (last block, end mark, content checksum) and returns it with its
    /// content size declared in the header.
    package func finish() -> [UInt8] {
        write(bound: LZ4F_compressBound(0, &preferences)) { context, destination in
            LZ4F_compressEnd(context, destination.baseAddress, destination.count, nil)
        }
        pieces.append(piece)
        piece = []
        // The plain header sits after the spare bytes at the start of the first piece; the
        // sized one is 8 bytes longer and takes the place of both.
        let headerEnd = Self.sizeFieldRoom + Self.plainHeaderSize
        let header = LZ4Frame.headerDeclaringSize(UInt64(contentSize), plainHeader: pieces[0][Self.sizeFieldRoom..<headerEnd])
        precondition(header.count == headerEnd, "a sized LZ4 frame header is the plain one and 8 bytes")
        let frameSize = pieces.reduce(0) { $0 + $1.count }
        return [UInt8](unsafeUninitializedCapacity: frameSize) { buffer, count in
            count = buffer.initialize(fromContentsOf: header)
            // Each piece is freed once copied, so the joined frame is not held twice.
            for index in pieces.indices {
                let bytes = pieces[index][(index == 0 ? headerEnd : 0)...]
                count += UnsafeMutableBufferPointer(rebasing: buffer[count...]).initialize(fromContentsOf: bytes)
                pieces[index] = []
            }
        }
    }

    /// Runs one LZ4F call into a scratch buffer of `bound` bytes and appends what it wrote.
    private func write(bound: Int, _ call: (OpaquePointer?, UnsafeMutableRawBufferPointer) -> Int) {
        if scratch.count < bound { scratch = [UInt8](repeating: 0, count: bound) }
        let written = scratch.withUnsafeMutableBytes { call(context, $0) }
        // LZ4F fails only for a destination below its own bound or bad preferences.
        guard LZ4F_isError(written) == 0 else {
            fatalError("LZ4F streaming compression failed: \(String(cString: LZ4F_getErrorName(written)))")
        }
        if !piece.isEmpty, piece.count + written > Self.pieceSize {
            pieces.append(piece)
            piece = []
            piece.reserveCapacity(Self.pieceSize)
        }
        piece.append(contentsOf: scratch[..<written])
    }
}
