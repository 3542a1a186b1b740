import Foundation
import Strata
import StrataToolSupport

/// Writes the document as of a past save into the inspector's scratch folder, continuing
/// from the nearest replay it already made instead of replaying from the first save
/// (docs/INSPECTOR.md, "Time travel").
///
/// Each replay leaves checkpoints behind: a closed copy of the replay every
/// ``checkpointInterval`` saves (250). A travel to save N copies the latest checkpoint at or
/// before N and appends only the saves after it (``DocumentReplay/append(_:of:to:)``), so
/// on a long history a jump costs one file copy and at most ``checkpointInterval`` saves
/// once the first replay passed that way. A document migrated since its first save, or
/// one whose retention dropped its first saves, is replayed whole by `DocumentReplay`,
/// which migrates the copy where the document was migrated.
package final class InspectorTimeTravel {
    /// Saves between two checkpoints, unless told otherwise.
    package static let defaultCheckpointInterval: UInt64 = 250
    /// Saves between two checkpoints.
    let checkpointInterval: UInt64
    /// The most checkpoints kept (each is a copy of the document's snapshot at that save);
    /// past it, replays stop leaving new ones.
    static let checkpointLimit = 512
    /// The most bytes the checkpoints take together (1 GiB); past it, likewise.
    static let checkpointByteLimit = 1 << 30
    /// The bytes the checkpoints take.
    private var checkpointBytes = 0

    /// The scratch folder (created on first use).
    let folder: URL
    /// Checkpoint files by sequence.
    private(set) var checkpoints: [UInt64: URL] = [:]

    init(folder: URL, checkpointInterval: UInt64 = defaultCheckpointInterval) {
        self.folder = folder
        self.checkpointInterval = max(1, checkpointInterval)
    }

    /// Writes the document as of save `sequence` to `destination` (replacing it), and
    /// returns how many saves were appended to reach it (the cost of this travel).
    /// - Throws: 400 for history dropped by retention (as `strata-log replay` says it).
    func write(_ store: DocumentStore, through sequence: UInt64, to destination: URL) throws -> UInt64 {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard try canContinue(store) else {
            do {
                try DocumentReplay.replay(store.url, through: sequence, to: destination, overwrite: true,
                                          settings: ToolSettings.configuration(writes: false))
            } catch let error as StrataError where error.code == .invalidArgument {
                throw InspectorError.badRequest(error.message)
            }
            return sequence
        }
        let base = checkpoints.keys.filter { $0 <= sequence }.max() ?? 0
        Self.remove(destination)
        let configuration = Self.writingConfiguration()
        var target: DocumentStore
        if base > 0, let checkpoint = checkpoints[base] {
            try Self.copy(checkpoint, to: destination)
            target = try DocumentStore(openingAt: destination, model: store.model, configuration: configuration)
        } else {
            target = try DocumentStore(creatingAt: destination, model: store.model, overwrite: true, configuration: configuration)
        }
        do {
            var position = base
            while position < sequence {
                let stop = min(sequence, (position / checkpointInterval + 1) * checkpointInterval)
                try DocumentReplay.append((position + 1)...stop, of: store, to: target)
                position = stop
                if position % checkpointInterval == 0, position < sequence, checkpoints[position] == nil,
                   checkpoints.count < Self.checkpointLimit, checkpointBytes < Self.checkpointByteLimit {
                    // Folded first, so that opening the copy reads no log (retention none
                    // keeps none: the travelled views read only the snapshot).
                    try target.compact()
                    try target.close()
                    let checkpoint = folder.appendingPathComponent("checkpoint-\(position).strata")
                    try Self.copy(destination, to: checkpoint)
                    checkpoints[position] = checkpoint
                    checkpointBytes += Self.size(of: checkpoint)
                    target = try DocumentStore(openingAt: destination, model: store.model, configuration: configuration)
                }
            }
            try target.compact()
            try target.close()
        } catch {
            try? target.close()
            throw error
        }
        return sequence - base
    }

    /// Whether a replay can continue from a checkpoint: one model version (no migration to
    /// redo on the copy) and the log still holds the first save.
    private func canContinue(_ store: DocumentStore) throws -> Bool {
        guard try store.undoBoundary == nil else { return false }
        guard let first = try store.oldestHistoryToken?.sequence else { return try store.logPosition.last == 0 }
        return first == 1
    }

    /// A scratch replay's settings: writable, synced at checkpoints only (it is thrown
    /// away), compacted as a document is (automatically, and before each checkpoint and
    /// the end) and keeping no history: the views of a past save read its snapshot, and
    /// its history is read from the document itself.
    private static func writingConfiguration() -> DocumentStore.Configuration {
        var configuration = ToolSettings.configuration(writes: true)
        configuration.checksIntegrityOnOpen = false
        configuration.compactsOnClose = false
        configuration.retention = .none
        configuration.synchronous = .normal
        return configuration
    }

    /// A file's size with its write-ahead log.
    private static func size(of url: URL) -> Int {
        ["", "-wal"].reduce(0) { total, suffix in
            total + (((try? FileManager.default.attributesOfItem(atPath: url.path + suffix))?[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    /// Copies a closed document file with its write-ahead log, if one was left.
    static func copy(_ source: URL, to destination: URL) throws {
        remove(destination)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: destination.path + suffix)
        }
    }

    /// Removes a document file and its SQLite companions.
    static func remove(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }
}
