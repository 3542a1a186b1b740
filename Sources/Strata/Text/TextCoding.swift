import Foundation

/// The bytes of text edits (in segments, docs/FORMAT.md §17) and of texts with their
/// identities (in the snapshot's `strata_text` table, §18).
enum TextCoding {
    private static let hasLeft: UInt8 = 1
    private static let hasRight: UInt8 = 2
    private static let isDeleted: UInt8 = 4

    private static let insertStep: UInt8 = 0
    private static let deleteStep: UInt8 = 1

    // MARK: Identities

    static func write(_ id: TextElementID, to out: inout ByteWriter) {
        out.writeVarint(id.peer)
        out.writeVarint(UInt64(id.counter))
    }

    static func readID(from reader: inout ByteReader) throws -> TextElementID {
        let peer = try reader.readVarint()
        let counter = try reader.readVarint()
        guard counter <= UInt64(UInt32.max) else { throw reader.failure("a text character's counter \(counter) is past 2^32") }
        return TextElementID(peer: peer, counter: UInt32(counter))
    }

    private static func writeOrigins(_ left: TextElementID?, _ right: TextElementID?, flags: UInt8, to out: inout ByteWriter) {
        out.writeByte(flags | (left == nil ? 0 : hasLeft) | (right == nil ? 0 : hasRight))
        if let left { write(left, to: &out) }
        if let right { write(right, to: &out) }
    }

    private static func writeScalars(_ scalars: some Collection<Unicode.Scalar>, to out: inout ByteWriter) {
        out.writeString(String(scalars: scalars))
    }

    private static func readScalars(from reader: inout ByteReader, count: Int? = nil) throws -> [Unicode.Scalar] {
        let scalars = Array(try reader.readString().unicodeScalars)
        if let count, scalars.count != count {
            throw reader.failure("a text run of \(count) characters holds \(scalars.count)")
        }
        return scalars
    }

    // MARK: Edits (§17)

    /// Writes an edit as logged: its steps, each an insertion or a deletion.
    static func write(_ edit: TextEdit, to out: inout ByteWriter) throws {
        out.writeVarint(UInt64(edit.steps.count))
        for step in edit.steps {
            switch step {
            case .insert(let id, let left, let right, let scalars):
                out.writeByte(insertStep)
                write(id, to: &out)
                writeOrigins(left, right, flags: 0, to: &out)
                writeScalars(scalars, to: &out)
            case .delete(let start, let scalars):
                out.writeByte(deleteStep)
                write(start, to: &out)
                writeScalars(scalars, to: &out)
            case .restore:
                throw StrataError(.invalidArgument, "A text edit to save still holds a restore without identities.")
            }
        }
    }

    static func readEdit(from reader: inout ByteReader) throws -> TextEdit {
        let count = try reader.readCount(minimumItemSize: 4, what: "text edit steps")
        var steps: [TextEdit.Step] = []
        steps.reserveCapacity(count)
        for _ in 0..<count {
            let position = reader.offset
            switch try reader.readByte() {
            case insertStep:
                let id = try readID(from: &reader)
                let (left, right, _) = try readOrigins(from: &reader)
                let scalars = try readScalars(from: &reader)
                guard !scalars.isEmpty else { throw reader.failure("a text insertion inserts nothing", at: position) }
                steps.append(.insert(id: id, originLeft: left, originRight: right, scalars: scalars))
            case deleteStep:
                let start = try readID(from: &reader)
                let scalars = try readScalars(from: &reader)
                guard !scalars.isEmpty else { throw reader.failure("a text deletion deletes nothing", at: position) }
                steps.append(.delete(start: start, scalars: scalars))
            case let tag:
                throw reader.failure("unknown text edit step \(tag)", at: position)
            }
        }
        return TextEdit(steps: steps)
    }

    private static func readOrigins(from reader: inout ByteReader) throws -> (TextElementID?, TextElementID?, UInt8) {
        let flags = try reader.readByte()
        guard flags & ~(hasLeft | hasRight | isDeleted) == 0 else { throw reader.failure("unknown text flags \(flags)") }
        let left = flags & hasLeft != 0 ? try readID(from: &reader) : nil
        let right = flags & hasRight != 0 ? try readID(from: &reader) : nil
        return (left, right, flags)
    }

    // MARK: Texts (§18)

    /// A text with its identities: its runs in order, tombstones with their lengths only.
    static func encode(_ sequence: TextSequence) -> [UInt8] {
        var out = ByteWriter()
        out.writeVarint(UInt64(sequence.runCount))
        for run in sequence.runsInOrder {
            write(run.id, to: &out)
            out.writeVarint(UInt64(run.length))
            writeOrigins(run.originLeft, run.originRight, flags: run.isDeleted ? isDeleted : 0, to: &out)
            if !run.isDeleted { writeScalars(run.scalars, to: &out) }
        }
        return out.bytes
    }

    /// The text `encode` or ``TextStatePacking/encode(_:charactersInColumn:)`` wrote;
    /// `column` gives the record's column's string, which a packed state may take its
    /// characters from (docs/FORMAT.md §21).
    /// - Throws: `.corruptSegment` naming the byte that is wrong.
    static func decodeSequence(_ bytes: [UInt8], column: () throws -> String? = { nil }) throws -> TextSequence {
        if TextStatePacking.isPacked(bytes) { return try TextStatePacking.decode(bytes, column: column) }
        var reader = ByteReader(bytes)
        let count = try reader.readCount(minimumItemSize: 4, what: "text runs")
        var sequence = TextSequence()
        var ranges: [UInt64: [(start: UInt32, length: Int)]] = [:]
        for _ in 0..<count {
            let id = try readID(from: &reader)
            let length = try reader.readInt(limit: Int(UInt32.max), what: "a text run's length")
            guard length > 0 else { throw reader.failure("a text run holds no character") }
            let (left, right, flags) = try readOrigins(from: &reader)
            let deleted = flags & isDeleted != 0
            let scalars = deleted ? [] : try readScalars(from: &reader, count: length)
            ranges[id.peer, default: []].append((id.counter, length))
            sequence.appendRun(TextRun(id: id, length: length, originLeft: left, originRight: right,
                                       scalars: ContiguousArray(scalars), isDeleted: deleted))
        }
        try reader.expectEnd()
        try checkTiling(ranges, reader: reader)
        return sequence
    }

    /// Every character a peer inserted is held once: its runs tile 0 ..< its count.
    /// - Throws: `.corruptSegment` naming the peer and counter where they do not.
    static func checkTiling(_ ranges: [UInt64: [(start: UInt32, length: Int)]], reader: ByteReader) throws {
        for (peer, list) in ranges {
            var next: UInt64 = 0
            for range in list.sorted(by: { $0.start < $1.start }) {
                guard UInt64(range.start) == next else {
                    throw reader.failure("the text's characters of peer \(peer) overlap or miss one at \(min(UInt64(range.start), next))")
                }
                next += UInt64(range.length)
            }
        }
    }
}

extension TextSequence {
    /// Appends a run read back from its encoding, after every run held.
    mutating func appendRun(_ run: TextRun) {
        let chunk = order.last ?? 0
        insert(run, chunk: chunk, run: chunks.isEmpty ? 0 : chunks[chunk].runs.count)
    }
}
