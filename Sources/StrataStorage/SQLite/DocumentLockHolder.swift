import Foundation

/// Which process holds a lock on a document, for "busy" errors.
///
/// SQLite locks with POSIX advisory locks: a WAL writer on byte 120 of `DOC-shm`, readers
/// and checkpointers on the bytes after it, a rollback-journal writer on the lock bytes at
/// 1 GiB in the database file. The holder is read from `/proc/locks` (Linux), never by
/// `fcntl(F_GETLK)`: that needs a descriptor of the file, and closing any descriptor of a
/// file drops every POSIX lock this process holds on it — SQLite's own included.
package enum DocumentLockHolder {
    /// The process holding a lock on `path` (writers first), or nil when the system does
    /// not say (no `/proc/locks`, or only this process holds locks and
    /// `countingThisProcess` is false).
    package static func holder(of path: String, countingThisProcess: Bool = false) -> Int32? {
        guard let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        let me = countingThisProcess ? -1 : getpid()
        func inode(_ file: String) -> UInt64? {
            var info = stat()
            return stat(file, &info) == 0 ? UInt64(info.st_ino) : nil
        }
        // (inode, first byte, last byte) in order of preference.
        var wanted: [(UInt64, UInt64, UInt64)] = []
        let shm = inode(path + "-shm"), database = inode(path)
        if let shm { wanted.append((shm, 120, 120)) }
        if let database { wanted.append((database, 0x4000_0000, 0x4000_0000 + 511)) }
        if let shm { wanted.append((shm, 121, 127)) }
        var locks: [(pid: Int32, inode: UInt64, start: UInt64, end: UInt64)] = []
        for line in table.split(separator: "\n") {
            // "1: POSIX  ADVISORY  WRITE 4242 00:2d:1234 120 120" (an "->" marks a waiter)
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, !fields.contains("->"), let pid = Int32(fields[4]), pid != me,
                  let inode = fields[5].split(separator: ":").last.flatMap({ UInt64($0) }),
                  let start = UInt64(fields[6]) else { continue }
            let end = fields[7] == "EOF" ? UInt64.max : (UInt64(fields[7]) ?? UInt64.max)
            locks.append((pid, inode, start, end))
        }
        for (inode, first, last) in wanted {
            if let lock = locks.first(where: { $0.inode == inode && $0.start <= last && $0.end >= first }) { return lock.pid }
        }
        return nil
    }
}
