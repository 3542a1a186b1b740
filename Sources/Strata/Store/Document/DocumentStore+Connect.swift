import Foundation

extension DocumentStore {
    /// Opens the SQLite connection of a document (a new one being built, or an existing
    /// one) with the store's settings. Every failure names its cause
    /// (``DocumentOpenFailure``); `busyTimeout` applies from the first read on.
    static func connect(_ url: URL, configuration: Configuration, create: Bool) throws -> SQLiteConnection {
        if configuration.isReadOnly, !create { return try connectReadOnly(url, configuration: configuration) }
        let connection: SQLiteConnection
        do {
            if create {
                connection = try SQLiteConnection(path: url.path, flags: [.readWrite, .create], busyTimeout: configuration.busyTimeout)
            } else {
                // Read before anything writes: switching a plain database or an empty file to
                // WAL would change a file this store then refuses.
                connection = try SQLiteConnection.openExisting(
                    path: url.path, flags: [.readWrite], busyTimeout: configuration.busyTimeout,
                    probe: "SELECT value FROM strata_meta WHERE key = 'format'")
            }
        } catch {
            throw DocumentOpenFailure.describe(error, path: url.path, busyTimeout: configuration.busyTimeout)
        }
        do {
            try connection.execute("PRAGMA synchronous=\(configuration.synchronous.rawValue)")
            try connection.execute("PRAGMA foreign_keys=OFF")
            try connection.setPageCacheSize(configuration.pageCacheSize)
            try SQLFunctions.register(on: connection)
            if !create, configuration.checksIntegrityOnOpen {
                try DocumentWriteCheck.check(connection, path: url.path, maxSegmentSize: configuration.maxSegmentSize)
            }
            // A save whose checkpoint could not finish (a full disk) left its pages in the
            // WAL; fold in what can be folded without waiting for other connections.
            if !create, DocumentCheckpoint.walBytes(url.path) > 0 {
                _ = try? connection.prepare("PRAGMA wal_checkpoint(PASSIVE)").rows()
            }
        } catch {
            connection.close()
            throw DocumentOpenFailure.describe(error, path: url.path, busyTimeout: configuration.busyTimeout)
        }
        return connection
    }

    /// Opens a document read-only (``Configuration/isReadOnly``): SQLite can write nothing
    /// to the file, and nothing is checkpointed.
    ///
    /// In WAL mode a reader needs `DOC-wal` and `DOC-shm`; SQLite creates them when they
    /// are missing, and a read-only connection cannot remove them when it closes.
    /// ``finishReadOnly(_:)`` lets SQLite do that once the connection is closed. A `-wal`
    /// holding saves while no process has the document open is work left unfinished (a
    /// killed writer, a checkpoint a full disk stopped): those saves were acknowledged, so
    /// the document is the main file *with* its WAL, and a reader must see them
    /// (``openWithLeftoverLog(_:configuration:)``; docs/RELIABILITY.md, "Documents that
    /// are only read").
    /// - Throws: `.io` with `context.kind == .needsWrite` when such a WAL cannot be read
    ///   here (SQLite needs to write its index beside the document); the errors of
    ///   ``DocumentOpenFailure``.
    static func connectReadOnly(_ url: URL, configuration: Configuration) throws -> SQLiteConnection {
        let leftoverLog = DocumentCheckpoint.walBytes(url.path) > 0
            && DocumentLockHolder.holder(of: url.path, countingThisProcess: true) == nil
        if leftoverLog, let connection = try openWithLeftoverLog(url, configuration: configuration) {
            return connection
        }
        let connection: SQLiteConnection
        do {
            connection = try openReadOnly(url.path, busyTimeout: configuration.busyTimeout)
        } catch {
            finishReadOnly(url)
            if leftoverLog, DocumentCheckpoint.walBytes(url.path) > 0 { throw unreadableLeftoverLog(url, error) }
            throw DocumentOpenFailure.describe(error, path: url.path, busyTimeout: configuration.busyTimeout)
        }
        do {
            try prepareForReading(connection, url: url, configuration: configuration)
        } catch {
            connection.close()
            finishReadOnly(url)
            throw DocumentOpenFailure.describe(error, path: url.path, busyTimeout: configuration.busyTimeout)
        }
        return connection
    }

    /// The settings every reading connection gets.
    private static func prepareForReading(_ connection: SQLiteConnection, url: URL, configuration: Configuration) throws {
        try connection.setPageCacheSize(configuration.pageCacheSize)
        try SQLFunctions.register(on: connection)
        if configuration.checksIntegrityOnOpen { try DocumentCheckpoint.quickCheck(connection, path: url.path) }
    }

