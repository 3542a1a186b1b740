import ArgumentParser
import Foundation
import Strata

/// What `push`, `pull` and `sync` take: the document, the remote (or the one it
/// remembers), how conflicts are resolved, and whether to print JSON.
package struct SyncArguments: ParsableArguments {
    @OptionGroup var target: DocumentArgument
    @Argument(help: "The remote (a .strata-remote file or a postgres://…/DATABASE/DOCUMENT URL); default: the one the document remembers.")
    var remote: String?
    @OptionGroup var mergePolicy: MergePolicyOption
    @OptionGroup var output: JSONFlag

    package init() {}

    /// Runs one exchange with the remote under the chosen merge policy.
    func run(verb: String, creating: Bool = false, _ step: (DocumentSync, MergePolicy) throws -> SyncReport) throws {
        let policy = try mergePolicy.policy
        try SyncRun.run(target.document, remote: remote, json: output.json, verb: verb, creating: creating) { try step($0, policy) }
    }
}

/// `--merge-policy`, shared by `push`, `pull` and `sync`.
package struct MergePolicyOption: ParsableArguments {
    @Option(name: .customLong("merge-policy"),
            help: "How conflicts with the remote are resolved: error (stop and name them), storeTrump (the remote's values win), objectTrump (yours win), rollback (your changes to conflicting objects are dropped) or overwrite (your versions of conflicting objects win).")
    var policyName = "error"

    package init() {}

    package var policy: MergePolicy {
        get throws { try Self.policy(named: policyName) }
    }

    /// The policy a `--merge-policy` value names (case-insensitive; Core Data's long names
    /// too), for every command that takes one.
    package static func policy(named name: String) throws -> MergePolicy {
        switch name.lowercased() {
        case "error": return .error
        case "storetrump", "store-trump", "mergebypropertystoretrump": return .mergeByPropertyStoreTrump
        case "objecttrump", "object-trump", "mergebypropertyobjecttrump": return .mergeByPropertyObjectTrump
        case "rollback": return .rollback
        case "overwrite": return .overwrite
        default:
            // The value is the user's: quoted only in part.
            let shown = name.count > 40 ? String(name.prefix(40)) + "…" : name
            throw ValidationError("--merge-policy must be error, storeTrump, objectTrump, rollback or overwrite, not \(input: shown).")
        }
    }
}

/// Opens the document to write, runs a sync step with the remote it names (or the one it
/// remembers), prints the report and closes the document.
package enum SyncRun {
    package static func run(_ document: String, remote location: String?, json: Bool, verb: String, creating: Bool = false,
                    _ step: (DocumentSync) throws -> SyncReport) throws {
        installFaultHook()
        let url = URL(fileURLWithPath: document)
        let store = try DocumentStore(openingAt: url, configuration: ToolSettings.configuration(writes: true))
        defer { try? store.close() }
        let remembered = try store.syncRemoteLocation
        guard let location = location ?? remembered else {
            throw StrataError(.invalidArgument,
                              "\(document) does not sync with a remote yet: name one (`strata push \(document) hub.strata-remote` creates it).",
                              context: .init { $0.path = document })
        }
        // A remote another tool serves (postgres:// without StrataPostgres here) is that
        // tool's to sync: the document is closed and the process becomes it.
        if SegmentRemotes.handler(for: location) != nil {
            try store.close()
            try SegmentRemotes.forward(location)
        }
        let report = try step(DocumentSync(store: store, remote: try SegmentRemotes.open(location, creating: creating)))
        print(report, verb: verb, remote: location, json: json)
    }

    package static func print(_ report: SyncReport, verb: String, remote: String, json: Bool) {
        if json {
            Swift.print(JSONValue.object([
                .init("remote", .string(remote)),
                .init("replica", .number(String(report.replica))),
                .init("createdRemote", .bool(report.createdRemote)),
                .init("sent", .number(String(report.sent))),
                .init("received", .number(String(report.received))),
                .init("recognized", .number(String(report.recognized))),
                .init("remoteSequence", .number(String(report.remoteSequence))),
                .init("conflicts", .array(report.conflicts.map { .string($0.description) })),
            ]).rendered(pretty: true))
            return
        }
        var lines = ["\(verb): \(remote) (replica \(report.replica), remote at segment \(report.remoteSequence))"]
        if report.createdRemote { lines.append("created the remote document") }
        lines.append("sent \(report.sent) segment\(report.sent == 1 ? "" : "s"), received \(report.received)")
        if report.recognized > 0 { lines.append("recognized \(report.recognized) segment\(report.recognized == 1 ? "" : "s") an interrupted push had sent") }
        if !report.conflicts.isEmpty {
            lines.append("resolved \(report.conflicts.count) conflict\(report.conflicts.count == 1 ? "" : "s"):")
            lines += report.conflicts.map { "  \($0)" }
        }
        Swift.print(lines.joined(separator: "\n"))
    }

    /// `STRATA_SYNC_FAULT=POINT` kills this process at that point of a push or pull;
    /// `STRATA_SYNC_PAUSE=POINT:FILE` creates FILE there and waits (60 s at most) until it
    /// is removed, so a test can end the server's side meanwhile (tests of interrupted
    /// syncs; docs/SYNC.md, "Interruptions").
    package static func installFaultHook() {
        let environment = ProcessInfo.processInfo.environment
        if let point = environment["STRATA_SYNC_FAULT"], !point.isEmpty {
            DocumentSync.setFaultPoint(point) { kill(getpid(), SIGKILL) }
        } else if let pause = environment["STRATA_SYNC_PAUSE"], let colon = pause.firstIndex(of: ":") {
            let file = String(pause[pause.index(after: colon)...])
            DocumentSync.setFaultPoint(String(pause[..<colon])) {
                _ = FileManager.default.createFile(atPath: file, contents: nil)
                let deadline = Date().addingTimeInterval(60)
                while FileManager.default.fileExists(atPath: file), Date() < deadline { usleep(20_000) }
            }
        }
    }
}

