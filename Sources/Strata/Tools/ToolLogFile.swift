import Foundation

/// A document's log read straight from the file, without opening a ``DocumentStore``: the
/// `strata-log` commands use it so that they can dump, export, verify and recover a
/// document whose log is damaged (a store refuses to open one).
///
/// ```swift
/// let log = try ToolLogFile(url)              // read-only
/// for record in try log.segmentRecords() {
///     let segment = try log.decode(record)    // throws .corruptSegment on damage
/// }
/// ```
package final class ToolLogFile {
    /// The document.
    package let url: URL
    /// The model stored in the document.
    package let model: ManagedObjectModel
    /// The store identifier.
    package let identifier: String
    /// The last segment folded into the snapshot.
    package let compactedThrough: UInt64
    /// The key counters of the document's metadata, by root entity name.
    package let keyCounters: [String: Int64]
    /// Whether the identity fields match their checksum (nil: an older document without one).
    package let identityIntact: Bool?
    let meta: DocumentFile.Meta
    let connection: SQLiteConnection
    let storeTag: UInt32

    /// Opens the document's file read-only (or read-write for repairs).
    /// - Throws: `.io` when there is no file, `.corruptDocument` when it is not a document.
    package init(_ url: URL, writable: Bool = false) throws {
        try ToolDocumentGuard.probe(url)
        self.url = url
        connection = writable
            ? try SQLiteConnection.openExisting(path: url.path, flags: [.readWrite], busyTimeout: ToolSettings.busyTimeout,
                                                probe: "SELECT value FROM strata_meta WHERE key = 'format'")
            : try SQLiteConnection.openForReading(url.path)
        do {
            // The identity is reported (verify) or repaired (recover), not refused here.
            let meta = try DocumentFile.readMeta(connection, path: url.path, checksIdentity: false)
            self.meta = meta
            identityIntact = meta.identityIntact
            do {
                model = try meta.model()
            } catch let error as StrataError {
                throw DocumentOpenFailure.damaged(url.path, error.message.trimmingCharacters(in: CharacterSet(charactersIn: ".")))
            }
            identifier = meta.identifier
            compactedThrough = meta.compactedThrough
            keyCounters = meta.keyCounters
        } catch {
            connection.close()
            throw error
        }
        storeTag = StoreRegistry.tag(for: identifier)
    }

    deinit { connection.close() }

    /// Closes the file; later reads fail. A reader on a full disk holds the document
    /// exclusively (``SQLiteConnection/openExisting(path:flags:busyTimeout:probe:)``), so
    /// a tool closes it before opening a store on the same document.
    package func close() { connection.close() }

    /// The stored segments with sequence in `range`, oldest first, not decoded.
    package func segmentRecords(in range: ClosedRange<UInt64> = 0...UInt64(Int64.max)) throws -> [SegmentRecord] {
        let rows = try connection.prepare(
            "SELECT \(SegmentRecord.columns) FROM strata_segment WHERE seq BETWEEN ? AND ? ORDER BY seq"
        ).rows([.integer(Int64(range.lowerBound)), .integer(Int64(min(range.upperBound, UInt64(Int64.max))))])
        return rows.map { SegmentRecord(salvaging: $0, compactedThrough: compactedThrough) }
    }

    /// The group table's rows of a segment: (id, kind, reverts, action).
    package func groupRows(of sequence: UInt64) throws -> [ChangeGroupInfo] {
        try connection.prepare("SELECT id, kind, reverts, action FROM strata_group WHERE seq = ? ORDER BY id")
            .rows([.integer(Int64(sequence))]).map { row in
                var info = ChangeGroupInfo(id: 0, kind: .user)
                if case .integer(let id) = row[0] { info.id = UInt64(max(0, id)) }
                if case .integer(let kind) = row[1] { info.kind = ChangeGroupKind(rawValue: UInt8(truncatingIfNeeded: kind)) ?? .merge }
                if case .integer(let reverts) = row[2] { info.revertsGroup = UInt64(max(0, reverts)) }
                if case .text(let action) = row[3] { info.actionName = action }
                return info
            }
    }

    /// Decompresses (checking the LZ4 content checksum) and decodes a stored segment, and
    /// checks it against its row (sequence, counts, raw size).
    /// - Throws: `.corruptSegment` naming the segment and what is wrong.
    package func decode(_ record: SegmentRecord) throws -> Segment {
        try Self.decode(record, model: model, storeTag: storeTag)
    }

    /// Decodes a stored segment with a given model and store tag, checking it against its
    /// row (recovery decodes before it trusts the file's own metadata).
    static func decode(_ record: SegmentRecord, model: ManagedObjectModel, storeTag: UInt32) throws -> Segment {
        func corrupt(_ why: String) -> StrataError {
            StrataError(.corruptSegment, "Segment \(record.sequence) is corrupt: \(why).", context: ["segment": String(record.sequence)])
        }
        let raw: [UInt8]
        let segment: Segment
        do {
            raw = try LZ4Frame.decompress(record.body, maxContentSize: ToolSettings.maxSegmentSize)
            segment = try SegmentDecoder.decode(raw, model: model, storeTag: storeTag, sequenceHint: record.sequence)
        } catch let error as StrataError {
            let message = error.message.hasPrefix("Segment") ? error.message : "Segment \(record.sequence) is corrupt: \(error.message)"
            throw StrataError(.corruptSegment, message, context: error.context.merging(["segment": String(record.sequence)]) { $1 })
        }
        guard raw.count == record.rawSize else { throw corrupt("its body is \(raw.count) bytes, the log row says \(record.rawSize)") }
        guard segment.sequence == record.sequence else { throw corrupt("its body says sequence \(segment.sequence)") }
        guard segment.groups.count == record.groupCount else {
            throw corrupt("it holds \(segment.groups.count) groups, the log row says \(record.groupCount)")
        }
        guard segment.operationCount == record.operationCount else {
            throw corrupt("it holds \(segment.operationCount) operations, the log row says \(record.operationCount)")
        }
        return segment
    }

    /// The raw (decompressed) body of a stored segment.
    package func rawBody(_ record: SegmentRecord) throws -> [UInt8] {
        try LZ4Frame.decompress(record.body, maxContentSize: ToolSettings.maxSegmentSize)
    }
}

