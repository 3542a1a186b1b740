import Foundation

/// What the command-line tools do around opening a document so that a command that fails
/// (or only reads) leaves the file's bytes as they were.
///
/// - ``probe(_:)`` checks, without writing anything, that a path is a Strata document
///   before a ``DocumentStore`` opens it read-write (opening an empty file or a foreign
///   SQLite database read-write would otherwise convert it to WAL mode).
/// - Opening and closing a ``DocumentStore`` switches the journal to WAL and back, which
///   bumps SQLite's file change counter (header bytes 24–27 and 92–99) even when nothing
///   was written. ``restoreHeaderIfUnchanged()`` puts those counters back when they are
///   the only difference, the file size is the same and no save happened.
///
/// ```swift
/// let guardian = try ToolDocumentGuard(url)    // probes and remembers the header
/// let store = try DocumentStore(openingAt: url)
/// // ... read ...
/// try store.close()
/// guardian.restoreHeaderIfUnchanged()
/// ```
package struct ToolDocumentGuard: Sendable {
    /// The document.
    package let url: URL
    private let header: [UInt8]
    private let size: Int

    /// Probes the document and remembers its header.
    /// - Throws: as ``probe(_:)``.
    package init(_ url: URL) throws {
        self.url = url
        try Self.probe(url)
        header = Self.readHeader(url)
        size = Self.fileSize(url)
    }

    /// Checks that `url` names a readable Strata document without changing it.
    /// - Throws: `.io` when there is no file, `.corruptDocument` when it is not an SQLite
    ///   file or has no Strata metadata.
    package static func probe(_ url: URL) throws {
        try DocumentOpenFailure.requireFile(url.path)
        if DocumentOpenFailure.kind(of: url.path) == .notSQLite {
            throw StrataError(.corruptDocument, "\(url.path) is not a Strata document: it is not an SQLite file.",
                              context: ["path": url.path, "kind": "notSQLite"])
        }
        let connection = try SQLiteConnection.openForReading(url.path)
        defer { connection.close() }
        _ = try DocumentFile.readMeta(connection, path: url.path, checksIdentity: false)
    }

    /// After a ``DocumentStore`` failed to open the document: switches the journal back
    /// from WAL (the failed open leaves it in WAL mode), then restores the counters.
    package func restoreAfterFailedOpen() {
        let now = Self.readHeader(url)
        if now.count == 100, header.count == 100, now[18] != header[18] || now[19] != header[19],
           let connection = try? SQLiteConnection(path: url.path, flags: [.readWrite], busyTimeout: ToolSettings.busyTimeout) {
            try? connection.execute("PRAGMA journal_mode=\(header[18] == 2 ? "WAL" : "DELETE")")
            connection.close()
        }
        restoreHeaderIfUnchanged()
    }

    /// Puts back SQLite's change counters when opening and closing changed nothing else.
    package func restoreHeaderIfUnchanged() {
        guard header.count == 100, Self.fileSize(url) == size,
              !FileManager.default.fileExists(atPath: url.path + "-wal")
        else { return }
        let now = Self.readHeader(url)
        guard now.count == 100, now != header else { return }
        let counters = Set(24..<28).union(92..<100)
        for index in 0..<100 where now[index] != header[index] && !counters.contains(index) { return }
        guard let handle = FileHandle(forUpdatingAtPath: url.path) else { return }
        defer { try? handle.close() }
        try? handle.seek(toOffset: 0)
        try? handle.write(contentsOf: Data(header))
    }

    private static func readHeader(_ url: URL) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return [] }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: 100)) ?? Data())
    }

    private static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? -1
    }
}

extension SQLiteConnection {
    /// Opens a document's file to read it. Read-write when the file allows it, although
    /// nothing is written: a read-only connection to a WAL document cannot remove the
    /// `-wal` and `-shm` files when it closes, and would leave them beside the document.
    /// Works on a full disk (``openExisting(path:flags:busyTimeout:probe:)``).
    /// - Throws: the errors of ``DocumentOpenFailure``, naming the cause.
    package static func openForReading(_ path: String, busyTimeout: TimeInterval = ToolSettings.busyTimeout) throws -> SQLiteConnection {
        let flags: OpenFlags = FileManager.default.isWritableFile(atPath: path) ? [.readWrite] : [.readOnly]
        do {
            return try openExisting(path: path, flags: flags, busyTimeout: busyTimeout, probe: "SELECT value FROM strata_meta WHERE key = 'format'")
        } catch {
            throw DocumentOpenFailure.describe(error, path: path, busyTimeout: busyTimeout)
        }
    }
}
