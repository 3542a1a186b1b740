import Foundation

/// The packed form of a text with its identities in `strata_text` (docs/FORMAT.md §21),
/// which documents of format 3 write: a marker, then one LZ4 frame of a peer table and
/// the runs, each written against the run before it — a run split off its neighbour by a
/// deletion is its header and length — and the shown characters only when the record's
/// column does not hold them (a deleted record's text).
enum TextStatePacking {
    /// The first two bytes of a packed state. A state of §18 starts with its run count, and
    /// one that starts with `00` holds no run and is that one byte: the two never meet.
    static let marker: [UInt8] = [0x00, 0x02]
    /// The largest packed body written or read: past it a state is written unpacked, so a
    /// hostile frame can never make a reader allocate more.
    static let maxBodySize = SegmentCodec.defaultMaxContentSize

    /// Flag bit 0: the shown characters are the record's column's, not in the state.
    private static let charactersInColumn: UInt8 = 1

    /// Run header bits.
    private static let deleted: UInt8 = 1
    private static let continues: UInt8 = 1 << 1
    private static let leftShift: UInt8 = 2
    private static let rightShift: UInt8 = 4
    private static let runBits: UInt8 = 0b0011_1111

    /// Where a run's left origin is: none, the previous run's last character, the identity
    /// before the run's first, or written.
    private enum Left: UInt8 { case absent = 0, previousLast = 1, previousIdentity = 2, written = 3 }
    /// Where its right origin is: none, the previous run's, the identity after the left
    /// origin, or written.
    private enum Right: UInt8 { case absent = 0, previousRight = 1, afterLeft = 2, written = 3 }

    /// Whether `bytes` is a packed state (else §18's).
    static func isPacked(_ bytes: [UInt8]) -> Bool { bytes.count > 1 && bytes[0] == marker[0] }

    /// The packed state of `sequence`, its characters left out when `column` holds them;
    /// nil when the packed body would pass ``maxBodySize`` (write §18's form then).
    static func encode(_ sequence: TextSequence, charactersInColumn inColumn: Bool) -> [UInt8]? {
        // Runs that continue one another in the same state are written as one (docs/TEXT.md,
        // "Runs": a run means what its halves meant). A text keeps the pieces its deletions
        // cut apart — every character deleted one keystroke at a time is a run — and they
        // join again here: on the automerge-paper trace 83,218 runs are 12,387.
        var runs: [TextRun] = []
        var peers = Set<UInt64>()
        for chunk in sequence.order.inOrder {
            for run in sequence.chunks[chunk].runs {
                if let last = runs.last, last.isContinued(by: run) {
                    runs[runs.count - 1].append(run)
                    continue
                }
                runs.append(run)
                peers.insert(run.id.peer)
                if let left = run.originLeft { peers.insert(left.peer) }
                if let right = run.originRight { peers.insert(right.peer) }
            }
        }
        let table = peers.sorted()
        let indexes = Dictionary(uniqueKeysWithValues: table.enumerated().map { ($0.element, $0.offset) })
        var out = ByteWriter()
        out.writeByte(inColumn ? charactersInColumn : 0)
        out.writeVarint(UInt64(table.count))
        for peer in table { out.writeVarint(peer) }
        out.writeVarint(UInt64(runs.count))
        func writePeer(_ peer: UInt64) {
            if table.count > 1, let index = indexes[peer] { out.writeVarint(UInt64(index)) }
        }
        var previous: TextRun?
        var shown = String.UnicodeScalarView()
        for run in runs {
            let continuing = previous.map { $0.id.peer == run.id.peer && UInt64($0.id.counter) + UInt64($0.length) == UInt64(run.id.counter) } ?? false
            let left: Left = switch run.originLeft {
            case nil: .absent
            case let origin? where previous.map({ origin == $0.lastID }) == true: .previousLast
            case let origin? where origin.peer == run.id.peer && run.id.counter > 0 && origin.counter == run.id.counter - 1: .previousIdentity
            default: .written
            }
            let right: Right = switch run.originRight {
            case nil: .absent
            case let origin? where previous.map({ origin == $0.originRight }) == true: .previousRight
            case let origin? where run.originLeft.map({ $0.peer == origin.peer && $0.counter < UInt32.max && origin.counter == $0.counter + 1 }) == true: .afterLeft
            default: .written
            }
            out.writeByte((run.isDeleted ? deleted : 0) | (continuing ? continues : 0) | left.rawValue << leftShift | right.rawValue << rightShift)
            if !continuing {
                writePeer(run.id.peer)
                let base = previous.map { $0.id.peer == run.id.peer ? Int64($0.id.counter) + Int64($0.length) : 0 } ?? 0
                out.writeZigzag(Int64(run.id.counter) - base)
            }
            out.writeVarint(UInt64(run.length))
            if left == .written, let origin = run.originLeft {
                writePeer(origin.peer)
                out.writeZigzag(Int64(origin.counter) - Int64(run.id.counter))
            }
            if right == .written, let origin = run.originRight {
                writePeer(origin.peer)
                out.writeZigzag(Int64(origin.counter) - Int64((run.originLeft ?? run.id).counter))
            }
            if !inColumn, !run.isDeleted { shown.append(contentsOf: run.scalars) }
            previous = run
        }
        if !inColumn { out.writeString(String(shown)) }
        guard out.count <= maxBodySize else { return nil }
        // LZ4's high level, as a typed segment's (docs/FORMAT.md §9.1): a state is written
        // once per compaction and read at each open, and its runs' headers repeat.
        return marker + LZ4Frame.compress(out.bytes, level: .high)
    }

