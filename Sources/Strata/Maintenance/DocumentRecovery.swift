import Foundation

/// What `strata-log recover` did.
package struct RecoveryReport: Sendable {
    /// The backup copy, when one was made (only when something had to change).
    package var backup: URL?
    /// Each dropped segment with the reason: damaged, or after a damaged segment.
    package var dropped: [(sequence: UInt64, reason: String)] = []
    /// What was rebuilt or salvaged, one sentence each.
    package var repairs: [String] = []
    /// What could not be restored, one sentence each.
    package var losses: [String] = []
    /// What verification found before the repair (empty when nothing was wrong).
    package var damage: [String] = []
}

/// Repairs a damaged document (`strata-log recover`); docs/RELIABILITY.md, "Damaged documents".
///
/// 1. Nothing changes when `strata-log verify` finds nothing wrong.
/// 2. The identity (store identifier, model, format, creation date) is checked against
///    its checksum and, when damaged, restored from a backup beside the document
///    (`DOC.bak*`) whose identity is intact, or by the single-byte repair the checksum
///    confirms; a damaged checksum over intact fields is rewritten.
/// 3. When the log is complete (history from segment 1, every segment decodes), the
///    document is rebuilt from it: a fresh file with the same identity, the segments'
///    stored bytes as they are, and snapshot tables compacted from them. Whatever was
///    damaged in the snapshot, indexes, group rows or counters is gone.
/// 4. Otherwise damaged segments are dropped (a damaged uncompacted segment with every
///    later one; a damaged compacted one with the history before it), and when SQLite
///    itself finds damage, every readable row is salvaged into a fresh file.
///
/// The file is copied to `DOC.bak-<timestamp>` (by rename, never partially) before it
/// changes; the repaired document replaces it by rename.
package enum DocumentRecovery {
    /// Recovers the document at `url`.
    /// - Throws: `.io` when there is no file; `.corruptDocument` when it is not a Strata
    ///   document, or is one that cannot be repaired (the message says what is missing).
    package static func recover(_ url: URL, now: Date = Date(),
                                settings: DocumentStore.Configuration = DocumentStore.Configuration()) throws -> RecoveryReport {
        var report = RecoveryReport()
        try DocumentOpenFailure.requireFile(url.path)
        foldLeftoverLog(url, busyTimeout: settings.busyTimeout)
        let verification: VerificationReport
        do {
            verification = try DocumentVerifier.verify(url, settings: settings)
        } catch let error as StrataError where [.notSQLite, .notStrata, .newerFormat, .busy, .diskFull, .permission].contains(error.context.kind)
                    || error.code == .io || error.code == .documentBusy || SQLiteFailureCause.of(error) == .diskFull {
            throw error   // no file, not a Strata document, busy, disk full...
        } catch let error as StrataError {
            verification = VerificationReport(problems: [error.message])
        }
        guard !verification.isValid else { return report }
        report.damage = verification.problems
        var stage = "reading the damaged document"
        do {
            return try repair(url, now: now, settings: settings, report: report, stage: &stage)
        } catch let error as StrataError where error.code == .sqlite && ![.diskFull, .permission, .busy, .io].contains(SQLiteFailureCause.of(error)) {
            // What SQLite said is kept, without the statement, inside Strata's own sentence.
            throw DocumentOpenFailure.damaged(
                url.path, "recovery failed while \(stage) (the database engine reported: \(DocumentOpenFailure.engineDetail(error.message))). The document was not replaced; restore it from a backup of your own",
                advice: false, context: .init { $0.operation = stage })
        }
    }

    /// Reads what the damaged document holds, backs it up and writes the repaired document
    /// in its place; `stage` names the step under way for an error.
    private static func repair(_ url: URL, now: Date, settings: DocumentStore.Configuration, report: RecoveryReport,
                               stage: inout String) throws -> RecoveryReport {
        var report = report
        var source = try RecoverySource(url, settings: settings)
        defer {
            source.connection.close()
            source.removeScratch()
        }
        stage = "checking the document's identity"
        try source.restoreIdentity(besides: url, report: &report)
        if case .integer(let format)? = source.values["formatVersion"], format > Int64(DocumentStore.formatVersion) {
            throw DocumentFile.newerFormat(url.path, format: format)
        }
        stage = "backing the document up"
        let backup = try makeBackup(url, now: now)
        report.backup = backup
        let building = AtomicFileWriter.temporaryName(for: url, purpose: "recovering")
        stage = "writing the repaired document"
        do {
            // A migrated document's log starts in an earlier model: its snapshot cannot be
            // compacted again from segment 1 in the current one, so its rows are copied.
            if source.logIsComplete, source.modelSince <= 1 {
                try source.rebuild(into: building, report: &report)
            } else {
                try source.salvage(into: building, report: &report)
            }
            // The old WAL (its content is in the backup and in what was read) must not be
            // applied to the new file.
            for suffix in ["-wal", "-shm"] { unlink(url.path + suffix) }
            try AtomicFileWriter.moveIntoPlace(building, url)
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(building.path + suffix) }
            throw error
        }
        return report
    }

    /// Copies the document (and an uncheckpointed `-wal`) to `DOC.bak-<timestamp>`.
    private static func makeBackup(_ url: URL, now: Date) throws -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let backup = URL(fileURLWithPath: url.path + ".bak-" + formatter.string(from: now))
        try AtomicFileWriter.copy(from: url, to: backup)
        if DocumentCheckpoint.walBytes(url.path) > 0 {
            try AtomicFileWriter.copy(from: URL(fileURLWithPath: url.path + "-wal"), to: URL(fileURLWithPath: backup.path + "-wal"))
        }
        return backup
    }

    /// Recovery writes, so saves a killed process left in `DOC-wal` are folded into the file
    /// first (SQLite does that when a writing connection opens it): the read-only
    /// verification then sees them, and the backup holds them. A file SQLite cannot open is
    /// left for the verification to describe.
    private static func foldLeftoverLog(_ url: URL, busyTimeout: TimeInterval) {
        guard DocumentCheckpoint.walBytes(url.path) > 0,
              let connection = try? SQLiteConnection.openExisting(path: url.path, flags: [.readWrite], busyTimeout: busyTimeout,
                                                                  probe: "SELECT 1 FROM sqlite_schema LIMIT 1")
        else { return }
        _ = try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
    }
}