/// `strata push DOC REMOTE`.
package struct PushCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send the document's saves to a remote (the first push creates it).",
        discussion: """
            Appends the saves not yet on the remote, in order; when another replica pushed \
            first, pulls its saves (resolving conflicts by --merge-policy) and tries again. \
            The first push of a document creates the remote document from its whole log; \
            the document remembers the remote, so later pushes may leave it out. REMOTE is \
            a remote file (created when missing), shareable through a shared folder, or a \
            PostgreSQL document, postgres://USER@HOST:PORT/DATABASE/DOCUMENT (remembered \
            without its password; PGPASSWORD supplies one).

            Examples:
              strata push staff.strata hub.strata-remote
              strata push staff.strata postgres://alice@db.example:5432/app/plans
              strata push staff.strata --merge-policy objectTrump
            """)

    @OptionGroup var exchange: SyncArguments

    package init() {}

    package func run() throws {
        try exchange.run(verb: "pushed", creating: true) { try $0.push(mergePolicy: $1) }
    }
}

/// `strata pull DOC [REMOTE]`.
package struct PullCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Take in the saves other replicas pushed to the remote.",
        discussion: """
            Takes the remote's new saves in as another process's saves are: they never \
            enter this document's undo history. Saves both here (not yet pushed) and on the \
            remote that change the same keys of the same objects are conflicts: with \
            --merge-policy error (the default) the pull stops, names them and changes \
            nothing; another policy resolves them and records the resolution as a new save, \
            pushed with the others.

            Examples:
              strata pull staff.strata
              strata pull staff.strata hub.strata-remote --merge-policy storeTrump
            """)

    @OptionGroup var exchange: SyncArguments

    package init() {}

    package func run() throws {
        try exchange.run(verb: "pulled") { try $0.pull(mergePolicy: $1) }
    }
}

/// `strata sync DOC [REMOTE]`.
package struct SyncCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Pull, then push: exchange saves with the remote both ways.",
        discussion: """
            Examples:
              strata sync staff.strata
              strata sync staff.strata hub.strata-remote --merge-policy objectTrump --json
            """)

    @OptionGroup var exchange: SyncArguments

    package init() {}

    package func run() throws {
        try exchange.run(verb: "synced") { try $0.sync(mergePolicy: $1) }
    }
}

/// `strata clone REMOTE DOC`.
package struct CloneCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "clone",
        abstract: "Make a new local document from a remote, as a replica that syncs with it.",
        discussion: """
            The new document has the remote document's identity and model and every save \
            it holds; it remembers the remote, so `strata sync DOC` needs nothing more.

            Examples:
              strata clone hub.strata-remote mine.strata
              strata clone postgres://bob@db.example:5432/app/plans mine.strata
            """)

    @Argument(help: "The remote (a .strata-remote file or a postgres://…/DATABASE/DOCUMENT URL).")
    var remote: String
    @Argument(help: "The new document (must not exist).")
    var document: String
    @OptionGroup var output: JSONFlag

    package init() {}

    package func validate() throws {
        guard !document.isEmpty else { throw ValidationError("The new document's path is empty: name a .strata file that does not exist yet.") }
    }

    package func run() throws {
        SyncRun.installFaultHook()
        if SegmentRemotes.handler(for: remote) != nil { try SegmentRemotes.forward(remote) }
        let source = try SegmentRemotes.open(remote)
        // As `strata new` makes documents: no integrity check of a file just made.
        var configuration = ToolSettings.configuration(writes: true)
        configuration.checksIntegrityOnOpen = false
        let (store, report) = try DocumentSync.clone(source, to: URL(fileURLWithPath: document),
                                                     configuration: configuration)
        try? store.close()
        SyncRun.print(report, verb: "cloned", remote: remote, json: output.json)
    }
}