    /// The text a packed state holds; `column` gives the record's column's string when the
    /// state says the characters are there.
    /// - Throws: `.corruptSegment` naming the byte of the packed body that is wrong (or
    ///   the frame's), or a column that is missing or does not hold as many characters as
    ///   the shown runs.
    static func decode(_ bytes: [UInt8], column: () throws -> String?) throws -> TextSequence {
        let body = try LZ4Frame.decompress(Array(bytes[marker.count...]), maxContentSize: maxBodySize)
        var reader = ByteReader(body)
        let flagsOffset = reader.offset
        let flags = try reader.readByte()
        guard flags & ~charactersInColumn == 0 else { throw reader.failure("unknown text state flags \(flags)", at: flagsOffset) }
        let peerCount = try reader.readCount(minimumItemSize: 1, what: "peer count")
        var peers: [UInt64] = []
        peers.reserveCapacity(peerCount)
        for _ in 0..<peerCount {
            let offset = reader.offset
            let peer = try reader.readVarint()
            if let last = peers.last, peer <= last { throw reader.failure("the peer table is not in ascending order", at: offset) }
            peers.append(peer)
        }
        func readPeer() throws -> UInt64 {
            if peers.count == 1 { return peers[0] }
            let offset = reader.offset
            let index = try reader.readVarint()
            guard index < UInt64(peers.count) else { throw reader.failure("peer index \(index) is outside the \(peers.count) peers", at: offset) }
            return peers[Int(index)]
        }
        func readCounter(base: Int64) throws -> UInt32 {
            let offset = reader.offset
            let (counter, overflow) = base.addingReportingOverflow(try reader.readZigzag())
            guard !overflow, counter >= 0, counter <= Int64(UInt32.max) else {
                throw reader.failure("a text character's counter is outside 0 ... 2^32 − 1", at: offset)
            }
            return UInt32(counter)
        }
        let runCount = try reader.readCount(minimumItemSize: 2, what: "text runs")
        var runs: [TextRun] = []
        runs.reserveCapacity(runCount)
        var shownLengths = 0
        for _ in 0..<runCount {
            let headerOffset = reader.offset
            let header = try reader.readByte()
            guard header & ~runBits == 0, let left = Left(rawValue: header >> leftShift & 0b11),
                  let right = Right(rawValue: header >> rightShift & 0b11) else {
                throw reader.failure("unknown text run header \(header)", at: headerOffset)
            }
            let previous = runs.last
            let id: TextElementID
            if header & continues != 0 {
                guard let previous, UInt64(previous.id.counter) + UInt64(previous.length) <= UInt64(UInt32.max) else {
                    throw reader.failure("a text run continues no run before it", at: headerOffset)
                }
                id = previous.id.advanced(by: previous.length)
            } else {
                let peer = try readPeer()
                let base = previous.map { $0.id.peer == peer ? Int64($0.id.counter) + Int64($0.length) : 0 } ?? 0
                id = TextElementID(peer: peer, counter: try readCounter(base: base))
            }
            let lengthOffset = reader.offset
            let length = try reader.readInt(limit: Int(UInt32.max), what: "a text run's length")
            guard length > 0 else { throw reader.failure("a text run holds no character", at: lengthOffset) }
            let originLeft: TextElementID?
            switch left {
            case .absent: originLeft = nil
            case .previousLast:
                guard let previous else { throw reader.failure("the first text run's left origin names a run before it", at: headerOffset) }
                originLeft = previous.lastID
            case .previousIdentity:
                guard id.counter > 0 else { throw reader.failure("a text run at counter 0 has no identity before it", at: headerOffset) }
                originLeft = TextElementID(peer: id.peer, counter: id.counter - 1)
            case .written:
                let peer = try readPeer()
                originLeft = TextElementID(peer: peer, counter: try readCounter(base: Int64(id.counter)))
            }
            let originRight: TextElementID?
            switch right {
            case .absent: originRight = nil
            case .previousRight:
                guard let origin = previous?.originRight else {
                    throw reader.failure("a text run repeats a right origin the run before it does not have", at: headerOffset)
                }
                originRight = origin
            case .afterLeft:
                guard let originLeft, originLeft.counter < UInt32.max else {
                    throw reader.failure("a text run's right origin follows a left origin it does not have", at: headerOffset)
                }
                originRight = TextElementID(peer: originLeft.peer, counter: originLeft.counter + 1)
            case .written:
                let peer = try readPeer()
                originRight = TextElementID(peer: peer, counter: try readCounter(base: Int64((originLeft ?? id).counter)))
            }
            let isDeleted = header & deleted != 0
            if !isDeleted { shownLengths += length }
            runs.append(TextRun(id: id, length: length, originLeft: originLeft, originRight: originRight, scalars: [], isDeleted: isDeleted))
        }
        let shown: [Unicode.Scalar]
        if flags & charactersInColumn != 0 {
            try reader.expectEnd()
            guard let text = try column() else {
                throw reader.failure("the text's characters are in its record's column, which the snapshot does not hold")
            }
            shown = Array(text.unicodeScalars)
        } else {
            shown = Array(try reader.readString().unicodeScalars)
            try reader.expectEnd()
        }
        guard shown.count == shownLengths else {
            throw reader.failure("the text's runs show \(shownLengths) characters but \(shown.count) are stored")
        }
        var sequence = TextSequence()
        var next = 0
        var ranges: [UInt64: [(start: UInt32, length: Int)]] = [:]
        for var run in runs {
            if !run.isDeleted {
                run = TextRun(id: run.id, length: run.length, originLeft: run.originLeft, originRight: run.originRight,
                              scalars: ContiguousArray(shown[next..<next + run.length]), isDeleted: false)
                next += run.length
            }
            ranges[run.id.peer, default: []].append((run.id.counter, run.length))
            sequence.appendRun(run)
        }
        try TextCoding.checkTiling(ranges, reader: reader)
        return sequence
    }
}
