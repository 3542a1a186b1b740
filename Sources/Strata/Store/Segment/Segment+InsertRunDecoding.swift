import Foundation

/// Reading format v2 insert runs (docs/FORMAT.md §13.2–§13.5) as hostile input: the row
/// count is checked against the bytes left (a row takes at least its key's byte) and the
/// group's operations left before anything is reserved, and each column is read straight
/// into the rows' values arrays, so a run costs one allocation per row (its `values`
/// array, which `ChangeOperation.insert` holds) and none per value but strings, data and
/// to-many sets.
extension SegmentDecoder {
    /// Reads an insert run (its tag still unread) and appends one insert per row.
    /// - Parameter limit: The operations the group has left; a run may not hold more.
    mutating func readInsertRun(into operations: inout [ChangeOperation], limit: Int) throws {
        _ = try reader.readByte()
        let entityIndex = try readEntityIndex()
        let plan = plans.plan(entityIndex)
        let entity = plan.entity
        if let slot = plan.firstUnresolvedSlot {
            throw reader.failure("the model cannot resolve slot \(slot) of \(entity.name)")
        }
        let countOffset = reader.offset
        let count = try reader.readCount(minimumItemSize: SegmentFormat.minimumRunRowSize, what: "row count")
        guard count >= 1 else { throw reader.failure("an insert run of no rows", at: countOffset) }
        guard count <= limit else {
            throw reader.failure("an insert run of \(count) rows where the group has \(limit) operations left", at: countOffset)
        }
        var keys: [Int64] = []
        keys.reserveCapacity(count)
        var previous: Int64 = 0
        for row in 0..<count {
            let code = try reader.readZigzag()
            previous = row == 0 ? code : previous &+ code &+ 1
            keys.append(previous)
        }
        // Every row starts as the placeholders (one shared buffer); the first value written
        // to a row gives it its own array, which its insert then holds without a copy.
        var rows = [[PropertyValue]](repeating: plan.placeholders, count: count)
        for slot in 0..<plan.slots.count where plan.slots[slot].isPersistent {
            try readColumn(plan.columns[slot]!, slot: slot, into: &rows)
        }
        for row in 0..<count {
            let id = scopes.id(entity, storeTag: storeTag, primaryKey: keys[row])
            operations.append(.insert(id, values: rows[row]))
        }
    }

    /// One column (§13.3) into `slot` of every row.
    private mutating func readColumn(_ kind: SegmentColumnKind, slot: Int, into values: inout [[PropertyValue]]) throws {
        let rows = values.count
        let headerOffset = reader.offset
        let header = try reader.readByte()
        let presence = header & SegmentColumnHeader.presenceMask
        let delta = header & SegmentColumnHeader.delta != 0
        guard header & SegmentColumnHeader.unknownBits == 0, presence != SegmentColumnHeader.presenceMask else {
            throw reader.failure("unknown column header 0x\(hex(header))", at: headerOffset)
        }
        guard !delta || kind.allowsDelta else {
            throw reader.failure("delta coding on \(withArticle(kind.name)) column", at: headerOffset)
        }
        if presence == SegmentColumnHeader.noRow {
            for row in 0..<rows { values[row][slot] = .null }
            return
        }
        var bitmap = -1
        if presence == SegmentColumnHeader.bitmap {
            let size = (rows + 7) / 8
            bitmap = try reader.skip(count: size)
            if rows % 8 != 0, reader.bytes[bitmap + size - 1] >> UInt8(rows % 8) != 0 {
                throw reader.failure("presence bits set past the last row", at: bitmap + size - 1)
            }
        }
        var previous: Int64 = 0
        for row in 0..<rows {
            if bitmap >= 0, reader.bytes[bitmap + row / 8] & (1 << UInt8(row % 8)) == 0 {
                values[row][slot] = .null
                continue
            }
            values[row][slot] = try readColumnValue(kind, delta: delta, previous: &previous)
        }
    }

    /// One value of a column, without tag (§13.4).
    @inline(__always)
    private mutating func readColumnValue(_ kind: SegmentColumnKind, delta: Bool, previous: inout Int64) throws -> PropertyValue {
        switch kind {
        case .integer:
            let number = try reader.readZigzag()
            previous = delta ? previous &+ number : number
            return .integer(previous)
        case .double: return .double(try reader.readDouble())
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try reader.readDouble()))
        case .decimal: return .decimal(try readDecimal())
        case .string: return .string(try reader.readString())
        case .boolean:
            let offset = reader.offset
            switch try reader.readByte() {
            case 0: return .boolean(false)
            case 1: return .boolean(true)
            case let byte: throw reader.failure("boolean byte \(byte) is neither 0 nor 1", at: offset)
            }
        case .data: return .data(Data(reader.bytes[try reader.readByteRange()]))
        case .uuid: return .uuid(try reader.readUUID())
        case .uri: return .uri(try reader.readURI())
        case .toOne(let destination, let writesEntity):
            let offset = reader.offset
            let target = writesEntity ? plans.entities[try readEntityIndex()] : destination
            guard target.isKind(of: destination) else {
                throw reader.failure("\(withArticle(target.name)) object does not fit a to-one relationship to \(destination.name)", at: offset)
            }
            let number = try reader.readZigzag()
            previous = delta ? previous &+ number : number
            return .object(scopes.id(target, storeTag: storeTag, primaryKey: previous))
        case .toMany(let destination):
            let offset = reader.offset
            let ids = try readObjectsPayload()
            if let wrong = ids.first(where: { !$0.entity.isKind(of: destination) }) {
                throw reader.failure("\(withArticle(wrong.entity.name)) object does not fit a to-many relationship to \(destination.name)",
                                     at: offset)
            }
            return .objects(ids)
        }
    }
}
