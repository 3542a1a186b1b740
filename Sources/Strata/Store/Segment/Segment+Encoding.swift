import Foundation

/// Writes a ``Segment`` as a format v2 body (docs/FORMAT.md §2–§7, §13), v3 with an author
/// or context name (§15), v5 with text edits (§19), v6 with a group's saved metadata (§22);
/// or as v1 or v4 when asked (the golden files of those versions and the decoder's tests of
/// them).
///
/// Version 2 differs in one place: two or more consecutive inserts of one entity in a group
/// are written as one insert run, column by column (§13.2), so that a bulk save costs a few
/// bytes per value; every other operation is written as in v1.
///
/// Write steps: magic and version (§2); sequence, timestamp, group count (§2); per group its
/// header (§3) and operations (§4) with object IDs (§5) and typed values (§6). Transient
/// slots are left out (§7): insert and delete values list only persistent slots, update
/// changes to transient slots are dropped, and an update or relate left with nothing
/// persistent is not written.
///
/// The encoder checks what the decoder checks (entity and slot in the model, value fits
/// its slot, permanent IDs), so a body it writes can always be read back.
///
/// ```swift
/// let body = try SegmentEncoder.encode(segment, model: model)
/// ```
package struct SegmentEncoder {
    private var writer = ByteWriter(capacity: 256)
    let model: ManagedObjectModel
    let sequence: UInt64
    let version: UInt64
    let slotTable: SlotTable
    /// Where the body goes as it is written, when it is compressed on the way
    /// (``encodeCompressed(_:model:version:)``); nil when it is returned raw.
    let stream: BodyStream?
    /// Version 5: the body's text edits, planned before anything is written (§19).
    private(set) var textPacker: TextEditPacker?
    /// Version 5: the previous group's id and action name, which a group header is
    /// written against (§19.1).
    private var previousGroupID: UInt64 = 0
    private var previousActionName = ""

    private init(model: ManagedObjectModel, sequence: UInt64, version: UInt64, stream: BodyStream? = nil) {
        self.model = model
        self.sequence = sequence
        self.version = version
        slotTable = SlotTable(model: model)
        self.stream = stream
    }

    /// The compressor a streamed body goes to, made when the first chunk is full (a small
    /// body never streams: it is compressed in one call, as ``LZ4Frame/compress(_:)``).
    final class BodyStream {
        private(set) var frame: LZ4FrameWriter?
        /// The largest raw body this segment may have (nil: no limit): past it the encoding
        /// stops at the next hand-off, and the save splits its groups (``SavedSegments``).
        let limit: Int?

        init(limit: Int? = nil) { self.limit = limit }

        /// Compresses the bytes written so far and empties the writer.
        /// - Throws: ``BodyTooLarge`` once the body is larger than ``limit``.
        func take(_ out: inout ByteWriter) throws {
            if let limit, (frame?.contentSize ?? 0) + out.count > limit { throw BodyTooLarge() }
            let frame = frame ?? LZ4FrameWriter()
            self.frame = frame
            out.bytes.withUnsafeBytes { frame.append($0) }
            out.removeAll()
        }
    }

    /// A body went past its stream's limit (``BodyStream/limit``): not an error a caller
    /// sees, but the sign that a save's groups must go into more than one segment.
    struct BodyTooLarge: Error {}

    /// The raw bytes a streamed body collects before they go to the compressor.
    static let streamChunk = 1 << 20

    /// Hands the bytes written so far to the compressor once they fill a chunk, when the
    /// body is compressed on the way. Called between operations and every few thousand
    /// rows of an insert run's column, where no byte written waits for a later one.
    @inline(__always)
    func drain(_ out: inout ByteWriter) throws {
        guard let stream, out.count >= Self.streamChunk else { return }
        try stream.take(&out)
    }

    /// Each entity's slots as `SegmentFormat.slot` resolves them, resolved once per entity
    /// and segment: resolving them for every value of a bulk save cost more than writing it.
    final class SlotTable {
        struct Slots {
            /// nil where the model cannot resolve the slot.
            var shapes: [SegmentFormat.SlotShape?] = []
            var isTransient: [Bool] = []
        }
        let model: ManagedObjectModel
        private var byEntity: [Slots?]

        init(model: ManagedObjectModel) {
            self.model = model
            byEntity = Array(repeating: nil, count: model.entities.count)
        }

        /// The slots of an entity of the model (checked by `checkedEntity`).
        func slots(of entity: EntityDescription) -> Slots {
            if let cached = byEntity[entity.index] { return cached }
            var slots = Slots()
            for slot in 0..<entity.slotKinds.count {
                let info = SegmentFormat.slot(slot, of: entity, in: model)
                slots.shapes.append(info?.shape)
                slots.isTransient.append(info?.isTransient ?? false)
            }
            byEntity[entity.index] = slots
            return slots
        }
    }

    /// Encodes `segment` as a raw (uncompressed) body.
    /// - Throws: ``StrataStorage/StrataError`` `.invalidObjectID` for a temporary object ID;
    ///   `.invalidArgument` for an entity that is not in `model`, a slot out of range, a
    ///   value that does not fit its slot, a wrong number of insert/delete values, or a
    ///   timestamp out of range. The context names the segment, group, entity and slot.
    /// - Complexity: O(size of the segment).
    /// - Parameter version: The format version to write: by default 6 when a group carries
    ///   saved metadata (§22), 5 when the segment holds text edits (§19), 3 when it names an
    ///   author or a context (§15), else 2; or 1 or 2 explicitly, which drop the author and
    ///   context name (and refuse text edits), or 4, which writes text edits unpacked (§17).
    ///   A version below 6 drops the groups' saved metadata.
    package static func encode(_ segment: Segment, model: ManagedObjectModel,
                               version: UInt64? = nil) throws -> [UInt8] {
        let version = version ?? segment.formatVersion(in: model)
        precondition(SegmentFormat.readableVersions.contains(version), "no segment format version \(version)")
        var encoder = SegmentEncoder(model: model, sequence: segment.sequence, version: version)
        try encoder.writeSegment(segment)
        return encoder.writer.bytes
    }

    /// Encodes `segment` and compresses it into one LZ4 frame (docs/FORMAT.md §9) as it is
    /// written, so that a big body is never whole in memory raw; returns the frame and the
    /// raw body's size. A body smaller than a chunk gives the frame
    /// `LZ4Frame.compress(encode(segment), level:)` gives at its version's level
    /// (``SegmentFormat/compressionLevel(forVersion:)``); a bigger one streams at the fast level.
    /// - Parameter limit: The largest raw body allowed (nil: no limit); the encoding stops
    ///   soon after passing it, without compressing what follows.
    /// - Throws: What ``encode(_:model:version:)`` throws; ``BodyTooLarge`` past `limit`.
    package static func encodeCompressed(_ segment: Segment, model: ManagedObjectModel,
                                         version: UInt64? = nil, limit: Int? = nil) throws -> (frame: [UInt8], rawSize: Int) {
        let version = version ?? segment.formatVersion(in: model)
        precondition(SegmentFormat.readableVersions.contains(version), "no segment format version \(version)")
        let stream = BodyStream(limit: limit)
        var encoder = SegmentEncoder(model: model, sequence: segment.sequence, version: version, stream: stream)
        try encoder.writeSegment(segment)
        guard stream.frame != nil else {
            if let limit, encoder.writer.count > limit { throw BodyTooLarge() }
            return (LZ4Frame.compress(encoder.writer.bytes, level: SegmentFormat.compressionLevel(forVersion: version)),
                    encoder.writer.count)
        }
        try stream.take(&encoder.writer)
        guard let frame = stream.frame else { preconditionFailure("a streamed body lost its compressor") }
        return (frame.finish(), frame.contentSize)
    }

    // MARK: §2 body header

    private mutating func writeSegment(_ segment: Segment) throws {
        writer.writeRaw(SegmentFormat.magic)
        writer.writeVarint(version)
        writer.writeVarint(segment.sequence)
        let milliseconds = (segment.timestamp.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, let stamp = Int64(exactly: milliseconds) else {
            throw invalid("the timestamp \(segment.timestamp.timeIntervalSince1970) is out of range")
        }
        writer.writeZigzag(stamp)
        if version >= SegmentFormat.metadataVersion {
            writeOptionalString(segment.author)
            writeOptionalString(segment.contextName)
        }
        writer.writeVarint(UInt64(segment.groups.count))
        if version >= SegmentFormat.packedTextVersion {
            // After the group count, where a reader of version 4 stops looking at a header
            // (DocumentWriteCheck), so that an older build refuses the version, not the body.
            let packer = TextEditPacker(edits: writtenSplices(of: segment))
            packer.writeTables(to: &writer)
            textPacker = packer
        }
        for group in segment.groups { try writeGroup(group) }
    }

    /// The edits of the splices the body will hold, in body order (§19.2: the peer table
    /// and the text are made from them).
    private func writtenSplices(of segment: Segment) -> [TextEdit] {
        var edits: [TextEdit] = []
        for group in segment.groups {
            for operation in group.operations {
                if case .splice(_, _, let edit) = operation, isWritten(operation) { edits.append(edit) }
            }
        }
        return edits
    }

    /// §15: a flag byte, then the string when the flag is `01`.
    private mutating func writeOptionalString(_ text: String?) {
        guard let text else { return writer.writeByte(0) }
        writer.writeByte(1)
        writer.writeString(text)
    }

    // MARK: §3 groups

    private mutating func writeGroup(_ group: SegmentGroup) throws {
        if version >= SegmentFormat.packedTextVersion {
            let metadata = version >= SegmentFormat.groupMetadataVersion ? group.metadata : nil
            if let metadata, metadata.count > SegmentFormat.maximumGroupMetadataSize {
                throw invalid("the saved metadata of group \(group.id) is \(metadata.count) bytes, more than the \(SegmentFormat.maximumGroupMetadataSize) a group may carry",
                              group: group.id)
            }
            writePackedGroupHeader(group.info, metadata: metadata)
        } else {
            writer.writeVarint(group.id)
            writer.writeByte(group.kind.rawValue)
            if let reverted = group.revertsGroup {
                writer.writeByte(1)
                writer.writeVarint(reverted)
            } else {
                writer.writeByte(0)
            }
            writer.writeString(group.actionName)
        }
        // The count comes before the operations and dropping transient slots may leave some
        // empty, so they are counted first; writing them straight after (no side buffer)
        // spares copying a bulk save's whole body once more.
        var written = 0
        // By index: a for-in over the operations copied each one (its ID and its values).
        for index in group.operations.indices where isWritten(group.operations[index]) { written += 1 }
        writer.writeVarint(UInt64(written))
        var out = ByteWriter()
        swap(&out, &writer)
        defer { swap(&out, &writer) }
        var check = 0
        let operations = group.operations
        var index = 0
        while index < operations.count {
            let runEnd = version >= 2 ? insertRunEnd(operations, from: index) : index + 1
            if runEnd - index >= 2 {
                try writeInsertRun(operations[index..<runEnd], to: &out, group: group.id)
                check += runEnd - index
                index = runEnd
                try drain(&out)
                continue
            }
            if try writeOperation(operations[index], to: &out, group: group.id) { check += 1 }
            index += 1
            try drain(&out)
        }
        assert(check == written, "isWritten disagrees with writeOperation")
    }

    /// §19.1: the id as a difference from the previous group's plus one, a header byte with
    /// the kind and two flags, the reverted group as a difference from the id, and the action
    /// name unless it is the previous group's; version 6 (§22.1): a third flag and the saved
    /// metadata as bytes after the action name.
    private mutating func writePackedGroupHeader(_ info: ChangeGroupInfo, metadata: [UInt8]?) {
        writer.writeZigzag(Int64(bitPattern: info.id &- (previousGroupID &+ 1)))
        let sameAction = info.actionName == previousActionName
        writer.writeByte(info.kind.rawValue | (info.revertsGroup == nil ? 0 : SegmentFormat.PackedGroup.reverts)
                         | (sameAction ? SegmentFormat.PackedGroup.sameAction : 0)
                         | (metadata == nil ? 0 : SegmentFormat.PackedGroup.metadata))
        if let reverted = info.revertsGroup { writer.writeZigzag(Int64(bitPattern: reverted &- info.id)) }
        if !sameAction { writer.writeString(info.actionName) }
        if let metadata { writer.writeBytes(metadata) }
        previousGroupID = info.id
        previousActionName = info.actionName
    }

    /// Whether `writeOperation` writes the operation: everything but an update or relate
    /// left with nothing persistent. A slot out of range counts as written, so that
    /// `writeOperation` reports it.
    private func isWritten(_ operation: ChangeOperation) -> Bool {
        // Inserts and deletes are always written (a bulk save's every row): no slots to
        // look up for them.
        if case .insert = operation { return true }
        if case .delete = operation { return true }
        let entity = operation.objectID.entity
        // An entity outside the model is reported by `writeOperation`.
        guard entity.index >= 0, entity.index < model.entities.count, model.entities[entity.index] === entity else { return true }
        let slots = slotTable.slots(of: entity)
        func isTransient(_ slot: Int) -> Bool { slot >= 0 && slot < slots.isTransient.count && slots.isTransient[slot] }
        switch operation {
        case .insert, .delete: return true
        case .update(_, let changes): return changes.contains { !isTransient($0.slot) }
        case .relate(_, let slot, _, _), .splice(_, let slot, _): return !isTransient(slot)
        }
    }

    // MARK: §5 object IDs

    func checkedEntity(of id: ManagedObjectID, group: UInt64) throws -> EntityDescription {
        let entity = id.entity
        guard entity.index >= 0, entity.index < model.entities.count, model.entities[entity.index] === entity else {
            throw invalid("entity \(entity.name) is not part of the segment's model", group: group, entity: entity.name)
        }
        guard !id.isTemporaryID else {
            throw StrataError(
                .invalidObjectID,
                "Segment \(sequence): cannot write the temporary object ID \(id); a save must assign permanent IDs first.",
                context: .init { $0.segment = sequence; $0.group = group; $0.entity = entity.name; $0.object = id.description })
        }
        return entity
    }

    func writeObjectID(_ id: ManagedObjectID, to out: inout ByteWriter, group: UInt64) throws {
        let entity = try checkedEntity(of: id, group: group)
        out.writeVarint(UInt64(entity.index))
        out.writeZigzag(id.primaryKey)
    }

    // MARK: §6 values

    func writeValue(_ value: PropertyValue, to out: inout ByteWriter, group: UInt64) throws {
        typealias Tag = SegmentFormat.ValueTag
        switch value {
        case .null: out.writeByte(Tag.null.rawValue)
        case .integer(let number): out.writeByte(Tag.integer.rawValue); out.writeZigzag(number)
        case .double(let number): out.writeByte(Tag.double.rawValue); out.writeDouble(number)
        case .decimal(let number):
            out.writeByte(Tag.decimal.rawValue)
            try writeDecimal(number, to: &out, group: group)
        case .string(let text): out.writeByte(Tag.string.rawValue); out.writeString(text)
        case .boolean(let flag): out.writeByte(flag ? Tag.boolTrue.rawValue : Tag.boolFalse.rawValue)
        case .date(let date):
            // Date's own representation (seconds since 2001), so the round trip is exact.
            out.writeByte(Tag.date.rawValue)
            out.writeDouble(date.timeIntervalSinceReferenceDate)
        case .data(let bytes): out.writeByte(Tag.data.rawValue); out.writeBytes(bytes)
        case .uuid(let uuid):
            out.writeByte(Tag.uuid.rawValue)
            withUnsafeBytes(of: uuid.uuid) { out.writeRaw($0) }
        case .uri(let url): out.writeByte(Tag.uri.rawValue); out.writeString(url.absoluteString)
        case .object(let id):
            out.writeByte(Tag.object.rawValue)
            try writeObjectID(id, to: &out, group: group)
        case .objects(let ids):
            out.writeByte(Tag.objects.rawValue)
            out.writeVarint(UInt64(ids.count))
            for id in ids { try writeObjectID(id, to: &out, group: group) }
        }
    }

    /// §6.1: sign byte, then (unless NaN) zigzag exponent and the significand as
    /// length-prefixed little-endian bytes without trailing zeros.
    func writeDecimal(_ number: Decimal, to out: inout ByteWriter, group: UInt64) throws {
        if number.isNaN { out.writeByte(SegmentFormat.DecimalSign.notANumber.rawValue); return }
        guard let significand = UInt128(number.significand.description) else {
            throw invalid("the decimal \(number) has no integer significand", group: group)
        }
        let negative = number.sign == .minus && significand != 0
        out.writeByte(negative ? SegmentFormat.DecimalSign.minus.rawValue : SegmentFormat.DecimalSign.plus.rawValue)
        out.writeZigzag(Int64(number.exponent))
        var bytes: [UInt8] = []
        var rest = significand
        while rest != 0 {
            bytes.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
        out.writeBytes(bytes)
    }

    func invalid(_ reason: String, group: UInt64? = nil, entity: String? = nil) -> StrataError {
        Self.invalid(reason, sequence: sequence, group: group, entity: entity)
    }

    /// ``invalid(_:group:entity:)`` for the segment numbered `sequence`.
    static func invalid(_ reason: String, sequence: UInt64, group: UInt64? = nil, entity: String? = nil) -> StrataError {
        StrataError(.invalidArgument, "Segment \(sequence) cannot be written: \(reason).",
                    context: .init { $0.segment = sequence; $0.group = group; $0.entity = entity })
    }
}