    /// A document whose `-wal` holds saves nobody has open, opened for reading.
    ///
    /// When the document and its directory can be written, a read-write connection lets
    /// SQLite recover the WAL and folds it into the main file (`wal_checkpoint(TRUNCATE)`),
    /// as the writer would have: the document is a single file again, and nil is returned
    /// so that the read-only open goes on as usual. When the fold cannot finish (the disk is
    /// still full), a read-only connection reads the document with its WAL, or when SQLite
    /// cannot open one, that read-write connection is the reader: either sees every save
    /// in the WAL, and the store above it writes nothing (``Configuration/isReadOnly``); a later command folds
    /// the WAL in once there is room. When nothing beside the document can be written, nil
    /// is returned too, and SQLite reads the WAL read-only if it can.
    /// - Throws: `.io` "needsWrite" when SQLite cannot open the document with its WAL.
    private static func openWithLeftoverLog(_ url: URL, configuration: Configuration) throws -> SQLiteConnection? {
        let manager = FileManager.default
        let directory = url.deletingLastPathComponent().path
        guard manager.isWritableFile(atPath: url.path), manager.isWritableFile(atPath: directory.isEmpty ? "." : directory) else {
            return nil
        }
        var connection: SQLiteConnection
        // The probe reads strata_meta before anything is written, so a file that is not a
        // document is refused unchanged.
        func openToWrite() throws -> SQLiteConnection {
            do {
                return try SQLiteConnection.openExisting(
                    path: url.path, flags: [.readWrite], busyTimeout: configuration.busyTimeout,
                    probe: "SELECT value FROM strata_meta WHERE key = 'format'")
            } catch {
                throw unreadableLeftoverLog(url, error)
            }
        }
        connection = try openToWrite()
        if DocumentCheckpoint.finish(connection, path: url.path) == nil, DocumentCheckpoint.walBytes(url.path) == 0 {
            // Folded in: the last connection's close removes the empty -wal and the -shm.
            connection.close()
            return nil
        }
        // Not folded (the disk is still full): read it as any reader does, sharing the
        // document with this process's other connections. On a disk too full for SQLite's
        // index of the WAL, a read-write connection opened again reads, keeping that index in memory
        // (and the document to itself while it is open).
        connection.close()
        if let reader = try? openReadOnly(url.path, busyTimeout: configuration.busyTimeout) {
            do {
                try prepareForReading(reader, url: url, configuration: configuration)
            } catch {
                reader.close()
                throw DocumentOpenFailure.describe(error, path: url.path, busyTimeout: configuration.busyTimeout)
            }
            return reader
        }
        connection = try openToWrite()
        do {
            // SQLite itself then refuses any change through this connection.
            try connection.execute("PRAGMA query_only=1")
            try prepareForReading(connection, url: url, configuration: configuration)
        } catch {
            connection.close()
            throw DocumentOpenFailure.describe(error, path: url.path, busyTimeout: configuration.busyTimeout)
        }
        return connection
    }

    /// The error for a `-wal` holding saves that SQLite cannot open here.
    private static func unreadableLeftoverLog(_ url: URL, _ error: any Error) -> StrataError {
        let cause = DocumentOpenFailure.describe(error, path: url.path, busyTimeout: 0)
        return StrataError(
            .io,
            "\(url.path)-wal holds saves that are not yet in \(url.path) (a process stopped before folding them in), and they cannot be read here: \(cause.message) Open the document once where it can be written to finish (any command can, when the file and its directory are writable).",
            context: .init { $0.path = url.path; $0.kind = .needsWrite })
    }

    /// A read-only connection that has read `strata_meta`. On a disk too full for
    /// `DOC-shm` (or when SQLite cannot create it), and with no `DOC-wal` to read, the file
    /// is opened `immutable`: SQLite then creates no files and takes no locks (nobody can
    /// write to a full disk meanwhile).
    private static func openReadOnly(_ path: String, busyTimeout: TimeInterval) throws -> SQLiteConnection {
        let probe = "SELECT value FROM strata_meta WHERE key = 'format'"
        func attempt(_ name: String, _ flags: SQLiteConnection.OpenFlags) throws -> SQLiteConnection {
            let connection = try SQLiteConnection(path: name, flags: flags, busyTimeout: busyTimeout)
            do {
                _ = try connection.prepare(probe).rows()
            } catch {
                connection.close()
                throw error
            }
            return connection
        }
        let hasWAL = FileManager.default.fileExists(atPath: path + "-wal")
        if hasWAL || SQLiteConnection.freeBytes(besides: path).map({ $0 >= 256 << 10 }) ?? true {
            do {
                return try attempt(path, [.readOnly])
            } catch let error as StrataError where !hasWAL && [.diskFull, .io].contains(SQLiteFailureCause.of(error)) {
                finishReadOnly(URL(fileURLWithPath: path))
            }
        }
        let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))) ?? path
        return try attempt("file:\(escaped)?immutable=1", [.readOnly, .uri])
    }

    /// After a read-only connection closed: when `DOC-wal` or `DOC-shm` is left, opens and
    /// closes a plain connection so that SQLite removes them as the last connection does.
    /// The WAL then holds nothing of this store's (it never writes), so the main file is
    /// not written — unless another process saved meanwhile and could not fold its saves
    /// in because this reader was open; those are folded in now, as their writer would
    /// have. While another connection is open, SQLite leaves the files to it.
    static func finishReadOnly(_ url: URL) {
        let manager = FileManager.default
        guard manager.fileExists(atPath: url.path + "-wal") || manager.fileExists(atPath: url.path + "-shm"),
              manager.isWritableFile(atPath: url.path),
              let connection = try? SQLiteConnection.openExisting(path: url.path, flags: [.readWrite], busyTimeout: 0,
                                                                 probe: "SELECT 1 FROM sqlite_schema LIMIT 1")
        else { return }
        connection.close()
    }
}
