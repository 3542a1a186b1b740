import Foundation

extension DocumentStore {
    /// Opens the SQLite connection of a document (a new one being built, or an existing
    /// one) with the store's settings. Every failure names its cause
    /// (``DocumentOpenFailure``); `busyTimeout` applies from the first read on.
    static func connect(_ url: URL, configuration: Configuration, create: Bool) throws -> SQLiteConnection {
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
            try connection.execute("PRAGMA cache_size=-\(max(configuration.pageCacheSize / 1024, 1))")
            try SQLFunctions.register(on: connection)
            if !create, configuration.checksIntegrityOnOpen { try DocumentCheckpoint.quickCheck(connection, path: url.path) }
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
}
