import Foundation
import Strata

/// The one place the tools turn a remote's location into a ``SegmentRemote``.
///
/// A remote file (a path or `file://…`) is always served here. A server's URL scheme is
/// served by the process that registered an opener for it: `strata-postgres` registers
/// `postgres` and `postgresql`. The default `strata` build does not compile that stack
/// (docs/POSTGRES.md, "The strata-postgres tool"), so it hands such a remote to the
/// `strata-postgres` program beside it or on `PATH`, as git hands `git foo` to `git-foo`.
package enum SegmentRemotes {
    /// Opens the remote at a location; `creating` makes a missing remote (a push does).
    package typealias Opener = @Sendable (_ location: String, _ creating: Bool) throws -> any SegmentRemote

    /// The schemes served by another program, and that program's name.
    static let externalTools = ["postgres": "strata-postgres", "postgresql": "strata-postgres"]

    /// Strata's one lock (`Locked`, the one ThreadSanitizer sees; docs/RELIABILITY.md,
    /// "Sanitizers"), not a second kind.
    private static let openers = Locked<[String: Opener]>([:])

    /// Serves `schemes` in this process (`strata-postgres` at start-up).
    package static func register(schemes: [String], _ opener: @escaping Opener) {
        openers.withLock { table in for scheme in schemes { table[scheme] = opener } }
    }

    /// The program that must sync `location` because this process does not serve its
    /// scheme, or nil when this process can.
    package static func handler(for location: String) -> String? {
        guard let scheme = scheme(of: location), let tool = externalTools[scheme] else { return nil }
        return openers.withLock { $0[scheme] } == nil ? tool : nil
    }

    /// The remote at `location`: a served scheme's, or a remote file.
    package static func open(_ location: String, creating: Bool = false) throws -> any SegmentRemote {
        guard !location.isEmpty else {
            throw StrataError(.invalidArgument, "The remote is empty: name a .strata-remote file or a postgres://USER@HOST:PORT/DATABASE/DOCUMENT URL.")
        }
        if let scheme = scheme(of: location), scheme != "file" {
            if let opener = openers.withLock({ $0[scheme] }) { return try opener(location, creating) }
            if let tool = externalTools[scheme] { throw missingTool(tool) }
            throw StrataError(.invalidArgument,
                              "'\(scheme)://' remotes are not supported: name a .strata-remote file or a postgres://USER@HOST:PORT/DATABASE/DOCUMENT URL.")
        }
        let path = location.hasPrefix("file://") ? String(location.dropFirst("file://".count)) : location
        return try FileSegmentRemote(url: URL(fileURLWithPath: path), creatingIfMissing: creating)
    }

    /// Runs the program that serves `location`'s scheme in place of this process, with
    /// this process's arguments; throws when that program is not installed.
    package static func forward(_ location: String) throws -> Never {
        guard let tool = handler(for: location) else {
            preconditionFailure("forward(_:) is for a location handler(for:) names a program for")
        }
        guard let path = InstalledTool.path(of: tool) else { throw missingTool(tool) }
        let arguments = [path] + CommandLine.arguments.dropFirst()
        var cArguments = arguments.map { strdup($0) } + [nil]
        execv(path, &cArguments)
        let reason = String(cString: strerror(errno))
        throw StrataError(.invalidArgument, "Could not run \(path) for this remote: \(reason).", context: .init { $0.path = path })
    }

    /// `postgres` for `postgres://…`; nil for a path.
    static func scheme(of location: String) -> String? {
        guard let range = location.range(of: "://") else { return nil }
        let scheme = location[..<range.lowerBound]
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) else { return nil }
        return scheme.lowercased()
    }

    /// What to do when the program a remote needs is not installed.
    static func missingTool(_ tool: String) -> StrataError {
        StrataError(.invalidArgument, """
            A postgres:// remote is synced by the \(tool) tool, which is not beside this program or on PATH. \
            Build it with `STRATA_POSTGRES=1 swift build -c release --product \(tool)` in Strata's checkout and \
            install it beside strata (docs/POSTGRES.md, "The strata-postgres tool"); `strata push`, `pull`, \
            `sync` and `clone` then hand postgres:// remotes to it.
            """)
    }
}
