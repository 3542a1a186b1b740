import Foundation

/// Reads single slots from the current row of a snapshot cursor whose columns
/// (``SnapshotRowLayout/columns``) start at `offset` — what ``StoredRecordRow`` reads a
/// record's values from when the snapshot row is all of the record (nothing uncompacted,
/// no to-manys to fill: ``DocumentFetch/forEachStoredRow(_:)``).
///
/// Integers, numbers, booleans, dates and ASCII text are read as SQLite holds them;
/// everything else (and a stored value that does not fit its attribute, which raises the
/// error every read raises) is decoded as ``SnapshotRowReader/decodeColumns(_:from:_:scopes:)``
/// decodes it, so a slot reads as the same value either way.
final class SnapshotColumnCursor {
    /// How one slot is read: plain values (an index and a kind), so looking a slot up
    /// retains nothing.
    private struct SlotRead {
        enum Kind { case template, integer, boolean, double, date, string, decoded }
        var kind: Kind
        /// The column's position in the statement's row.
        var position: Int32 = 0
        /// The slot's entry in the decoder's ``SnapshotRowLayout/EntityDecoder/columns``.
        var entry: Int32 = 0
    }

    private let statement: SQLiteStatement
    private let reader: SnapshotRowReader
    private let offset: Int
    private var decoder: SnapshotRowLayout.EntityDecoder
    private var reads: [SlotRead]
    private var readsByEntity: [Int: (decoder: SnapshotRowLayout.EntityDecoder, reads: [SlotRead])] = [:]
    private var entityIndex: Int
    private var scopes = ObjectIDScopeCache()

    /// A cursor over `statement`'s rows of the entity at `entityIndex`, decoded by `decoder`.
    init(statement: SQLiteStatement, offset: Int, reader: SnapshotRowReader,
         entityIndex: Int, decoder: SnapshotRowLayout.EntityDecoder) {
        self.statement = statement
        self.offset = offset
        self.reader = reader
        self.entityIndex = entityIndex
        self.decoder = decoder
        reads = Self.reads(of: decoder, offset: offset)
        readsByEntity[entityIndex] = (decoder, reads)
    }

    /// Reads the rows that follow as records of the entity at `index`.
    func use(entityIndex index: Int, decoder: SnapshotRowLayout.EntityDecoder) {
        guard index != entityIndex else { return }
        if let known = readsByEntity[index] {
            (self.decoder, reads) = known
        } else {
            (self.decoder, reads) = (decoder, Self.reads(of: decoder, offset: offset))
            readsByEntity[index] = (decoder, reads)
        }
        entityIndex = index
    }

    private static func reads(of decoder: SnapshotRowLayout.EntityDecoder, offset: Int) -> [SlotRead] {
        var reads = [SlotRead](repeating: SlotRead(kind: .template), count: decoder.template.count)
        for (entry, column) in decoder.columns.enumerated() {
            switch column {
            case .attribute(let slot, let position, let type, _):
                let kind: SlotRead.Kind
                switch type.valueKind {
                case .integer: kind = .integer
                case .boolean: kind = .boolean
                case .double: kind = .double
                case .date: kind = .date
                case .string: kind = .string
                default: kind = .decoded
                }
                reads[slot] = SlotRead(kind: kind, position: Int32(offset + position), entry: Int32(entry))
            case .toOne(let slot, _, _, _):
                reads[slot] = SlotRead(kind: .decoded, entry: Int32(entry))
            }
        }
        return reads
    }

    /// The value in `slot` of the current row (``StoredRecordRow/column(_:)``).
    func column(_ slot: Int) throws -> StoredRecordRow.Column {
        guard slot >= 0, slot < reads.count else { return .null }
        let read = reads[slot]
        let position = Int(read.position)
        switch read.kind {
        case .template: return .value(decoder.template[slot])
        case .decoded: return try decoded(slot, read)
        case .integer, .boolean, .double, .date, .string: break
        }
        switch (read.kind, statement.columnType(at: position)) {
        // As the decoder leaves a NULL column: the template's value, null for an attribute.
        case (_, .null): return .null
        case (.integer, .integer): return .integer(statement.int64(at: position))
        case (.boolean, .integer): return .boolean(statement.int64(at: position) != 0)
        case (.double, .real): return .double(statement.double(at: position))
        case (.double, .integer): return .double(Double(statement.int64(at: position)))
        case (.date, .real): return .date(Date(timeIntervalSinceReferenceDate: statement.double(at: position)))
        case (.date, .integer): return .date(Date(timeIntervalSinceReferenceDate: Double(statement.int64(at: position))))
        case (.string, .text):
            let bytes = statement.unsafeTextBytes(at: position)
            // Beyond ASCII the text is made a `String` as every read makes it (which
            // replaces bytes that are not UTF-8).
            guard Self.isASCII(bytes) else { return .value(.string(String(decoding: bytes, as: UTF8.self))) }
            return .text(bytes)
        default:
            // A stored value of another type: decoded, which raises the read's error.
            return try decoded(slot, read)
        }
    }

    private func decoded(_ slot: Int, _ read: SlotRead) throws -> StoredRecordRow.Column {
        let value = try reader.decode(decoder.columns[Int(read.entry)], statement, from: offset, scopes: &scopes)
        return .value(value ?? decoder.template[slot])
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var any: UInt8 = 0
        for byte in bytes { any |= byte }
        return any < 0x80
    }
}
