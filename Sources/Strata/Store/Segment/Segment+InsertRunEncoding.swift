import Foundation

/// Format v2 insert runs (docs/FORMAT.md §13.2–§13.4): consecutive inserts of one entity
/// written as a column of keys and one column per persistent slot.
extension SegmentEncoder {
    /// The end of the run of inserts of one entity that starts at `start` (`start + 1`
    /// when the operation there is not an insert or the next one does not continue it).
    /// The run keeps the group's order: it stops at the first operation that is not an
    /// insert of the same entity.
    func insertRunEnd(_ operations: [ChangeOperation], from start: Int) -> Int {
        guard case .insert(let first, _) = operations[start] else { return start + 1 }
        var end = start + 1
        while end < operations.count, case .insert(let id, _) = operations[end], id.entity === first.entity {
            end += 1
        }
        return end
    }

    /// Writes two or more inserts of one entity as an insert run (§13.2): tag, entity, row
    /// count, the keys column, then one column per persistent slot in slot order.
    func writeInsertRun(_ run: ArraySlice<ChangeOperation>, to out: inout ByteWriter, group: UInt64) throws {
        let rows = InsertRunRows(run: run)
        let entity = try checkedEntity(of: run[run.startIndex].objectID, group: group)
        for operation in run { _ = try checkedEntity(of: operation.objectID, group: group) }
        let slots = slotTable.slots(of: entity)
        // Everything is checked before anything is written, as for a single insert.
        for values in rows {
            guard values.count == entity.slotCount else {
                throw invalid("\(entity.name) has \(entity.slotCount) slots but the operation holds \(values.count) values",
                              group: group, entity: entity.name)
            }
            for (slot, value) in values.enumerated() {
                guard let shape = slots.shapes[slot] else {
                    throw invalid("slot \(slot) is out of range for \(entity.name) (\(entity.slotCount) slots)",
                                  group: group, entity: entity.name)
                }
                if slots.isTransient[slot] { continue }
                if let reason = SegmentFormat.mismatch(value, shape) {
                    throw invalid("\(entity.name).\(entity.slotNames[slot]): \(reason)", group: group, entity: entity.name)
                }
            }
        }
        // Room for the whole run at once: growing a bulk save's body by doubling held the old
        // buffer beside the new one, tens of MiB at W1's save (docs/ARCHITECTURE.md,
        // "Saves"). The bound is generous; pages the run never writes are never touched. A
        // streamed body needs no room beyond a chunk.
        if stream == nil { out.reserveCapacity(additional: Self.sizeBound(of: rows, isTransient: slots.isTransient)) }
        out.writeByte(SegmentFormat.OperationTag.insertRun.rawValue)
        out.writeVarint(UInt64(entity.index))
        out.writeVarint(UInt64(rows.count))
        // Keys: the first as zigzag, then each as zigzag(key - previous - 1), so that
        // consecutive keys cost one byte (wrapping, so that every Int64 pair has a code).
        var previous: Int64 = 0
        for (row, operation) in run.enumerated() {
            let key = operation.objectID.primaryKey
            out.writeZigzag(row == 0 ? key : key &- previous &- 1)
            previous = key
            if row & Self.rowsBetweenDrains == 0 { try drain(&out) }
        }
        for slot in 0..<entity.slotCount where !slots.isTransient[slot] {
            try writeColumn(SegmentColumnKind(slots.shapes[slot]!), slot: slot, rows: rows, to: &out, group: group)
            try drain(&out)
        }
    }

    /// At least the bytes an insert run of `rows` takes (§13.2–13.4): varints counted at their
    /// longest, strings and data at their length.
    private static func sizeBound(of rows: InsertRunRows, isTransient: [Bool]) -> Int {
        let varint = 10
        var bound = 1 + 2 * varint + rows.count * varint
        for values in rows {
            for (slot, value) in values.enumerated() where !isTransient[slot] {
                switch value {
                case .null: continue
                case .boolean: bound += 1
                case .integer, .double, .date: bound += varint
                case .uuid: bound += 16
                case .decimal: bound += 2 + varint + 17
                case .string(let text): bound += varint + text.utf8.count
                case .data(let bytes): bound += varint + bytes.count
                case .uri(let url): bound += varint + url.absoluteString.utf8.count
                case .object: bound += 2 * varint
                case .objects(let ids): bound += varint + ids.count * 2 * varint
                }
            }
        }
        let columns = rows.first?.count ?? 0
        return bound + columns * (1 + rows.count / 8 + 1)
    }

