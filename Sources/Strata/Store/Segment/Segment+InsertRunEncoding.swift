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
    ///
    /// One walk over the rows checks every value and counts what the columns' headers need
    /// (``InsertRunSurvey``); then each column walks the rows once, lent their values
    /// where the operations hold them (docs/ARCHITECTURE.md, "A plain CSV goes from bytes
    /// to slots").
    func writeInsertRun(_ run: ArraySlice<ChangeOperation>, to out: inout ByteWriter, group: UInt64) throws {
        let rows = InsertRunValues(run: run)
        let entity = try checkedEntity(of: run[run.startIndex].objectID, group: group)
        // Every row is of that entity (``insertRunEnd(_:from:)``): what is left to refuse
        // is a temporary ID, with the error `checkedEntity` gives.
        if let temporary = rows.firstTemporaryID() { _ = try checkedEntity(of: temporary, group: group) }
        let slots = slotTable.slots(of: entity)
        // Everything is checked before anything is written, as for a single insert.
        // The error made from the segment's number alone: a closure that captured the
        // encoder took a copy of it for every row.
        let sequence = sequence
        let survey = try InsertRunSurvey(rows, entity: entity, slots: slots) {
            Self.invalid($0, sequence: sequence, group: group, entity: entity.name)
        }
        // Room for the whole run at once: growing a bulk save's body by doubling held the old
        // buffer beside the new one, tens of MiB at W1's save (docs/ARCHITECTURE.md,
        // "Saves"). The bound is generous; pages the run never writes are never touched. A
        // streamed body needs no room beyond a chunk.
        if stream == nil { out.reserveCapacity(additional: survey.sizeBound) }
        out.writeByte(SegmentFormat.OperationTag.insertRun.rawValue)
        out.writeVarint(UInt64(entity.index))
        out.writeVarint(UInt64(rows.count))
        // Keys: the first as zigzag, then each as zigzag(key - previous - 1), so that
        // consecutive keys cost one byte (wrapping, so that every Int64 pair has a code).
        var previous: Int64 = 0
        try rows.forEachKey { row, key in
            out.writeZigzag(row == 0 ? key : key &- previous &- 1)
            previous = key
            if row & Self.rowsBetweenDrains == 0 { try drain(&out) }
        }
        for slot in survey.codes.indices where survey.codes[slot] != .transient {
            try writeColumn(slot, survey: survey, shape: slots.shapes[slot]!, rows: rows, to: &out, group: group)
            try drain(&out)
        }
    }

    /// One column (§13.3): header byte, presence bitmap when some rows are null and some
    /// not, then the values of the rows that hold one, without tags (§13.4).
    private func writeColumn(_ slot: Int, survey: InsertRunSurvey, shape: SegmentFormat.SlotShape, rows: InsertRunValues,
                             to out: inout ByteWriter, group: UInt64) throws {
        let code = survey.codes[slot]
        let column = survey.columns[slot]
        let present = column.present
        var header = present == rows.count ? SegmentColumnHeader.everyRow
            : present == 0 ? SegmentColumnHeader.noRow : SegmentColumnHeader.bitmap
        // Differences when they take fewer bytes than the values themselves (sequential
        // numbers and keys: yes; unrelated ones: usually not).
        let useDelta = (code == .integer || code == .toOne) && present > 1 && column.delta < column.plain
        if useDelta { header |= SegmentColumnHeader.delta }
        out.writeByte(header)
        if present == 0 { return }
        if header & SegmentColumnHeader.presenceMask == SegmentColumnHeader.bitmap {
            var byte: UInt8 = 0
            let last = rows.count - 1
            rows.forEach { row, values in
                if case .null = values[slot] {} else { byte |= 1 << UInt8(row % 8) }
                if row % 8 == 7 || row == last {
                    out.writeByte(byte)
                    byte = 0
                }
            }
        }
        // One loop per kind, matching the value alone: a switch over (kind, value) built a
        // tuple, a copy of each value.
        var previous: Int64 = 0
        switch code {
        case .integer:
            try rows.forEach { row, values in
                if row & Self.rowsBetweenDrains == 0 { try drain(&out) }
                guard case .integer(let number) = values[slot] else { return }
                out.writeZigzag(useDelta ? number &- previous : number)
                previous = number
            }
        case .string:
            try rows.forEach { row, values in
                if row & Self.rowsBetweenDrains == 0 { try drain(&out) }
                guard case .string(let text) = values[slot] else { return }
                out.writeString(text)
            }
        case .double:
            try rows.forEach { row, values in
                if row & Self.rowsBetweenDrains == 0 { try drain(&out) }
                guard case .double(let number) = values[slot] else { return }
                out.writeDouble(number)
            }
        case .date:
            try rows.forEach { row, values in
                if row & Self.rowsBetweenDrains == 0 { try drain(&out) }
                guard case .date(let date) = values[slot] else { return }
                out.writeDouble(date.timeIntervalSinceReferenceDate)
            }
        case .boolean:
            try rows.forEach { row, values in
                if row & Self.rowsBetweenDrains == 0 { try drain(&out) }
                guard case .boolean(let flag) = values[slot] else { return }
                out.writeByte(flag ? 1 : 0)
            }
        case .decimal, .data, .uuid, .uri, .toOne, .toMany, .transient:
            // A to-one into a hierarchy names each key's entity (``SegmentColumnKind``).
            var writesEntity = false
            if case .toOne(let destination) = shape { writesEntity = !destination.subentities.isEmpty }
            try rows.forEach { row, values in
                if row & Self.rowsBetweenDrains == 0 { try drain(&out) }
                switch values[slot] {
                case .null: return
                case .decimal(let number) where code == .decimal: try writeDecimal(number, to: &out, group: group)
                case .data(let bytes) where code == .data: out.writeBytes(bytes)
                case .uuid(let uuid) where code == .uuid: withUnsafeBytes(of: uuid.uuid) { out.writeRaw($0) }
                case .uri(let url) where code == .uri: out.writeString(url.absoluteString)
                case .object(let id) where code == .toOne:
                    let entity = try checkedEntity(of: id, group: group)
                    if writesEntity { out.writeVarint(UInt64(entity.index)) }
                    out.writeZigzag(useDelta ? id.primaryKey &- previous : id.primaryKey)
                    previous = id.primaryKey
                case .objects(let ids) where code == .toMany:
                    out.writeVarint(UInt64(ids.count))
                    for id in ids { try writeObjectID(id, to: &out, group: group) }
                case let value:
                    // The survey checked every value against its slot.
                    preconditionFailure("\(withArticle(ModelValueRules.kindName(value))) value in a \(code) column")
                }
            }
        }
    }

    /// A streamed body is drained every this many + 1 rows of a column (a power of two
    /// less one, as a mask).
    static let rowsBetweenDrains = (1 << 14) - 1
}
