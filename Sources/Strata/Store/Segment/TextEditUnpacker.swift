import Foundation

/// Reads a format v5 body's text edits (docs/FORMAT.md §19) as hostile input: the peer
/// table, the body's text and its step lengths first (§19.2, §19.3), then each splice's
/// steps against the registers of §19.5. Every reference is checked before it is followed
/// — a peer index in the table, a counter in 0 ... 2^32 − 1, scalars inside the text — and
/// refused with the byte where it is; at the end of the body every scalar of its text and
/// every length must have been taken (§19.7).
struct TextEditUnpacker {
    private var peers: [UInt64] = []
    private var text: [Unicode.Scalar] = []
    /// Reads the step lengths where the body holds them (offsets stay the body's).
    private var lengths = ByteReader([])
    private var lengthsEnd = 0
    private var registers = PackedTextStep.Registers()
    /// The object and slot of the body's last splice (tag `07` repeats them, §19.6).
    private(set) var lastTarget: (id: ManagedObjectID, slot: Int)?

    /// Reads the peer table and the body's text.
    mutating func readTables(from reader: inout ByteReader) throws {
        let count = try reader.readCount(minimumItemSize: 1, what: "peer count")
        peers.reserveCapacity(count)
        for _ in 0..<count {
            let offset = reader.offset
            let peer = try reader.readVarint()
            if let last = peers.last, peer <= last {
                throw reader.failure("the peer table is not in ascending order", at: offset)
            }
            peers.append(peer)
        }
        text = Array(try reader.readString().unicodeScalars)
        let range = try reader.readByteRange()
        lengths = ByteReader(reader.bytes)
        _ = try lengths.skip(count: range.lowerBound)
        lengthsEnd = range.upperBound
    }

    /// Records the target of a splice read with tag `06`.
    mutating func setTarget(_ id: ManagedObjectID, slot: Int) {
        lastTarget = (id, slot)
    }

    /// Reads an edit's step count and steps (§19.4).
    mutating func readEdit(from reader: inout ByteReader) throws -> TextEdit {
        let count = try reader.readCount(minimumItemSize: 1, what: "text edit steps")
        var steps: [TextEdit.Step] = []
        steps.reserveCapacity(count)
        for _ in 0..<count {
            let position = reader.offset
            let header = try reader.readByte()
            switch header & PackedTextStep.kindMask {
            case PackedTextStep.insertion:
                steps.append(try readInsertion(header, at: position, from: &reader))
            case PackedTextStep.deletion:
                steps.append(try readDeletion(header, at: position, from: &reader))
            default:
                throw reader.failure("unknown text step header 0x\(String(header, radix: 16))", at: position)
            }
        }
        return TextEdit(steps: steps)
    }

    /// Checks that every scalar of the body's text and every step length was taken.
    func finish(_ reader: ByteReader) throws {
        guard registers.cursor == text.count else {
            throw reader.failure("the segment's text holds \(text.count) scalars but its steps take \(registers.cursor)")
        }
        guard lengths.offset == lengthsEnd else {
            throw lengths.failure("the segment's step lengths go on after its last step")
        }
    }

    private mutating func readInsertion(_ header: UInt8, at position: Int, from reader: inout ByteReader) throws -> TextEdit.Step {
        guard header & ~PackedTextStep.insertionBits == 0,
              let leftMode = PackedTextStep.OriginLeft(rawValue: header >> PackedTextStep.leftShift & 0b11),
              let rightMode = PackedTextStep.OriginRight(rawValue: header >> PackedTextStep.rightShift & 0b11)
        else { throw reader.failure("unknown text step header 0x\(String(header, radix: 16))", at: position) }
        let id: TextElementID
        if header & PackedTextStep.continues != 0 {
            guard let next = registers.insertEnd else {
                throw reader.failure("a text insertion continues no earlier insertion", at: position)
            }
            id = next
        } else {
            let peer = try readPeer(from: &reader)
            let offset = reader.offset
            let counter = try reader.readVarint()
            guard counter <= UInt64(UInt32.max) else { throw reader.failure("a text character's counter \(counter) is past 2^32", at: offset) }
            id = TextElementID(peer: peer, counter: UInt32(counter))
        }
        let left: TextElementID?
        switch leftMode {
        case .absent: left = nil
        case .previousIdentity:
            guard id.counter > 0 else { throw reader.failure("a text insertion at counter 0 has no previous identity", at: position) }
            left = TextElementID(peer: id.peer, counter: id.counter - 1)
        case .written: left = try readRelative(to: id.counter, from: &reader)
        }
        let right: TextElementID?
        switch rightMode {
        case .absent: right = nil
        case .sameAsPrevious:
            guard let last = registers.lastRight else {
                throw reader.failure("a text insertion repeats a right origin no earlier insertion had", at: position)
            }
            right = last
        case .afterLeft:
            guard let left, left.counter < UInt32.max else {
                throw reader.failure("a text insertion's right origin follows a left origin it does not have", at: position)
            }
            right = TextElementID(peer: left.peer, counter: left.counter + 1)
        case .written: right = try readRelative(to: left?.counter ?? id.counter, from: &reader)
        }
        let scalars = try readScalars(distance: nil)
        registers.inserted(id, count: scalars.count, right: right)
        return .insert(id: id, originLeft: left, originRight: right, scalars: scalars)
    }

