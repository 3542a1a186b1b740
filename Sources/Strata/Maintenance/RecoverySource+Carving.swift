import Foundation

/// The last way recovery finds a segment whose row SQLite cannot give (a damaged page
/// header, cell pointer or record header of the log table): its body is still in the file,
/// an LZ4 frame (docs/FORMAT.md §9) whose content checksum proves it whole and whose body
/// says its sequence (§2). Only the sequences known to be missing are taken, and only when
/// the file holds exactly one intact body for that sequence (a free page can keep an old
/// copy); a body that spans pages (larger than one page) cannot be found this way, nor any
/// in a file over 256 MiB (the file is read whole).
extension RecoverySource {
    /// Looks for the bodies of the ``unreadable`` segments (of any segment when
    /// `anySequence`: no row of the table could be read) in the file's bytes and moves each
    /// one found, whole, into ``records``.
    mutating func carveUnreadableSegments(anySequence: Bool) {
        let wanted = Set(unreadable.keys.filter { $0 > 0 })
        guard !wanted.isEmpty || anySequence,
              let bytes = FileManager.default.contents(atPath: (scratch ?? url).path).map([UInt8].init),
              bytes.count <= 1 << 28 else { return }
        let magic: [UInt8] = [0x04, 0x22, 0x4D, 0x18]
        var candidates: [UInt64: Set<[UInt8]>] = [:]
        var found: [UInt64: (time: Double, groups: Int, rawSize: Int, frame: [UInt8])] = [:]
        var index = 0
        while index + 15 <= bytes.count {
            defer { index += 1 }
            guard bytes[index] == magic[0], bytes[index + 1] == magic[1], bytes[index + 2] == magic[2], bytes[index + 3] == magic[3],
                  let length = Self.frameLength(bytes, at: index) else { continue }
            let frame = Array(bytes[index..<index + length])
            guard let raw = try? LZ4Frame.decompress(frame, maxContentSize: settings.maxSegmentSize),
                  let header = try? Self.bodyHeader(raw), anySequence || wanted.contains(header.sequence),
                  !records.contains(where: { $0.sequence == header.sequence }) else { continue }
            candidates[header.sequence, default: []].insert(frame)
            found[header.sequence] = (header.time, header.groups, raw.count, frame)
        }
        for (sequence, frames) in candidates where frames.count == 1 {
            guard let body = found[sequence] else { continue }
            records.append(SegmentRecord(sequence: sequence, timestamp: Date(timeIntervalSince1970: body.time), groupCount: body.groups,
                                         operationCount: 0, rawSize: body.rawSize, body: body.frame,
                                         isCompacted: sequence <= compactedThrough))
            unreadable[sequence] = nil
            carved.insert(sequence)
        }
        records.sort { $0.sequence < $1.sequence }
    }

    /// The length of the LZ4 frame starting at `start`, from its header and block sizes
    /// alone (nil when it runs past the end of the file).
    private static func frameLength(_ bytes: [UInt8], at start: Int) -> Int? {
        let flags = bytes[start + 4]
        guard flags >> 6 == 1 else { return nil }   // version 01
        var offset = start + 6 + (flags & 0x08 != 0 ? 8 : 0) + (flags & 0x01 != 0 ? 4 : 0) + 1
        let blockChecksums = flags & 0x10 != 0
        while offset + 4 <= bytes.count {
            let size = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3] & 0x7F) << 24
            offset += 4
            if size == 0 {
                offset += flags & 0x04 != 0 ? 4 : 0
                return offset <= bytes.count ? offset - start : nil
            }
            guard size <= 4 << 20 else { return nil }
            offset += size + (blockChecksums ? 4 : 0)
        }
        return nil
    }
}
