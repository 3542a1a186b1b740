import Foundation

/// What a path names, from `stat` (which follows symbolic links, so a link to a document is
/// the document): the check that keeps Strata from opening a FIFO, a device, a directory
/// or a socket as if it were a file (docs/LIMITS.md, "Files that are not files").
///
/// A FIFO blocks the first `open` or `read` until another process writes, forever when
/// none does; `/dev/zero` and `/dev/urandom` never end. So every path Strata opens as a
/// document, a model file, an import file or a file remote is checked first, and anything
/// but a regular file is refused at once with an error naming what it is.
package enum FileKind: Equatable {
    /// Nothing exists at the path (a document may be created there).
    case missing
    /// A regular file (or a symbolic link to one).
    case regular
    /// Anything else, with its name for messages: "a FIFO (named pipe)", "a directory"...
    case other(String)

    /// What `path` names. A path `stat` cannot examine for another reason than its absence
    /// (permissions on a parent directory) counts as regular: opening it reports the real
    /// cause.
    package init(of path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            self = errno == ENOENT || errno == ENOTDIR ? .missing : .regular
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .other("a directory")
        case S_IFIFO: self = .other("a FIFO (named pipe)")
        case S_IFCHR: self = .other("a character device")
        case S_IFBLK: self = .other("a block device")
        case S_IFSOCK: self = .other("a socket")
        default: self = .other("not a regular file")
        }
    }

    /// Fails when `path` exists and is not a regular file.
    /// - Parameters:
    ///   - role: what the file would have been, for the message ("a Strata document",
    ///     "an import file").
    ///   - code: the error's code.
    /// - Throws: `code`, "PATH is a FIFO (named pipe), not ROLE.", with `context.path`,
    ///   `context.kind == .notRegularFile` and what the file is in `context.reason`.
    package static func requireRegularOrMissing(_ path: String, as role: String, code: StrataError.Code = .io) throws {
        guard case .other(let what) = FileKind(of: path) else { return }
        throw StrataError(code, "\(path) is \(what), not \(role); only a regular file can be.",
                          context: .init { $0.path = path; $0.kind = .notRegularFile; $0.reason = what })
    }
}
