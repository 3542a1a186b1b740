import Foundation

/// Time travel (`strata-log replay`): writes a new document holding a document as it was
/// after one of its segments, by re-appending segments 1 through that one — groups,
/// action names and timestamps included, so the new document's undo history is the old
/// one's up to that point. Object keys are kept; the new document has its own store
/// identifier.
///
/// ```swift
/// let written = try DocumentReplay.replay(source, through: 12, to: copyURL)
/// ```
package enum DocumentReplay {
    /// The last stored segment saved at or before `date`, or nil when none was.
    package static func lastSegment(of source: URL, atOrBefore date: Date,
                                    settings: DocumentStore.Configuration = DocumentStore.Configuration()) throws -> UInt64? {
        let log = try DocumentLogFile(source, settings: settings)
        return try log.segmentRecords().last(where: { $0.timestamp <= date })?.sequence
    }

    /// Replays segments `1...sequence` of `source` into a new document at `destination`.
    /// Returns the number of segments written.
    /// - Throws: `.invalidArgument` when the history before the target was dropped
    ///   (retention) or the sequence is past the last segment; `.corruptSegment` when a
    ///   segment on the way is damaged; `.io` when `destination` exists and `overwrite` is false.
    /// - Complexity: O(bytes of segments 1...sequence).
    @discardableResult
    package static func replay(_ source: URL, through sequence: UInt64, to destination: URL, overwrite: Bool = false,
                               settings: DocumentStore.Configuration = DocumentStore.Configuration(),
                               progress: ((Int, Int) -> Void)? = nil) throws -> Int {
        let log = try DocumentLogFile(source, settings: settings)
        let records = try log.segmentRecords()
        let last = records.last?.sequence ?? 0
        guard sequence <= last else {
            throw StrataError(.invalidArgument, "The document's last segment is \(last); there is no segment \(sequence) to replay to.",
                              context: .init { $0.segment = sequence })
        }
        if let first = records.first, first.sequence != 1, sequence > 0 {
            throw StrataError(.invalidArgument,
                              "Replay needs the full history, but segments before \(first.sequence) were dropped by compaction's retention policy.",
                              context: .init { $0.boundarySegment = first.sequence })
        }
        if records.isEmpty, log.compactedThrough > 0 {
            throw StrataError(.invalidArgument, "Replay needs the full history, but the document keeps no segments (retention none).")
        }
        let wanted = records.filter { $0.sequence <= sequence }
        let segments = try wanted.map(log.decode)
        guard source.standardizedFileURL.path != destination.standardizedFileURL.path else {
            throw StrataError(.invalidArgument, "The output must be another file than the document.", context: .init { $0.path = destination.path })
        }
        if FileManager.default.fileExists(atPath: destination.path), !overwrite {
            throw StrataError(.io, "\(destination.path) already exists (pass overwrite to replace it).", context: .init { $0.path = destination.path })
        }
        // Built under a hidden name and renamed over the target only when complete: a
        // failure (a full disk) never destroys an existing file at `destination`.
        let building = AtomicFileWriter.temporaryName(for: destination, purpose: "replaying")
        var configuration = settings
        configuration.isReadOnly = false
        configuration.checksIntegrityOnOpen = false
        configuration.compactsOnClose = false
        // Each model version in turn: the segments of a version are appended with its model,
        // and the new document is migrated where the document was (docs/MIGRATION.md).
        // A custom stage's code is not in the document: its recorded output (its checkpoint,
        // docs/MIGRATION.md) is what the replayed document is migrated to.
        var versions: [(firstSegment: UInt64, model: ManagedObjectModel, code: MigrationStageCode)] = []
        for (record, version) in zip(try log.modelVersions(), try log.versionModels()) where version.firstSegment <= max(sequence, 1) {
            var code = MigrationStageCode.inferred
            if record.isCustom, !versions.isEmpty {
                guard let saved = try log.checkpoint(of: record) else {
                    throw StrataError(.invalidArgument,
                                      "Replay cannot cross model version \(record.version) (segment \(record.firstSegment)): a custom migration stage made it before documents recorded what such a stage wrote. Replay to segment \(record.firstSegment - 1) or earlier.",
                                      context: .init { $0.segment = record.firstSegment })
                }
                code = .checkpoint(saved)
            }
            versions.append((version.firstSegment, version.model, code))
        }
        let first = versions.removeFirst()
        var store = try DocumentStore(creatingAt: building, model: first.model, configuration: configuration)
        do {
            for (index, segment) in segments.enumerated() {
                while let next = versions.first, next.firstSegment <= segment.sequence {
                    versions.removeFirst()
                    store = try migrate(store, at: building, to: next.model, code: next.code, configuration: configuration)
                }
                try appendSaved(segment, to: store)
                progress?(index + 1, segments.count)
            }
            for next in versions { store = try migrate(store, at: building, to: next.model, code: next.code, configuration: configuration) }
            try store.close()
            try AtomicFileWriter.moveIntoPlace(building, destination)
        } catch {
            try? store.close()
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: building.path + suffix) }
            throw error
        }
        return segments.count
    }

    /// Closes `store`, migrates its file to `model` and opens it again with that model.
    private static func migrate(_ store: DocumentStore, at url: URL, to model: ManagedObjectModel, code: MigrationStageCode,
                                configuration: DocumentStore.Configuration) throws -> DocumentStore {
        try store.close()
        try DocumentStore.migrate(at: url, to: model, configuration: configuration, code: code, progress: nil)
        return try DocumentStore(openingAt: url, model: model, configuration: configuration)
    }
}
