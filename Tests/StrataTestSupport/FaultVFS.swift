import CSQLite
import Foundation

// A SQLite VFS that wraps the system's default one and lets the fault-injection suite
// count, fail and record every write, sync and truncate SQLite makes to the files of one
// directory (FaultInjector). Installed as the default VFS of the test process, so every
// connection Strata opens — the store's, the verifier's, recovery's — goes through it
// without a knob in the library; files outside the watched directory pass straight through.
//
// SQLite calls these functions through C pointers, so they capture nothing: the wrapped
// VFS and the methods table are globals written once, under `installOnce`.

/// Bytes in front of the wrapped file in each `sqlite3_file` this VFS hands SQLite: its
/// own methods pointer, then the injector's id of the file.
private let headerSize = 16

nonisolated(unsafe) private var wrapped: UnsafeMutablePointer<sqlite3_vfs>!
nonisolated(unsafe) private let faultVFS = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
nonisolated(unsafe) private let faultMethods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
nonisolated(unsafe) private let vfsName = strdup("strata-fault")

/// Installs the fault VFS as the process's default SQLite VFS (once; later calls do nothing).
package let installFaultVFS: Void = {
    wrapped = sqlite3_vfs_find(nil)
    var vfs = wrapped.pointee
    vfs.zName = UnsafePointer(vfsName)
    vfs.pNext = nil
    vfs.szOsFile = Int32(headerSize) + wrapped.pointee.szOsFile
    vfs.xOpen = faultOpen
    vfs.xDelete = { _, name, syncDirectory in
        let code = wrapped.pointee.xDelete(wrapped, name, syncDirectory)
        if code == SQLITE_OK, let name { FaultInjector.shared.deleted(String(cString: name), durably: syncDirectory != 0) }
        return code
    }
    faultVFS.initialize(to: vfs)
    faultMethods.initialize(to: sqlite3_io_methods(
        iVersion: 3,
        xClose: { file in
            let code = inner(file).pointee.pMethods.pointee.xClose(inner(file))
            FaultInjector.shared.closed(fileID(file))
            return code
        },
        xRead: { file, buffer, amount, offset in
            inner(file).pointee.pMethods.pointee.xRead(inner(file), buffer, amount, offset)
        },
        xWrite: { file, buffer, amount, offset in
            let real = inner(file)
            var size: sqlite3_int64 = 0
            _ = real.pointee.pMethods.pointee.xFileSize(real, &size)
            let injector = FaultInjector.shared
            if let code = injector.beforeWrite(fileID(file), grows: offset + sqlite3_int64(amount) > size) { return code }
            let code = real.pointee.pMethods.pointee.xWrite(real, buffer, amount, offset)
            if code == SQLITE_OK, let buffer {
                injector.wrote(fileID(file), Data(bytes: buffer, count: Int(amount)), at: offset)
            }
            return code
        },
        xTruncate: { file, size in
            let injector = FaultInjector.shared
            if let code = injector.beforeTruncate(fileID(file)) { return code }
            let code = inner(file).pointee.pMethods.pointee.xTruncate(inner(file), size)
            if code == SQLITE_OK { injector.truncated(fileID(file), to: size) }
            return code
        },
        xSync: { file, flags in
            let injector = FaultInjector.shared
            if let code = injector.beforeSync(fileID(file)) { return code }
            let code = inner(file).pointee.pMethods.pointee.xSync(inner(file), flags)
            if code == SQLITE_OK { injector.synced(fileID(file)) }
            return code
        },
        xFileSize: { file, size in inner(file).pointee.pMethods.pointee.xFileSize(inner(file), size) },
        xLock: { file, level in inner(file).pointee.pMethods.pointee.xLock(inner(file), level) },
        xUnlock: { file, level in inner(file).pointee.pMethods.pointee.xUnlock(inner(file), level) },
        xCheckReservedLock: { file, out in inner(file).pointee.pMethods.pointee.xCheckReservedLock(inner(file), out) },
        xFileControl: { file, operation, argument in
            inner(file).pointee.pMethods.pointee.xFileControl(inner(file), operation, argument)
        },
        xSectorSize: { file in inner(file).pointee.pMethods.pointee.xSectorSize(inner(file)) },
        xDeviceCharacteristics: { file in inner(file).pointee.pMethods.pointee.xDeviceCharacteristics(inner(file)) },
        xShmMap: { file, page, size, extend, memory in
            inner(file).pointee.pMethods.pointee.xShmMap(inner(file), page, size, extend, memory)
        },
        xShmLock: { file, offset, count, flags in inner(file).pointee.pMethods.pointee.xShmLock(inner(file), offset, count, flags) },
        xShmBarrier: { file in inner(file).pointee.pMethods.pointee.xShmBarrier(inner(file)) },
        xShmUnmap: { file, delete in inner(file).pointee.pMethods.pointee.xShmUnmap(inner(file), delete) },
        xFetch: { file, offset, amount, pointer in
            inner(file).pointee.pMethods.pointee.xFetch(inner(file), offset, amount, pointer)
        },
        xUnfetch: { file, offset, pointer in inner(file).pointee.pMethods.pointee.xUnfetch(inner(file), offset, pointer) }))
    sqlite3_vfs_register(faultVFS, 1)
}()

/// The wrapped VFS's file inside ours.
private func inner(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<sqlite3_file> {
    UnsafeMutableRawPointer(file!).advanced(by: headerSize).assumingMemoryBound(to: sqlite3_file.self)
}

/// The injector's id of the file (0: not watched).
private func fileID(_ file: UnsafeMutablePointer<sqlite3_file>?) -> Int {
    UnsafeMutableRawPointer(file!).advanced(by: 8).load(as: Int.self)
}

private func faultOpen(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?, _ name: sqlite3_filename?, _ file: UnsafeMutablePointer<sqlite3_file>?,
                       _ flags: Int32, _ outFlags: UnsafeMutablePointer<Int32>?) -> Int32 {
    let real = inner(file)
    let code = wrapped.pointee.xOpen(wrapped, name, real, flags, outFlags)
    guard code == SQLITE_OK, real.pointee.pMethods != nil else {
        file!.pointee.pMethods = nil   // SQLite does not close a file whose open failed
        return code
    }
    let id = FaultInjector.shared.opened(name.map { String(cString: $0) })
    UnsafeMutableRawPointer(file!).advanced(by: 8).storeBytes(of: id, as: Int.self)
    file!.pointee.pMethods = UnsafePointer(faultMethods)
    return code
}
