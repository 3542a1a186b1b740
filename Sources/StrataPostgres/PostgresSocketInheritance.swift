import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps the process's connections to a PostgreSQL server out of the child processes it
/// starts (docs/POSTGRES.md, "Connections").
///
/// SwiftNIO opens its sockets without `SOCK_CLOEXEC` on Linux, so a child started while a
/// connection is open — by the application, or by a tool it runs — inherits the socket.
/// Closing the connection then closes only this process's descriptor: the server sees no
/// end, and the connection and its server process stay until every child has exited. An
/// idle store would keep costing the server a connection, and a closed one too.
///
/// After each connect the session marks every socket of the process whose peer is the
/// server close-on-exec: the one just opened, and any other connection to that server (a
/// PostgreSQL connection either way, which no child can use). What a child started in the
/// moment between the connect and the mark inherits is the one thing left.
enum PostgresSocketInheritance {
    /// The server end a connection's socket is connected to.
    enum Peer: Sendable, Equatable {
        /// A TCP server on this port (any address: a host name may resolve to several).
        case tcp(port: UInt16)
        /// A Unix socket at this path.
        case unix(path: String)
    }

    /// Marks every socket of this process connected to `peer` close-on-exec.
    static func closeOnExec(connectedTo peer: Peer) {
        #if os(Linux)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for entry in entries {
            guard let descriptor = Int32(entry), descriptor > 2, isSocket(descriptor), connects(descriptor, to: peer) else { continue }
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC == 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
        #endif
    }

    #if os(Linux)
    private static func isSocket(_ descriptor: Int32) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }

    private static func connects(_ descriptor: Int32, to peer: Peer) -> Bool {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard named == 0 else { return false }
        return withUnsafePointer(to: &address) { pointer -> Bool in
            switch (Int32(pointer.pointee.ss_family), peer) {
            case (AF_INET, .tcp(let port)):
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) == port }
            case (AF_INET6, .tcp(let port)):
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) == port }
            case (AF_UNIX, .unix(let path)):
                return pointer.withMemoryRebound(to: sockaddr_un.self, capacity: 1) { unix in
                    withUnsafeBytes(of: unix.pointee.sun_path) { bytes in
                        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) == path
                    }
                }
            default:
                return false
            }
        }
    }
    #endif
}
