import Foundation
import Strata
import StrataToolSupport

/// Writes the document as of a past save into the inspector's scratch folder, continuing
/// from the nearest checkpoint instead of replaying from the first save (docs/INSPECTOR.md,
/// "Time travel").
///
/// A checkpoint is a closed, compacted replay of the document through a save that is a
/// multiple of ``checkpointInterval`` (250). ``prepare(_:isCancelled:)`` lays them over the
/// whole history in the background when the inspector opens a document; a travel to save N
/// copies the latest checkpoint at or before N and appends only the saves after it
/// (``DocumentReplay/append(_:of:to:folding:)``, folded into one save), and leaves the
/// checkpoints it passes when the preparation has not reached them yet. A document
/// migrated since its first save, or one whose retention dropped its first saves, is
/// replayed whole by `DocumentReplay`, which migrates the copy where the document was
/// migrated.
///
/// Safe to call from the request threads and the preparing thread at once: the checkpoint
/// table and the progress are behind one `Locked`, and each replay writes its own files.
package final class InspectorTimeTravel: @unchecked Sendable {
    /// Saves between two checkpoints, unless told otherwise.
    package static let defaultCheckpointInterval: UInt64 = 250
    /// Saves between two checkpoints a travel leaves; the preparation spaces them wider on a
    /// history longer than ``checkpointLimit`` of them cover.
    let checkpointInterval: UInt64
    /// The most checkpoints kept (each is a copy of the document's snapshot at that save);
    /// past it, replays stop leaving new ones.
    static let checkpointLimit = 512
    /// The most bytes the checkpoints take together (1 GiB); past it, likewise.
    static let checkpointByteLimit = 1 << 30

    /// The scratch folder (created on first use).
    let folder: URL
    /// What the request threads and the preparing thread share.
    private struct Shared {
        /// Checkpoint files by sequence.
        var checkpointFiles: [UInt64: URL] = [:]
        /// The bytes the checkpoints take.
        var checkpointBytes = 0
        /// How far the background preparation is.
        var progress = InspectorTimeTravelProgress()

        /// Whether another checkpoint fits the limits.
        var canLeaveCheckpoint: Bool {
            checkpointFiles.count < InspectorTimeTravel.checkpointLimit && checkpointBytes < InspectorTimeTravel.checkpointByteLimit
        }
    }
    private let shared = Locked(Shared())

    init(folder: URL, checkpointInterval: UInt64 = defaultCheckpointInterval) {
        self.folder = folder
        self.checkpointInterval = max(1, checkpointInterval)
    }

    /// How far the background preparation is (``prepare(_:isCancelled:)``).
    var preparation: InspectorTimeTravelProgress { shared.withLock { $0.progress } }

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
        let (base, checkpoint) = shared.withLock { shared -> (UInt64, URL?) in
            let base = shared.checkpointFiles.keys.filter { $0 <= sequence }.max() ?? 0
            return (base, shared.checkpointFiles[base])
        }
        Self.remove(destination)
        var target: DocumentStore
        if let checkpoint {
            try Self.copy(checkpoint, to: destination)
            target = try DocumentStore(openingAt: destination, model: store.model, configuration: Self.writingConfiguration())
        } else {
            target = try DocumentStore(creatingAt: destination, model: store.model, overwrite: true,
                                       configuration: Self.writingConfiguration())
        }
        do {
            try advance(&target, at: destination, of: store, from: base, through: sequence, interval: checkpointInterval)
            try target.compact()
            try target.close()
        } catch {
            try? target.close()
            throw error
        }
        return sequence - base
    }

    /// Lays checkpoints over the whole history, from the first save to the last one there
    /// is now, so that a travel to any save copies one and appends fewer than an interval
    /// of saves: run once, on its own thread, when the inspector opens the document. A
    /// history longer than ``checkpointLimit`` intervals gets wider ones; the
    /// ``checkpointByteLimit`` stops it early (the travels past there replay further).
    /// Failures are recorded in ``preparation``, never thrown: travels still work without it.
    /// - Complexity: O(bytes of the log), each save decoded once and saved folded with the
    ///   others of its interval.
    func prepare(_ store: DocumentStore, isCancelled: () -> Bool) {
        let started = Date()
        do {
            guard try canContinue(store) else {
                update { $0.state = .replaysWhole }
                return
            }
            let last = try store.logPosition.last
            let covered = UInt64(Self.checkpointLimit) * checkpointInterval
            let interval = last <= covered ? checkpointInterval
                : (last / UInt64(Self.checkpointLimit) / checkpointInterval + 1) * checkpointInterval
            update { $0.state = .preparing; $0.last = last; $0.interval = interval }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let destination = folder.appendingPathComponent("preparing.strata")
            var target = try DocumentStore(creatingAt: destination, model: store.model, overwrite: true,
                                           configuration: Self.writingConfiguration())
            defer {
                try? target.close()
                Self.remove(destination)
            }
            var position: UInt64 = 0
            while position < last, !isCancelled() {
                let stop = min(last, (position / interval + 1) * interval)
                try advance(&target, at: destination, of: store, from: position, through: stop, interval: interval,
                            checkpointsAtEnd: true)
                position = stop
                let full = shared.withLock { !$0.canLeaveCheckpoint }
                update { $0.prepared = position; $0.seconds = Date().timeIntervalSince(started) }
                if full, position < last {
                    update { $0.state = .stoppedAtLimit }
                    return
                }
            }
            update { $0.state = isCancelled() ? .cancelled : .ready; $0.seconds = Date().timeIntervalSince(started) }
        } catch {
            let message = (error as? StrataError)?.message ?? "\(error)"
            update { $0.state = .failed; $0.message = message }
        }
    }

    /// Appends saves `base + 1 … sequence` of `store` to `target` (a replay through `base`,
    /// open at `destination`), leaving a checkpoint at each multiple of `interval` on the
    /// way that has none yet, and at `sequence` itself only when `checkpointsAtEnd`.
    private func advance(_ target: inout DocumentStore, at destination: URL, of store: DocumentStore,
                         from base: UInt64, through sequence: UInt64, interval: UInt64,
                         checkpointsAtEnd: Bool = false) throws {
        var position = base
        while position < sequence {
            let stop = min(sequence, (position / interval + 1) * interval)
            try DocumentReplay.append((position + 1)...stop, of: store, to: target, folding: true)
            position = stop
            guard position % interval == 0, position < sequence || checkpointsAtEnd,
                  shared.withLock({ $0.checkpointFiles[position] == nil && $0.canLeaveCheckpoint }) else { continue }
            // Folded first, so that opening the copy reads no log (retention none keeps
            // none: the travelled views read only the snapshot).
            try target.compact()
            try target.close()
            let file = folder.appendingPathComponent("checkpoint-\(position)-\(UUID().uuidString).strata")
            try Self.copy(destination, to: file)
            let size = Self.size(of: file)
            let kept = shared.withLock { shared -> Bool in
                guard shared.checkpointFiles[position] == nil else { return false }
                shared.checkpointFiles[position] = file
                shared.checkpointBytes += size
                return true
            }
            if !kept { Self.remove(file) }
            target = try DocumentStore(openingAt: destination, model: store.model, configuration: Self.writingConfiguration())
        }
    }

    /// Whether a replay can continue from a checkpoint: one model version (no migration to
    /// redo on the copy) and the log still holds the first save.
    private func canContinue(_ store: DocumentStore) throws -> Bool {
        guard try store.undoBoundary == nil else { return false }
        guard let first = try store.oldestHistoryToken?.sequence else { return try store.logPosition.last == 0 }
        return first == 1
    }

    private func update(_ change: (inout InspectorTimeTravelProgress) -> Void) {
        shared.withLock { change(&$0.progress) }
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
