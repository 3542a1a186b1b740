import Foundation

/// A document's log read straight from the file, without opening a ``DocumentStore``:
/// verification, recovery, replay and the `strata-log` commands use it so that they can
/// dump, export, verify and recover a document whose log is damaged (a store refuses to
/// open one). The file is opened read-only (``DocumentStore/Configuration/isReadOnly``).
///
/// ```swift
/// let log = try DocumentLogFile(url)
/// for record in try log.segmentRecords() {
///     let segment = try log.decode(record)    // throws .corruptSegment on damage
/// }
/// ```
package final class DocumentLogFile {
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
    /// The largest decompressed segment body this reader decodes (the settings' `maxSegmentSize`).
    let maxSegmentSize: Int
    private var isClosed = false
    /// The model versions, read on first use (``versionModels()``).
    private var versionModelCache: [(firstSegment: UInt64, model: ManagedObjectModel)]?
    private var versionRecordCache: [ModelVersionRecord]?

    /// Opens the document's file read-only.
    /// - Throws: `.io` when there is no file, `.corruptDocument` when it is not a document;
    ///   the errors of a read-only ``DocumentStore`` open.
    package init(_ url: URL, settings: DocumentStore.Configuration = DocumentStore.Configuration()) throws {
        try DocumentOpenFailure.requireFile(url.path)
        self.url = url
        maxSegmentSize = settings.maxSegmentSize
        var configuration = settings
        configuration.isReadOnly = true
        configuration.checksIntegrityOnOpen = false
        connection = try DocumentStore.connect(url, configuration: configuration, create: false)
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
            DocumentStore.finishReadOnly(url)
            throw error
        }
        storeTag = StoreRegistry.tag(for: identifier)
    }

    deinit { close() }

    /// Closes the file; later reads fail. A reader on a full disk holds the document
    /// exclusively (``SQLiteConnection/openExisting(path:flags:busyTimeout:probe:)``), so
    /// a tool closes it before opening a store on the same document.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        connection.close()
        DocumentStore.finishReadOnly(url)
    }

    /// The stored segments with sequence in `range`, oldest first, not decoded.
    /// - Throws: `.corruptSegment` naming a malformed row.
    package func segmentRecords(in range: ClosedRange<UInt64> = 0...UInt64(Int64.max)) throws -> [SegmentRecord] {
        try LogTables.records(connection, in: range, compactedThrough: compactedThrough)
    }

    /// The sequence numbers of the stored segments, oldest first.
    package func sequences() throws -> [UInt64] {
        try LogTables.sequences(connection)
    }

    /// The group table's rows of a segment.
    /// - Throws: `.corruptSegment` naming a malformed row.
    package func groupRows(of sequence: UInt64) throws -> [ChangeGroupInfo] {
        try LogTables.groups(connection, of: sequence)
    }

    /// Decompresses (checking the LZ4 content checksum) and decodes a stored segment, and
    /// checks it against its row (sequence, counts, raw size).
    /// - Throws: `.corruptSegment` naming the segment and what is wrong.
    package func decode(_ record: SegmentRecord) throws -> Segment {
        try Self.decode(record, model: model(forSegment: record.sequence), storeTag: storeTag, maxSegmentSize: maxSegmentSize)
    }

    /// The model versions the document has used, oldest first (docs/MIGRATION.md).
    package func modelVersions() throws -> [ModelVersionRecord] {
        if let cached = versionRecordCache { return cached }
        let versions = try ModelVersionHistory.versions(connection, meta: meta)
        versionRecordCache = versions
        return versions
    }

    /// The model a segment was written with: the current one, or for a segment before a
    /// migration the version it was written in (segments name entities and slots by
    /// position, so each decodes only with its own model).
    package func model(forSegment sequence: UInt64) throws -> ManagedObjectModel {
        guard sequence < meta.modelSince else { return model }
        return try versionModels().last(where: { $0.firstSegment <= sequence })?.model ?? model
    }

    /// Every model version with the first segment it wrote, oldest first; the last is
    /// ``model`` itself, so records decoded with it compare equal to the document's.
    package func versionModels() throws -> [(firstSegment: UInt64, model: ManagedObjectModel)] {
        if let cached = versionModelCache { return cached }
        let versions = try modelVersions()
        var models: [(firstSegment: UInt64, model: ManagedObjectModel)] = []
        for (index, version) in versions.enumerated() {
            if index == versions.count - 1 {
                models.append((version.firstSegment, model))
                continue
            }
            do {
                models.append((version.firstSegment, try ManagedObjectModel(jsonData: version.modelJSON)))
            } catch let error as StrataError {
                throw DocumentOpenFailure.damaged(url.path, "the stored model version \(version.version) is damaged: \(error.message)")
            }
        }
        versionModelCache = models
        return models
    }

    /// Decodes a stored segment with a given model and store tag, checking it against its
    /// row (recovery decodes before it trusts the file's own metadata).
    static func decode(_ record: SegmentRecord, model: ManagedObjectModel, storeTag: UInt32,
                       maxSegmentSize: Int) throws -> Segment {
        func corrupt(_ why: String) -> StrataError {
            StrataError(.corruptSegment, "Segment \(record.sequence) is corrupt: \(why).", context: .init { $0.segment = record.sequence })
        }
        let raw: [UInt8]
        let segment: Segment
        do {
            raw = try LZ4Frame.decompress(record.body, maxContentSize: maxSegmentSize)
            segment = try SegmentDecoder.decode(raw, model: model, storeTag: storeTag, sequenceHint: record.sequence)
        } catch let error as StrataError {
            let message = error.message.hasPrefix("Segment") ? error.message : "Segment \(record.sequence) is corrupt: \(error.message)"
            throw StrataError(.corruptSegment, message, context: error.context.with { $0.segment = record.sequence })
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
        try LZ4Frame.decompress(record.body, maxContentSize: maxSegmentSize)
    }
}