    private mutating func readDeletion(_ header: UInt8, at position: Int, from reader: inout ByteReader) throws -> TextEdit.Step {
        guard header & ~PackedTextStep.deletionBits == 0 else {
            throw reader.failure("unknown text step header 0x\(String(header, radix: 16))", at: position)
        }
        if header & PackedTextStep.takesBack != 0 {
            guard header & PackedTextStep.backReference == 0 else {
                throw reader.failure("unknown text step header 0x\(String(header, radix: 16))", at: position)
            }
            let countOffset = lengths.offset
            let count = try readLength()
            guard let start = registers.takenBackStart(length: count), count <= registers.cursor else {
                throw lengths.failure("a text deletion takes back \(count) characters, more than were inserted before it", at: countOffset)
            }
            return .delete(start: start, scalars: Array(text[(registers.cursor - count)..<registers.cursor]))
        }
        let peer = try readPeer(from: &reader)
        let start = try readCounter(base: registers.deletionBase(for: peer), from: &reader)
        var distance: (value: UInt64, offset: Int)?
        if header & PackedTextStep.backReference != 0 {
            let offset = reader.offset
            let value = try reader.readVarint()
            distance = (value, offset)
        }
        let scalars = try readScalars(distance: distance)
        return .delete(start: TextElementID(peer: peer, counter: start), scalars: scalars)
    }

    /// A step's length from the lengths, at least 1.
    private mutating func readLength() throws -> Int {
        let offset = lengths.offset
        guard offset < lengthsEnd else { throw lengths.failure("the segment's step lengths end before its steps do") }
        let count = try lengths.readVarint()
        guard lengths.offset <= lengthsEnd else { throw lengths.failure("a step length runs past the lengths", at: offset) }
        guard count >= 1 else { throw lengths.failure("a text step of no characters", at: offset) }
        guard count <= UInt64(text.count) else {
            throw lengths.failure("a text step of \(count) characters where the segment's text has \(text.count)", at: offset)
        }
        return Int(count)
    }

    /// A step's length, then its scalars: the text's next ones, or (with a distance) ones
    /// that far back in the text, which must lie wholly before the steps' place in it.
    private mutating func readScalars(distance: (value: UInt64, offset: Int)?) throws -> [Unicode.Scalar] {
        let countOffset = lengths.offset
        let count = try readLength()
        if let distance {
            guard distance.value >= UInt64(count), distance.value <= UInt64(registers.cursor) else {
                throw lengths.failure("a text deletion refers \(distance.value) scalars back, outside the \(registers.cursor) before it", at: distance.offset)
            }
            let start = registers.cursor - Int(distance.value)
            return Array(text[start..<start + count])
        }
        let available = text.count - registers.cursor
        guard count <= available else {
            throw lengths.failure("a text step of \(count) characters where the segment's text has \(available) left", at: countOffset)
        }
        let start = registers.cursor
        registers.cursor += count
        return Array(text[start..<start + count])
    }

    /// A peer index (written only when the table has more than one peer) as its peer.
    private func readPeer(from reader: inout ByteReader) throws -> UInt64 {
        if peers.count == 1 { return peers[0] }
        let offset = reader.offset
        let index = try reader.readVarint()
        guard index < UInt64(peers.count) else {
            throw reader.failure("peer index \(index) is outside the segment's \(peers.count) peers", at: offset)
        }
        return peers[Int(index)]
    }

    /// A peer, then a counter written as a difference from `base`.
    private func readRelative(to base: UInt32, from reader: inout ByteReader) throws -> TextElementID {
        let peer = try readPeer(from: &reader)
        return TextElementID(peer: peer, counter: try readCounter(base: Int64(base), from: &reader))
    }

    /// A zigzag difference from `base` that must give a counter in 0 ... 2^32 − 1.
    private func readCounter(base: Int64, from reader: inout ByteReader) throws -> UInt32 {
        let offset = reader.offset
        let difference = try reader.readZigzag()
        let (counter, overflow) = base.addingReportingOverflow(difference)
        guard !overflow, counter >= 0, counter <= Int64(UInt32.max) else {
            throw reader.failure("a text character's counter is outside 0 ... 2^32 − 1", at: offset)
        }
        return UInt32(counter)
    }
}
