import Foundation

/// What `strata-log recover` did.
package struct RecoveryReport: Sendable {
    /// The backup copy, when one was made (only when something had to change).
    package var backup: URL?
    /// Each dropped segment with the reason: damaged, or after a damaged segment.
    package var dropped: [(sequence: UInt64, reason: String)] = []
}

/// Repairs a document whose log is damaged (`strata-log recover`).
///
/// Damaged segments (bad LZ4 frame or checksum, undecodable body, body disagreeing with
/// its row) are found without opening the store. A damaged segment not yet compacted is
/// dropped with every later segment (they were saved on top of it), so the document opens
/// again as it was before the damage. A damaged segment already in the snapshot loses no
/// data: it and the segments before it are dropped, as the retention policy would. The
/// file is copied to `DOC.bak-<timestamp>` first; nothing is changed when nothing is damaged.
package enum DocumentRecovery {
    /// Recovers the document at `url`.
    /// - Throws: `.io` / `.corruptDocument` when it is not a document; SQLite errors.
    package static func recover(_ url: URL, now: Date = Date()) throws -> RecoveryReport {
        var report = RecoveryReport()
        var damaged: [UInt64: String] = [:]
        let records: [SegmentRecord]
        let compactedThrough: UInt64
        do {
            let log = try ToolLogFile(url)
            records = try log.segmentRecords()
            compactedThrough = log.compactedThrough
            for record in records {
                do { _ = try log.decode(record) } catch let error as StrataError { damaged[record.sequence] = error.message }
            }
        }
        guard !damaged.isEmpty else { return report }

        var drop: [(UInt64, String)] = []
        let damagedCompacted = damaged.keys.filter { $0 <= compactedThrough }
        if let through = damagedCompacted.max() {
            for record in records where record.sequence <= through {
                drop.append((record.sequence, damaged[record.sequence].map { "damaged: \($0)" }
                    ?? "already in the snapshot, before damaged segment \(through) (history before it dropped)"))
            }
        }
        if let first = damaged.keys.filter({ $0 > compactedThrough }).min() {
            for record in records where record.sequence >= first {
                drop.append((record.sequence, damaged[record.sequence].map { "damaged: \($0)" }
                    ?? "saved after damaged segment \(first)"))
            }
        }

        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let backup = URL(fileURLWithPath: url.path + ".bak-" + formatter.string(from: now))
        do {
            if FileManager.default.fileExists(atPath: backup.path) { try FileManager.default.removeItem(at: backup) }
            try FileManager.default.copyItem(at: url, to: backup)
        } catch {
            throw StrataError(.io, "Cannot make the backup \(backup.path): \(error.localizedDescription)", context: ["path": backup.path])
        }
        report.backup = backup

        let connection = try SQLiteConnection(path: url.path, flags: [.readWrite], busyTimeout: 5)
        defer { connection.close() }
        try connection.transaction(.immediate) {
            let deleteSegment = try connection.prepare("DELETE FROM strata_segment WHERE seq = ?")
            let deleteGroups = try connection.prepare("DELETE FROM strata_group WHERE seq = ?")
            for (sequence, _) in drop {
                try deleteSegment.run([.integer(Int64(sequence))])
                try deleteGroups.run([.integer(Int64(sequence))])
            }
        }
        report.dropped = drop.sorted { $0.0 < $1.0 }.map { (sequence: $0.0, reason: $0.1) }
        return report
    }
}