    /// One column (§13.3): header byte, presence bitmap when some rows are null and some
    /// not, then the values of the rows that hold one, without tags (§13.4).
    private func writeColumn(_ kind: SegmentColumnKind, slot: Int, rows: InsertRunRows,
                             to out: inout ByteWriter, group: UInt64) throws {
        var present = 0
        for values in rows where !Self.isNull(values[slot]) { present += 1 }
        var header = present == rows.count ? SegmentColumnHeader.everyRow
            : present == 0 ? SegmentColumnHeader.noRow : SegmentColumnHeader.bitmap
        let useDelta = kind.allowsDelta && present > 1 && deltaIsSmaller(kind, slot: slot, rows: rows)
        if useDelta { header |= SegmentColumnHeader.delta }
        out.writeByte(header)
        if present == 0 { return }
        if header & SegmentColumnHeader.presenceMask == SegmentColumnHeader.bitmap {
            var byte: UInt8 = 0
            for (row, values) in rows.enumerated() {
                if !Self.isNull(values[slot]) { byte |= 1 << UInt8(row % 8) }
                if row % 8 == 7 || row == rows.count - 1 {
                    out.writeByte(byte)
                    byte = 0
                }
            }
        }
        var previous: Int64 = 0
        for (row, values) in rows.enumerated() {
            if row & Self.rowsBetweenDrains == 0 { try drain(&out) }
            let value = values[slot]
            switch (kind, value) {
            case (_, .null): continue
            case (.integer, .integer(let number)):
                out.writeZigzag(useDelta ? number &- previous : number)
                previous = number
            case (.double, .double(let number)): out.writeDouble(number)
            case (.date, .date(let date)): out.writeDouble(date.timeIntervalSinceReferenceDate)
            case (.decimal, .decimal(let number)): try writeDecimal(number, to: &out, group: group)
            case (.string, .string(let text)): out.writeString(text)
            case (.boolean, .boolean(let flag)): out.writeByte(flag ? 1 : 0)
            case (.data, .data(let bytes)): out.writeBytes(bytes)
            case (.uuid, .uuid(let uuid)): withUnsafeBytes(of: uuid.uuid) { out.writeRaw($0) }
            case (.uri, .uri(let url)): out.writeString(url.absoluteString)
            case (.toOne(_, let writesEntity), .object(let id)):
                let entity = try checkedEntity(of: id, group: group)
                if writesEntity { out.writeVarint(UInt64(entity.index)) }
                out.writeZigzag(useDelta ? id.primaryKey &- previous : id.primaryKey)
                previous = id.primaryKey
            case (.toMany, .objects(let ids)):
                out.writeVarint(UInt64(ids.count))
                for id in ids { try writeObjectID(id, to: &out, group: group) }
            default:
                // `writeInsertRun` checked every value against its slot.
                preconditionFailure("\(withArticle(ModelValueRules.kindName(value))) value in \(withArticle(kind.name)) column")
            }
        }
    }

    /// A streamed body is drained every this many + 1 rows of a column (a power of two
    /// less one, as a mask).
    static let rowsBetweenDrains = (1 << 14) - 1

    @inline(__always)
    private static func isNull(_ value: PropertyValue) -> Bool {
        if case .null = value { return true }
        return false
    }

    /// Whether differences from the previous value take fewer bytes than the values
    /// themselves (sequential numbers and keys: yes; unrelated ones: usually not).
    private func deltaIsSmaller(_ kind: SegmentColumnKind, slot: Int, rows: InsertRunRows) -> Bool {
        var plain = 0, delta = 0
        var previous: Int64 = 0
        for values in rows {
            let number: Int64
            switch values[slot] {
            case .integer(let value): number = value
            case .object(let id): number = id.primaryKey
            default: continue
            }
            plain += SegmentColumnHeader.varintSize(SegmentColumnHeader.zigzag(number))
            delta += SegmentColumnHeader.varintSize(SegmentColumnHeader.zigzag(number &- previous))
            previous = number
        }
        return delta < plain
    }
}

/// The values of an insert run's operations, read where the operations hold them: copied
/// into an array first, a million-row run took 8 MiB more at a bulk save's peak.
struct InsertRunRows: RandomAccessCollection {
    let run: ArraySlice<ChangeOperation>

    var startIndex: Int { 0 }
    var endIndex: Int { run.count }

    subscript(row: Int) -> [PropertyValue] {
        guard case .insert(_, let values) = run[run.startIndex + row] else {
            preconditionFailure("an insert run holds inserts only")
        }
        return values
    }
}