/// Segments and operations as `strata-log` prints them.
package enum ToolLogText {
    /// The name of a group kind: user, undo, redo, unregistered, batch, merge.
    package static func kindName(_ kind: ChangeGroupKind) -> String {
        switch kind {
        case .user: return "user"
        case .undo: return "undo"
        case .redo: return "redo"
        case .unregistered: return "unregistered"
        case .batch: return "batch"
        case .merge: return "merge"
        }
    }

    /// The name of an operation: insert, delete, update, relate.
    package static func operationName(_ operation: ChangeOperation) -> String {
        switch operation {
        case .insert: return "insert"
        case .delete: return "delete"
        case .update: return "update"
        case .relate: return "relate"
        }
    }

    static func slotName(_ slot: Int, of entity: EntityDescription) -> String {
        slot >= 0 && slot < entity.slotNames.count ? entity.slotNames[slot] : "#\(slot)"
    }

    static func isTransient(_ slot: Int, of entity: EntityDescription) -> Bool {
        RowTable.isTransient(slot, of: entity)
    }

    /// A segment as JSON: its row's numbers, then each group with its operations (entity
    /// and key names, old and new values, URIs).
    package static func json(_ segment: Segment, record: SegmentRecord) -> ToolJSON {
        .fields([
            "sequence": .int(record.sequence),
            "time": .string(ToolValueText.timestamp(segment.timestamp)),
            "compacted": .bool(record.isCompacted),
            "rawBytes": .int(record.rawSize),
            "bytes": .int(record.body.count),
            "groupCount": .int(segment.groups.count),
            "operationCount": .int(segment.operationCount),
            "groups": .array(segment.groups.map(json)),
        ])
    }

    /// A group as JSON.
    package static func json(_ group: SegmentGroup) -> ToolJSON {
        .fields([
            "id": .int(group.id),
            "kind": .string(kindName(group.kind)),
            "reverts": group.revertsGroup.map { .int($0) } ?? .null,
            "action": .string(group.actionName),
            "operations": .array(group.operations.map(json)),
        ])
    }

    /// An operation as JSON.
    package static func json(_ operation: ChangeOperation) -> ToolJSON {
        let id = operation.objectID
        var members = [
            ToolJSON.Member("op", .string(operationName(operation))),
            ToolJSON.Member("entity", .string(id.entity.name)),
            ToolJSON.Member("object", .string(id.description)),
        ]
        switch operation {
        case .insert(_, let values), .delete(_, let values):
            members.append(ToolJSON.Member("values", .object(values.enumerated().compactMap { slot, value in
                isTransient(slot, of: id.entity) ? nil : ToolJSON.Member(slotName(slot, of: id.entity), ToolValueText.json(value))
            })))
        case .update(_, let changes):
            members.append(ToolJSON.Member("changes", .array(changes.map { change in
                .fields(["key": .string(slotName(change.slot, of: id.entity)),
                         "old": ToolValueText.json(change.old), "new": ToolValueText.json(change.new)])
            })))
        case .relate(_, let slot, let added, let removed):
            members.append(ToolJSON.Member("key", .string(slotName(slot, of: id.entity))))
            members.append(ToolJSON.Member("added", .array(added.map { .string($0.description) })))
            members.append(ToolJSON.Member("removed", .array(removed.map { .string($0.description) })))
        }
        return .object(members)
    }

    /// A value for a log line: strings quoted, objects as `Entity/pKEY`.
    package static func text(_ value: PropertyValue) -> String {
        switch value {
        case .object(let id): return ToolRecordText.shortReference(id)
        case .objects(let ids): return "[" + ids.map(ToolRecordText.shortReference).joined(separator: ", ") + "]"
        case .string(let text): return text.debugDescription
        default: return ToolValueText.plain(value)
        }
    }

    /// One line per operation: `insert Employee/p3 firstName="Ada" salary=150000`.
    package static func line(_ operation: ChangeOperation) -> String {
        let id = operation.objectID
        let reference = ToolRecordText.shortReference(id)
        switch operation {
        case .insert(_, let values), .delete(_, let values):
            let fields = values.enumerated().compactMap { slot, value -> String? in
                guard !isTransient(slot, of: id.entity), !value.isNull else { return nil }
                if case .objects(let ids) = value, ids.isEmpty { return nil }
                return "\(slotName(slot, of: id.entity))=\(text(value))"
            }
            return "\(operationName(operation)) \(reference)" + (fields.isEmpty ? "" : "  " + fields.joined(separator: " "))
        case .update(_, let changes):
            return "update \(reference)  " + changes.map { "\(slotName($0.slot, of: id.entity)): \(text($0.old)) → \(text($0.new))" }
                .joined(separator: ", ")
        case .relate(_, let slot, let added, let removed):
            let changes = added.map { "+" + ToolRecordText.shortReference($0) } + removed.map { "-" + ToolRecordText.shortReference($0) }
            return "relate \(reference).\(slotName(slot, of: id.entity))  " + changes.joined(separator: " ")
        }
    }
}
