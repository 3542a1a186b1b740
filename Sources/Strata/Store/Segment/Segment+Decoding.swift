import Foundation
import OrderedCollections

/// Reads a segment body of format v1 to v6 (docs/FORMAT.md §2–§8, §13, §15, §17, §19, §22),
/// treating every byte as hostile.
///
/// Read steps: magic and version (§2); sequence (checked against the hint), timestamp and
/// group count (§2); per group its header (§3) and operations (§4), resolving object IDs
/// against the model (§5) and checking each value's tag against its slot (§6); insert and
/// delete values are expanded to one per slot, transient slots filled (§7); finally no
/// byte may remain. Every count is checked against the bytes left before anything is
/// reserved (§8). A v2 insert run (§13.2) becomes one insert per row, in row order. A v5
/// body's peer table and text come after the group count, its group headers and splices
/// are packed (``TextEditUnpacker``, §19).
///
/// ```swift
/// let segment = try SegmentDecoder.decode(body, model: model, storeTag: tag, sequenceHint: 7)
/// ```
package struct SegmentDecoder {
    var reader: ByteReader
    let model: ManagedObjectModel
    var plans: SegmentModelPlan
    let storeTag: UInt32
    var sequenceLabel: String
    /// The body's format version (§2), known once the header is read.
    var version: UInt64 = 1
    /// Where decoded updates keep their changes: shared buffers (growing from 16 changes,
    /// doubling), not an allocation each.
    var changeWriter = SlotChangesWriter(expected: 16)
    /// The changes of the update being read (reused between updates).
    var changeScratch: [SlotChange] = []
    /// The scopes of the IDs decoded so far (one lookup per entity, not per ID).
    var scopes = ObjectIDScopeCache()
    /// Version 5: the body's peers and text, and the registers its steps are read against.
    var textUnpacker = TextEditUnpacker()
    /// Version 5: the previous group's id and action name (§19.1).
    var previousGroupID: UInt64 = 0
    var previousActionName = ""
    /// Version 6: the saved metadata of the group whose header was read last (§22.1).
    var groupMetadata: [UInt8]?

    init(bytes: [UInt8], model: ManagedObjectModel, storeTag: UInt32, sequenceHint: UInt64?) {
        self.reader = ByteReader(bytes)
        self.model = model
        self.plans = SegmentModelPlan(model: model)
        self.storeTag = storeTag
        self.sequenceLabel = sequenceHint.map(String.init) ?? "?"
    }

    /// Decodes a raw (uncompressed) body.
    ///
    /// - Parameters:
    ///   - bytes: The body.
    ///   - model: The document's model; entity indexes and slots refer to it.
    ///   - storeTag: The store the decoded object IDs belong to.
    ///   - sequenceHint: The sequence the caller expects (the segment row's); used in error
    ///     messages before the body's own sequence is read, and checked against it.
    /// - Throws: ``StrataStorage/StrataError`` `.corruptSegment` naming the segment (`context.segment`)
    ///   and byte offset into the raw body (`context.offset`, `context.layer` `.segmentBody`), also in the message: "Segment 7 is corrupt
    ///   at byte 41: unknown value tag 0x1F."
    /// - Complexity: O(size of the body).
    package static func decode(
        _ bytes: [UInt8], model: ManagedObjectModel, storeTag: UInt32, sequenceHint: UInt64?
    ) throws -> Segment {
        var decoder = SegmentDecoder(bytes: bytes, model: model, storeTag: storeTag, sequenceHint: sequenceHint)
        do {
            return try decoder.readSegment(sequenceHint: sequenceHint)
        } catch let error as StrataError where error.code == .corruptSegment {
            throw decoder.located(error)
        }
    }

    /// Adds the segment to a reader error and rewrites its message.
    func located(_ error: StrataError) -> StrataError {
        let offset = error.context.offset ?? reader.offset
        let reason = error.context.reason ?? error.message
        var context = error.context
        context.segment = UInt64(sequenceLabel)
        context.offset = offset
        context.layer = .segmentBody
        return StrataError(.corruptSegment, "Segment \(sequenceLabel) is corrupt at byte \(offset): \(reason).",
                           context: context)
    }

    // MARK: §2 body header

    mutating func readSegment(sequenceHint: UInt64?) throws -> Segment {
        let header = try readHeader(sequenceHint: sequenceHint)
        var groups: [SegmentGroup] = []
        groups.reserveCapacity(header.groupCount)
        for _ in 0..<header.groupCount { groups.append(try readGroup()) }
        try finishBody()
        return Segment(sequence: header.sequence, timestamp: header.timestamp, groups: groups,
                       author: header.author, contextName: header.contextName)
    }

    /// Magic, version, sequence, timestamp, author and context name (version 3, §15) and
    /// group count (§2).
    mutating func readHeader(sequenceHint: UInt64?) throws
        -> (sequence: UInt64, timestamp: Date, author: String?, contextName: String?, groupCount: Int)
    {
        let magic = try reader.readRaw(count: SegmentFormat.magic.count)
        guard magic == SegmentFormat.magic else { throw reader.failure("bad magic, not a Strata segment body", at: 0) }
        let versionOffset = reader.offset
        let version = try reader.readVarint()
        guard SegmentFormat.readableVersions.contains(version) else {
            let known = SegmentFormat.readableVersions
            throw reader.failure("unsupported format version \(version) (this build reads versions \(known.lowerBound)–\(known.upperBound))",
                                 at: versionOffset)
        }
        self.version = version
        let sequenceOffset = reader.offset
        let sequence = try reader.readVarint()
        if let sequenceHint, sequenceHint != sequence {
            throw reader.failure("the body says sequence \(sequence), expected \(sequenceHint)", at: sequenceOffset)
        }
        sequenceLabel = String(sequence)
        let milliseconds = try reader.readZigzag()
        let timestamp = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        var author: String?
        var contextName: String?
        if version >= SegmentFormat.metadataVersion {
            author = try readOptionalString(what: "author")
            contextName = try readOptionalString(what: "context name")
        }
        let packed = version >= SegmentFormat.packedTextVersion
        let groupCount = try reader.readCount(minimumItemSize: packed ? SegmentFormat.minimumPackedGroupSize : SegmentFormat.minimumGroupSize,
                                              what: "group count")
        if packed { try textUnpacker.readTables(from: &reader) }
        return (sequence, timestamp, author, contextName, groupCount)
    }

    /// After the last group: every scalar of a v5 body's text was taken (§19.7), and no
    /// byte is left (§8).
    mutating func finishBody() throws {
        if version >= SegmentFormat.packedTextVersion { try textUnpacker.finish(reader) }
        try reader.expectEnd()
    }

    /// §15: a flag byte (`00` absent, `01` a string follows).
    private mutating func readOptionalString(what: String) throws -> String? {
        let offset = reader.offset
        switch try reader.readByte() {
        case 0: return nil
        case 1: return try reader.readString()
        case let flag: throw reader.failure("unknown \(what) flag 0x\(hex(flag))", at: offset)
        }
    }

    // MARK: §3 groups

    private mutating func readGroup() throws -> SegmentGroup {
        let (id, kind, reverts, actionName, count) = try readGroupHeader()
        var operations: [ChangeOperation] = []
        operations.reserveCapacity(count)
        while operations.count < count {
            if version >= 2, reader.peekByte() == SegmentFormat.OperationTag.insertRun.rawValue {
                try readInsertRun(into: &operations, limit: count - operations.count)
            } else {
                operations.append(try readOperation())
            }
        }
        return SegmentGroup(id: id, kind: kind, revertsGroup: reverts, actionName: actionName, operations: operations,
                            metadata: groupMetadata)
    }

    /// A group's ID, kind, reverted group, action name and operation count (§3).
    mutating func readGroupHeader() throws
        -> (id: UInt64, kind: ChangeGroupKind, reverts: UInt64?, actionName: String, operationCount: Int)
    {
        if version >= SegmentFormat.packedTextVersion { return try readPackedGroupHeader() }
        let id = try reader.readVarint()
        let kindOffset = reader.offset
        let kindByte = try reader.readByte()
        guard let kind = ChangeGroupKind(rawValue: kindByte) else {
            throw reader.failure("unknown group kind \(kindByte)", at: kindOffset)
        }
        let flagOffset = reader.offset
        let revertsFlag = try reader.readByte()
        let reverts: UInt64?
        switch revertsFlag {
        case 0: reverts = nil
        case 1: reverts = try reader.readVarint()
        default: throw reader.failure("unknown reverts flag \(revertsFlag)", at: flagOffset)
        }
        let actionName = try reader.readString()
        // A row of a v2 insert run may take a single byte (its key).
        let minimum = version >= 2 ? SegmentFormat.minimumRunRowSize : SegmentFormat.minimumOperationSize
        let count = try reader.readCount(minimumItemSize: minimum, what: "operation count")
        return (id, kind, reverts, actionName, count)
    }

    /// §19.1: a group header written against the previous group's id and action name.
    private mutating func readPackedGroupHeader() throws
        -> (id: UInt64, kind: ChangeGroupKind, reverts: UInt64?, actionName: String, operationCount: Int)
    {
        let delta = try reader.readZigzag()
        let id = (previousGroupID &+ 1) &+ UInt64(bitPattern: delta)
        let headerOffset = reader.offset
        let header = try reader.readByte()
        guard header & ~SegmentFormat.PackedGroup.allBits(version: version) == 0,
              let kind = ChangeGroupKind(rawValue: header & SegmentFormat.PackedGroup.kindMask) else {
            throw reader.failure("unknown group header 0x\(hex(header))", at: headerOffset)
        }
        var reverts: UInt64?
        if header & SegmentFormat.PackedGroup.reverts != 0 {
            let difference = try reader.readZigzag()
            reverts = id &+ UInt64(bitPattern: difference)
        }
        let actionName = try header & SegmentFormat.PackedGroup.sameAction != 0 ? previousActionName : reader.readString()
        groupMetadata = nil
        if header & SegmentFormat.PackedGroup.metadata != 0 {
            let offset = reader.offset
            let metadata = try reader.readBytes()
            guard metadata.count <= SegmentFormat.maximumGroupMetadataSize else {
                throw reader.failure("the saved metadata of group \(id) is \(metadata.count) bytes, more than the \(SegmentFormat.maximumGroupMetadataSize) a group may carry",
                                     at: offset)
            }
            groupMetadata = metadata
        }
        let count = try reader.readCount(minimumItemSize: SegmentFormat.minimumRunRowSize, what: "operation count")
        previousGroupID = id
        previousActionName = actionName
        return (id, kind, reverts, actionName, count)
    }

    // MARK: §4 operations

    mutating func readOperation() throws -> ChangeOperation {
        let tagOffset = reader.offset
        let tagByte = try reader.readByte()
        let tag: SegmentFormat.OperationTag
        if tagByte == SegmentFormat.OperationTag.spliceAgain.rawValue, version >= SegmentFormat.packedTextVersion {
            guard let target = textUnpacker.lastTarget else {
                throw reader.failure("a splice repeats the target of no earlier splice", at: tagOffset)
            }
            return .splice(target.id, slot: target.slot, edit: try textUnpacker.readEdit(from: &reader))
        }
        switch tagByte {  // not `init(rawValue:)`, which is not inlined
        case SegmentFormat.OperationTag.update.rawValue: tag = .update
        case SegmentFormat.OperationTag.insert.rawValue: tag = .insert
        case SegmentFormat.OperationTag.delete.rawValue: tag = .delete
        case SegmentFormat.OperationTag.relate.rawValue: tag = .relate
        case SegmentFormat.OperationTag.splice.rawValue where version >= SegmentFormat.textVersion: tag = .splice
        default: throw reader.failure("unknown operation tag 0x\(hex(tagByte))", at: tagOffset)
        }
        let entityIndex = try readEntityIndex()
        let plan = plans.plan(entityIndex)
        let id = scopes.id(plan.entity, storeTag: storeTag, primaryKey: try reader.readZigzag())
        let entity = plan.entity
        switch tag {
        case .insertRun, .spliceAgain:
            preconditionFailure("an insert run is read by readInsertRun, a repeated splice above, never here")
        case .insert, .delete:
            let values = try readSlotValues(of: plan)
            return tag == .insert ? .insert(id, values: values) : .delete(id, values: values)
        case .update:
            // Taken out of `self` while `readChanges` (mutating) fills it, and put back.
            var changes: [SlotChange] = []
            swap(&changes, &changeScratch)
            defer { changeScratch = changes }
            changes.removeAll(keepingCapacity: true)
            try readChanges(of: plan, into: &changes)
            return .update(id, changes: changeWriter.write(changes))
        case .relate:
            let slotOffset = reader.offset
            let (slot, _) = try readPersistentSlot(of: plan)
            let shape = plan.shapes[slot]!  // a persistent slot is resolved
            guard case .toMany(let destination) = shape else {
                throw reader.failure("slot \(slot) of \(entity.name) is not a to-many relationship", at: slotOffset)
            }
            let added = try readMembers(destination: destination, what: "added count")
            let removed = try readMembers(destination: destination, what: "removed count")
            return .relate(id, slot: slot, added: added, removed: removed)
        case .splice:
            let slotOffset = reader.offset
            let (slot, _) = try readPersistentSlot(of: plan)
            guard entity.isText(slot: slot) else {
                throw reader.failure("slot \(slot) of \(entity.name) is not a text attribute", at: slotOffset)
            }
            if version >= SegmentFormat.packedTextVersion {
                textUnpacker.setTarget(id, slot: slot)
                return .splice(id, slot: slot, edit: try textUnpacker.readEdit(from: &reader))
            }
            return .splice(id, slot: slot, edit: try TextCoding.readEdit(from: &reader))
        }
    }

    /// An update's changes (after its object ID), appended to `changes`.
    mutating func readChanges(of plan: SegmentEntityPlan, into changes: inout [SlotChange]) throws {
        let count = try reader.readCount(minimumItemSize: SegmentFormat.minimumSlotChangeSize, what: "change count")
        changes.reserveCapacity(count)
        for _ in 0..<count {
            let (slot, info) = try readPersistentSlot(of: plan)
            let old = try readValue(for: info, shape: plan.shapes[slot])
            let new = try readValue(for: info, shape: plan.shapes[slot])
            changes.append(SlotChange(slot: slot, old: old, new: new))
        }
    }

    /// Insert/delete values: one value per persistent slot, slots strictly increasing;
    /// transient slots are filled with their placeholder (§7).
    private mutating func readSlotValues(of plan: SegmentEntityPlan) throws -> [PropertyValue] {
        let entity = plan.entity
        if let slot = plan.firstUnresolvedSlot {
            throw reader.failure("the model cannot resolve slot \(slot) of \(entity.name)")
        }
        var values = plan.placeholders
        let persistent = plan.persistentCount
        let countOffset = reader.offset
        let count = try reader.readVarint()
        guard count == UInt64(persistent) else {
            throw reader.failure("\(count) values for \(entity.name), which has \(persistent) persistent slots",
                                 at: countOffset)
        }
        var previous = -1
        for _ in 0..<persistent {
            let slotOffset = reader.offset
            let (slot, info) = try readPersistentSlot(of: plan)
            guard slot > previous else {
                throw reader.failure("slot \(slot) of \(entity.name) is out of order", at: slotOffset)
            }
            previous = slot
            values[slot] = try readValue(for: info, shape: plan.shapes[slot])
        }
        return values
    }

    /// A slot number that is in range for the plan's entity and not transient.
    @inline(__always)
    mutating func readPersistentSlot(of plan: SegmentEntityPlan) throws -> (Int, SegmentEntityPlan.Slot) {
        let offset = reader.offset
        let raw = try reader.readVarint()
        if raw < UInt64(plan.slots.count) {
            let info = plan.slots[Int(raw)]
            if info.isPersistent { return (Int(raw), info) }
        }
        throw slotFailure(raw, of: plan, at: offset)
    }

    private func slotFailure(_ raw: UInt64, of plan: SegmentEntityPlan, at offset: Int) -> StrataError {
        let entity = plan.entity
        guard raw < UInt64(plan.slots.count), plan.slots[Int(raw)].isResolved else {
            return reader.failure("slot \(raw) is out of range for \(entity.name) (\(entity.slotCount) slots)", at: offset)
        }
        return reader.failure("slot \(raw) (\(entity.name).\(plan.names[Int(raw)])) is transient and cannot be stored",
                              at: offset)
    }

    mutating func readMembers(destination: EntityDescription, what: String) throws -> [ManagedObjectID] {
        let count = try reader.readCount(minimumItemSize: SegmentFormat.minimumObjectIDSize, what: what)
        var members: [ManagedObjectID] = []
        members.reserveCapacity(count)
        for _ in 0..<count {
            let offset = reader.offset
            let member = try readObjectID()
            guard member.entity.isKind(of: destination) else {
                throw reader.failure("\(withArticle(member.entity.name)) object does not fit a relationship to \(destination.name)",
                                     at: offset)
            }
            members.append(member)
        }
        return members
    }

    // MARK: §5 object IDs

    mutating func readObjectID() throws -> ManagedObjectID {
        let index = try readEntityIndex()
        let key = try reader.readZigzag()
        return scopes.id(plans.entities[index], storeTag: storeTag, primaryKey: key)
    }

    @inline(__always)
    mutating func readEntityIndex() throws -> Int {
        let offset = reader.offset
        let index = try reader.readVarint()
        guard index < UInt64(plans.entities.count) else {
            throw reader.failure("entity index \(index) is out of range (the model has \(plans.entities.count) entities)",
                                 at: offset)
        }
        return Int(index)
    }

    // MARK: §6 values

    /// Reads one value and checks that it fits the slot (§6.2): for attributes by its tag
    /// before decoding it, falling back to the full check (and its message) on a mismatch.
    @inline(__always)
    mutating func readValue(for slot: SegmentEntityPlan.Slot, shape: @autoclosure () -> SegmentFormat.SlotShape?)
        throws -> PropertyValue
    {
        if let tag = reader.peekByte(), tag < 32, slot.fittingTags & (1 << UInt32(tag)) != 0 {
            // Small scalars first: most values of an edit log are integers.
            if tag == SegmentFormat.ValueTag.integer.rawValue {
                _ = try reader.readByte()
                return .integer(try reader.readZigzag())
            }
            return try readValue()
        }
        // `isPersistent` was checked, so the shape is known.
        return try readValue(for: shape()!)
    }

    /// Reads one value and checks that it fits the slot (§6.2).
    private mutating func readValue(for shape: SegmentFormat.SlotShape) throws -> PropertyValue {
        let offset = reader.offset
        let value = try readValue()
        if let reason = SegmentFormat.mismatch(value, shape) { throw reader.failure(reason, at: offset) }
        return value
    }

    private mutating func readValue() throws -> PropertyValue {
        let offset = reader.offset
        let byte = try reader.readByte()
        guard let tag = SegmentFormat.ValueTag(rawValue: byte) else {
            throw reader.failure("unknown value tag 0x\(hex(byte))", at: offset)
        }
        switch tag {
        case .null: return .null
        case .integer: return .integer(try reader.readZigzag())
        case .double: return .double(try reader.readDouble())
        case .decimal: return .decimal(try readDecimal())
        case .string: return .string(try reader.readString())
        case .boolFalse: return .boolean(false)
        case .boolTrue: return .boolean(true)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try reader.readDouble()))
        case .data: return .data(Data(try reader.readBytes()))
        case .uuid: return .uuid(try reader.readUUID())
        case .uri: return .uri(try reader.readURI())
        case .object: return .object(try readObjectID())
        case .objects: return .objects(try readObjectsPayload())
        }
    }

    /// The payload of an `objects` value (§6): a count, then distinct object IDs.
    mutating func readObjectsPayload() throws -> OrderedSet<ManagedObjectID> {
        let count = try reader.readCount(minimumItemSize: SegmentFormat.minimumObjectIDSize, what: "object count")
        var ids = OrderedSet<ManagedObjectID>()
        ids.reserveCapacity(count)
        for _ in 0..<count {
            let idOffset = reader.offset
            guard ids.append(try readObjectID()).inserted else {
                throw reader.failure("an object appears twice in a to-many value", at: idOffset)
            }
        }
        return ids
    }

    /// §6.1: sign, exponent in -128...127, significand of at most 16 bytes without
    /// trailing zero bytes.
    mutating func readDecimal() throws -> Decimal {
        let signOffset = reader.offset
        let signByte = try reader.readByte()
        guard let sign = SegmentFormat.DecimalSign(rawValue: signByte) else {
            throw reader.failure("unknown decimal sign \(signByte)", at: signOffset)
        }
        if sign == .notANumber { return .nan }
        let exponentOffset = reader.offset
        let exponent = try reader.readZigzag()
        guard (-128...127).contains(exponent) else {
            throw reader.failure("decimal exponent \(exponent) is out of range", at: exponentOffset)
        }
        let significandOffset = reader.offset
        let bytes = try reader.readBytes()
        guard bytes.count <= 16, bytes.last != 0 else {
            throw reader.failure("malformed decimal significand", at: significandOffset)
        }
        var significand: UInt128 = 0
        for byte in bytes.reversed() { significand = significand << 8 | UInt128(byte) }
        guard !(sign == .minus && significand == 0) else {
            throw reader.failure("negative zero decimal", at: signOffset)
        }
        guard let magnitude = Decimal(string: String(significand)) else {
            throw reader.failure("malformed decimal significand", at: significandOffset)
        }
        return Decimal(sign: sign == .minus ? .minus : .plus, exponent: Int(exponent), significand: magnitude)
    }

    func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
