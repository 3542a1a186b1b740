import CSQLite
import Foundation

extension SQLiteConnection {
    /// Opens an existing database and reads `probe` as its first access, so that a file
    /// SQLite cannot use fails here.
    ///
    /// In WAL mode every connection maps a `-shm` file of at least 32 KiB. On a full disk
    /// SQLite cannot create or extend it and every read failed with "disk I/O error". So
    /// when the disk has almost no room left (or the first read fails for want of it), the
    /// connection uses `locking_mode=EXCLUSIVE` from before its first access: SQLite then
    /// keeps the WAL index in private memory and needs no `-shm`. Such a connection keeps
    /// other processes out while it is open, which a command on a full disk can afford.
    /// A `-wal`/`-shm` left behind by the failed first try (and created by it) is removed.
    ///
    /// - Throws: ``StrataError`` from SQLite (with `context.cause`).
    package static func openExisting(path: String, flags: OpenFlags, busyTimeout: TimeInterval, probe: String) throws -> SQLiteConnection {
        let manager = FileManager.default
        let hadWAL = manager.fileExists(atPath: path + "-wal"), hadSHM = manager.fileExists(atPath: path + "-shm")
        func attempt(exclusive: Bool) throws -> SQLiteConnection {
            let connection = try SQLiteConnection(path: path, flags: flags, busyTimeout: busyTimeout)
            do {
                if exclusive { try connection.execute("PRAGMA locking_mode=EXCLUSIVE") }
                _ = try connection.prepare(probe).rows()
            } catch {
                connection.close()
                throw error
            }
            return connection
        }
        if freeBytes(besides: path).map({ $0 >= 256 << 10 }) ?? true {
            do {
                return try attempt(exclusive: false)
            } catch let error as StrataError where lacksRoomForSharedMemory(error) {
                removeLeftovers(path, hadWAL: hadWAL, hadSHM: hadSHM)
            }
        }
        return try attempt(exclusive: true)
    }

    /// Free bytes on the file system holding `path`, or nil when the system does not say.
    package static func freeBytes(besides path: String) -> Int64? {
        var info = statvfs()
        let directory = (path as NSString).deletingLastPathComponent
        guard statvfs(directory.isEmpty ? "." : directory, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Whether an error is SQLite failing to create, size or map the `-shm` file, or the
    /// disk being full.
    private static func lacksRoomForSharedMemory(_ error: StrataError) -> Bool {
        if SQLiteFailureCause.of(error) == .diskFull { return true }
        let extended = error.context.sqliteExtendedCode ?? 0
        // SQLITE_IOERR_SHMOPEN, _SHMSIZE, _SHMLOCK, _SHMMAP (SQLITE_IOERR | 18...21 << 8).
        return (18...21).map { SQLITE_IOERR | Int32($0 << 8) }.contains(extended)
    }

    /// Removes an empty `-wal` and a never-initialized `-shm` (under 32 KiB) that a failed
    /// open created; files that existed before, or that another connection uses (a live
    /// `-shm` is at least 32 KiB), stay.
    private static func removeLeftovers(_ path: String, hadWAL: Bool, hadSHM: Bool) {
        func size(_ file: String) -> Int64? {
            var info = stat()
            return stat(file, &info) == 0 ? Int64(info.st_size) : nil
        }
        if !hadSHM, let bytes = size(path + "-shm"), bytes < 32 << 10 { unlink(path + "-shm") }
        if !hadWAL, size(path + "-wal") == 0 { unlink(path + "-wal") }
    }
}
