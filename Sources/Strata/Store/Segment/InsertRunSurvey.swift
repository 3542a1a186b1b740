import Foundation

/// What an insert run's columns hold, found in one walk over the run's rows before anything
/// is written (docs/FORMAT.md §13.2–§13.4): every value checked against its slot, and per
/// column the rows that hold a value and the bytes its integers or keys take as they are
/// and as differences, which decide the column's header; with a bound on the run's size.
///
/// One walk, row by row, that lends each row's values where the operation holds them: a
/// walk per column and question (nulls, deltas, the size, the check), each copying the
/// row's value list and the value, was a tenth of a bulk import's time
/// (docs/ARCHITECTURE.md, "A plain CSV goes from bytes to slots").
struct InsertRunSurvey {
    /// How the survey and the column writer treat a slot: no references, so that reading
    /// it per value costs no retain.
    enum SlotCode: Equatable {
        /// A transient slot: not written (§7).
        case transient
        case integer, double, date, decimal, string, boolean, data, uuid, uri
        /// A to-one: its keys may be written as differences (§13.4).
        case toOne
        case toMany
    }

    /// One column's counts.
    struct Column {
        /// Rows holding a value (not null).
        var present = 0
        /// Bytes the integers or keys take as zigzag varints, as they are and as
        /// differences from the previous one.
        var plain = 0
        var delta = 0
        var previous: Int64 = 0
    }

    /// Each slot's code, in slot order.
    let codes: [SlotCode]
    /// Each slot's counts, in slot order.
    private(set) var columns: [Column]
    /// At least the bytes the run takes (varints counted at their longest, strings and
    /// data at their length): room reserved at once for a body that is not streamed.
    private(set) var sizeBound = 0

    /// The code of each slot of `slots`, for the entity's run.
    static func codes(_ slots: SegmentEncoder.SlotTable.Slots) -> [SlotCode] {
        slots.shapes.indices.map { slot in
            guard !slots.isTransient[slot], let shape = slots.shapes[slot] else { return .transient }
            switch SegmentColumnKind(shape) {
            case .integer: return .integer
            case .double: return .double
            case .date: return .date
            case .decimal: return .decimal
            case .string: return .string
            case .boolean: return .boolean
            case .data: return .data
            case .uuid: return .uuid
            case .uri: return .uri
            case .toOne: return .toOne
            case .toMany: return .toMany
            }
        }
    }

    /// Walks the run's rows: the same checks in the same order as an insert written alone
    /// (value count, slot resolved, value fits its slot), so the same error for the same
    /// run.
    /// - Throws: what `check` makes of the first wrong row or value.
    init(_ rows: InsertRunValues, entity: EntityDescription, slots: SegmentEncoder.SlotTable.Slots,
         invalid: (String) -> StrataError) throws {
        let codes = Self.codes(slots)
        self.codes = codes
        var columns = Array(repeating: Column(), count: codes.count)
        let varint = 10
        var bound = 1 + 2 * varint + rows.count * varint
        try columns.withUnsafeMutableBufferPointer { columns in
            try rows.forEach { _, values in
                guard values.count == entity.slotCount else {
                    throw invalid("\(entity.name) has \(entity.slotCount) slots but the operation holds \(values.count) values")
                }
                for slot in values.indices {
                    guard let shape = slots.shapes[slot] else {
                        throw invalid("slot \(slot) is out of range for \(entity.name) (\(entity.slotCount) slots)")
                    }
                    let code = codes[slot]
                    if code == .transient { continue }
                    // The value alone is matched (a tuple of code and value copied it).
                    let size: Int
                    switch values[slot] {
                    case .null: continue
                    case .integer(let number) where code == .integer:
                        Self.count(number, in: &columns[slot])
                        size = varint
                    case .double where code == .double, .date where code == .date: size = varint
                    case .boolean where code == .boolean: size = 1
                    case .string(let text) where code == .string: size = varint + text.utf8.count
                    case .data(let bytes) where code == .data: size = varint + bytes.count
                    case .uuid where code == .uuid: size = 16
                    case .decimal where code == .decimal: size = 2 + varint + 17
                    case .uri(let url) where code == .uri: size = varint + url.absoluteString.utf8.count
                    default:
                        // Relationships (whose destinations are checked), and any value of
                        // the wrong kind: the general check and its reason.
                        if let reason = SegmentFormat.mismatch(values[slot], shape) {
                            throw invalid("\(entity.name).\(entity.slotNames[slot]): \(reason)")
                        }
                        switch values[slot] {
                        case .object(let id):
                            Self.count(id.primaryKey, in: &columns[slot])
                            size = 2 * varint
                        case .objects(let ids): size = varint + ids.count * 2 * varint
                        default: preconditionFailure("a value that fits its slot has the slot's kind")
                        }
                    }
                    columns[slot].present += 1
                    bound += size
                }
            }
        }
        self.columns = columns
        sizeBound = bound + codes.count * (1 + rows.count / 8 + 1)
    }

    /// Counts an integer or key of a column as it is and as a difference (§13.4).
    @inline(__always)
    private static func count(_ number: Int64, in column: inout Column) {
        column.plain += SegmentColumnHeader.varintSize(SegmentColumnHeader.zigzag(number))
        column.delta += SegmentColumnHeader.varintSize(SegmentColumnHeader.zigzag(number &- column.previous))
        column.previous = number
    }
}

/// The values of an insert run's operations, lent where the operations hold them: copied
/// into an array first, a million-row run took 8 MiB more at a bulk save's peak; read row
/// by row through `ArraySlice` and `Array` copies, each value cost retains and releases.
struct InsertRunValues {
    let run: ArraySlice<ChangeOperation>

    var count: Int { run.count }

    /// Calls `body` with each row's number (from 0) and values, in the run's order.
    @inline(__always)
    func forEach(_ body: (Int, UnsafeBufferPointer<PropertyValue>) throws -> Void) rethrows {
        try run.withUnsafeBufferPointer { operations in
            for row in operations.indices {
                guard case .insert(_, let values) = operations[row] else {
                    preconditionFailure("an insert run holds inserts only")
                }
                try values.withUnsafeBufferPointer { try body(row, $0) }
            }
        }
    }

    /// The first row's ID that is temporary, or nil.
    func firstTemporaryID() -> ManagedObjectID? {
        run.withUnsafeBufferPointer { operations in
            for row in operations.indices {
                guard case .insert(let id, _) = operations[row] else {
                    preconditionFailure("an insert run holds inserts only")
                }
                if id.isTemporaryID { return id }
            }
            return nil
        }
    }

    /// Calls `body` with each row's number (from 0) and primary key, in the run's order.
    @inline(__always)
    func forEachKey(_ body: (Int, Int64) throws -> Void) rethrows {
        try run.withUnsafeBufferPointer { operations in
            for row in operations.indices {
                guard case .insert(let id, _) = operations[row] else {
                    preconditionFailure("an insert run holds inserts only")
                }
                try body(row, id.primaryKey)
            }
        }
    }
}
