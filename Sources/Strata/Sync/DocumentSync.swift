import Foundation

/// What a push, pull, sync or clone did.
public struct SyncReport: Sendable, Hashable {
    /// Whether this call created the remote document (the first push of a document).
    public var createdRemote = false
    /// The document's replica number on the remote (its key range).
    public var replica = 0
    /// Local segments appended to the remote.
    public var sent = 0
    /// Remote segments taken in (other replicas' saves).
    public var received = 0
    /// This replica's own segments found on the remote after an interrupted push.
    public var recognized = 0
    /// The conflicts the merge policy resolved.
    public var conflicts: [SyncConflict] = []
    /// The remote's last sequence this document has taken in.
    public var remoteSequence: Int64 = 0

    /// An empty report.
    public init() {}
}

/// Syncs a local document with a ``SegmentRemote``: people work offline in a local file
/// and share their saves through the remote (docs/SYNC.md).
///
/// The first ``push(mergePolicy:)`` of a document creates the remote document from its
/// log; ``clone(_:to:configuration:)`` makes a new local document from a remote. From then
/// on the document is a *replica*: it hands out primary keys and undo group ids from its
/// own range (``RemoteDocument/keyRange(forReplica:)``), so objects created offline in two
/// replicas never collide. A pull takes the remote's new segments in as another process's
/// saves are (contexts merge them; they never enter the local undo history); a push
/// appends the local segments not yet on the remote, in order.
///
/// ```swift
/// let remote = try FileSegmentRemote(url: URL(fileURLWithPath: "hub.strata-remote"))
/// let sync = DocumentSync(store: store, remote: remote)
/// let report = try sync.sync(mergePolicy: .mergeByPropertyObjectTrump)
/// print(report.sent, report.received, report.conflicts)
/// ```
///
/// Every step is idempotent: a push or pull interrupted at any point (a killed process, a
/// remote gone mid-push) is finished by the next one, with nothing lost or duplicated.
public final class DocumentSync: Sendable {
    /// The local document.
    public let store: DocumentStore
    /// The remote it syncs with.
    public let remote: any SegmentRemote

    /// How many remote segments one read asks for.
    static let pageSize = 256
    /// How many times a push pulls and tries again when other replicas keep appending first.
    static let pushAttempts = 32

    /// A sync of `store` with `remote`.
    public init(store: DocumentStore, remote: any SegmentRemote) {
        self.store = store
        self.remote = remote
    }

    /// Test seam: called at named points of a push or pull (the CLI kills itself at one
    /// named by `STRATA_SYNC_FAULT`, to test interrupted syncs with real processes).
    package static let faultHook = Locked<(@Sendable (String) -> Void)?>(nil)

    package static func fault(_ point: String) { faultHook.withLock { $0 }?(point) }

    /// Runs `action` when a push or pull reaches `point` (`pull-fetched`, `push-recorded`,
    /// `push-committing` (a remote's append before its commit), `push-appended`,
    /// `create-recorded`, `create-appended`; docs/SYNC.md).
    package static func setFaultPoint(_ point: String, _ action: @escaping @Sendable () -> Void) {
        let hook: @Sendable (String) -> Void = { reached in if reached == point { action() } }
        faultHook.withLock { $0 = hook }
    }

    // MARK: Pull

    /// Takes in the remote's segments this document has not seen, resolving conflicts
    /// with local segments not yet pushed by `mergePolicy` (docs/SYNC.md, "Conflicts"). A
    /// resolution is recorded as a new local segment, pushed with the others.
    /// - Throws: `.mergeConflict` naming the objects and keys when `mergePolicy` is
    ///   `.error` and there are conflicts, or when no policy resolves them (nothing is
    ///   changed then); `.invalidArgument` when the document was never attached to this
    ///   remote, or the remote holds another document.
    @discardableResult
    public func pull(mergePolicy: MergePolicy = .error) throws -> SyncReport {
        var report = SyncReport()
        let attachment = try requireAttachment()
        report.replica = attachment.replica ?? 0
        try pull(into: &report, replica: attachment.replica ?? 0, policy: mergePolicy)
        report.remoteSequence = try store.syncAttachment()?.remoteSequence ?? 0
        return report
    }

    private func pull(into report: inout SyncReport, replica: Int, policy: MergePolicy) throws {
        while true {
            let from = try store.syncAttachment()?.remoteSequence ?? 0
            let page = try remote.segments(after: from, limit: Self.pageSize)
            guard !page.isEmpty else { return }
            Self.fault("pull-fetched")
            let outcome = try store.takeIn(page, replica: replica, remote: remote.location, policy: policy)
            report.received += outcome.received
            report.recognized += outcome.recognized
            report.conflicts += outcome.conflicts
        }
    }

    // MARK: Push

    /// Appends the local segments not yet on the remote, in order; when another replica
    /// appended first, pulls (resolving conflicts by `mergePolicy`) and tries again. The
    /// first push of a document creates the remote document from its whole log.
    /// - Throws: `.invalidArgument` when the remote holds another document, or this one is
    ///   attached to another remote; `.mergeConflict` as ``pull(mergePolicy:)``.
    @discardableResult
    public func push(mergePolicy: MergePolicy = .error) throws -> SyncReport {
        var report = SyncReport()
        var attachment = try store.syncAttachment()
        if let attachment, attachment.location != remote.location {
            throw StrataError(.invalidArgument,
                              "\(store.url.path) syncs with \(attachment.location), not \(remote.location); clone \(remote.location) to work with it.",
                              context: .init { $0.path = store.url.path; $0.remote = remote.location })
        }
        if attachment?.replica == nil {
            try create(&report)
            attachment = try store.syncAttachment()
        } else {
            try requireSameDocument()
        }
        let replica = attachment?.replica ?? 0
        report.replica = replica
        for _ in 0..<Self.pushAttempts {
            try pull(into: &report, replica: replica, policy: mergePolicy)
            let last = try store.syncAttachment()?.remoteSequence ?? 0
            let outgoing = try store.outgoingSegments(after: last, replica: replica)
            guard !outgoing.isEmpty else {
                report.remoteSequence = last
                return report
            }
            Self.fault("push-recorded")
            if try remote.append(outgoing.map(\.segment), expectingLast: last) {
                Self.fault("push-appended")
                try store.markSent(outgoing.map(\.local), through: last + Int64(outgoing.count))
                report.sent += outgoing.count
                report.remoteSequence = last + Int64(outgoing.count)
                return report
            }
        }
        throw StrataError(.documentBusy, "Other replicas kept appending to \(remote.location) first; \(store.url.path) is unchanged but not pushed. Try again.",
                          context: .init { $0.remote = remote.location })
    }

    /// Pull, then push: afterwards the remote holds this document's saves and this
    /// document the remote's (unless another replica appended in between).
    @discardableResult
    public func sync(mergePolicy: MergePolicy = .error) throws -> SyncReport {
        if try store.syncAttachment()?.replica == nil { return try push(mergePolicy: mergePolicy) }
        var report = try pull(mergePolicy: mergePolicy)
        let pushed = try push(mergePolicy: mergePolicy)
        report.sent += pushed.sent
        report.received += pushed.received
        report.recognized += pushed.recognized
        report.conflicts += pushed.conflicts
        report.remoteSequence = pushed.remoteSequence
        return report
    }

    // MARK: Clone

    /// Creates a local document at `url` from the remote document: the remote's store
    /// identifier and model, every segment taken in, registered as a new replica.
    /// - Throws: `.invalidArgument` when the remote holds no document; `.io` when `url`
    ///   exists. An interrupted clone leaves a document that `pull` finishes.
    public static func clone(_ remote: any SegmentRemote, to url: URL,
                             configuration: DocumentStore.Configuration = .init()) throws -> (store: DocumentStore, report: SyncReport) {
        guard let document = try remote.document() else {
            throw StrataError(.invalidArgument, "The remote \(remote.location) holds no document yet; push one to it first (`strata push DOC \(remote.location)`).",
                              context: .init { $0.remote = remote.location })
        }
        let model: ManagedObjectModel
        do {
            model = try ManagedObjectModel(jsonData: document.modelJSON)
        } catch let error as StrataError {
            throw StrataError(.corruptDocument, "The model stored in the remote \(remote.location) is damaged: \(error.message)", context: .init { $0.remote = remote.location })
        }
        let store = try DocumentStore(creatingAt: url, model: model, overwrite: false, configuration: configuration,
                                      identity: (document.storeIdentifier, nil))
        do {
            let replica = try remote.registerReplica(named: url.lastPathComponent)
            try store.attach(SyncRecords.Attachment(location: remote.location, replica: replica, remoteSequence: 0))
            let sync = DocumentSync(store: store, remote: remote)
            var report = SyncReport()
            report.replica = replica
            try sync.pull(into: &report, replica: replica, policy: .error)
            report.remoteSequence = try store.syncAttachment()?.remoteSequence ?? 0
            return (store, report)
        } catch {
            try? store.close()
            throw error
        }
    }

    // MARK: Steps

    /// The first push: records the intent (every local segment `sending` at its own
    /// sequence), creates the remote document, registers this replica. A retry after an
    /// interruption finds the remote document and recognizes its segments by checksum.
    private func create(_ report: inout SyncReport) throws {
        let sent: [UInt64]
        if let existing = try remote.document() {
            guard existing.storeIdentifier == store.identifier,
                  let recognized = try store.recognizedCreation(remote: remote, existing) else {
                throw StrataError(.invalidArgument,
                                  "The remote \(remote.location) already holds another document; clone it (`strata clone \(remote.location) DOC`) and copy your changes into the clone.",
                                  context: .init { $0.path = store.url.path; $0.remote = remote.location })
            }
            sent = recognized
            report.recognized = recognized.count
        } else {
            let outgoing = try store.creationSegments(remote: remote.location)
            Self.fault("create-recorded")
            try remote.create(RemoteDocument(storeIdentifier: store.identifier, modelJSON: store.model.jsonRepresentation(),
                                             modelHash: store.model.versionHash),
                              segments: outgoing)
            report.createdRemote = true
            report.sent = outgoing.count
            sent = outgoing.map { UInt64($0.sequence) }
        }
        Self.fault("create-appended")
        let replica = try remote.registerReplica(named: store.url.lastPathComponent)
        try store.attach(SyncRecords.Attachment(location: remote.location, replica: replica, remoteSequence: Int64(sent.count)),
                         sent: sent)
    }

    private func requireAttachment() throws -> SyncRecords.Attachment {
        guard let attachment = try store.syncAttachment(), attachment.replica != nil else {
            throw StrataError(.invalidArgument,
                              "\(store.url.path) does not sync with a remote yet: push it first (`strata push \(store.url.lastPathComponent) REMOTE`) or clone one.",
                              context: .init { $0.path = store.url.path })
        }
        guard attachment.location == remote.location else {
            throw StrataError(.invalidArgument,
                              "\(store.url.path) syncs with \(attachment.location), not \(remote.location).",
                              context: .init { $0.path = store.url.path; $0.remote = remote.location })
        }
        try requireSameDocument()
        return attachment
    }

    private func requireSameDocument() throws {
        guard let document = try remote.document() else {
            throw StrataError(.invalidArgument, "The remote \(remote.location) holds no document (was it replaced?); \(store.url.path) remembers syncing with it.",
                              context: .init { $0.remote = remote.location })
        }
        guard document.storeIdentifier == store.identifier else {
            throw StrataError(.invalidArgument,
                              "The remote \(remote.location) holds document \(document.storeIdentifier), not \(store.identifier) (\(store.url.path)).",
                              context: .init { $0.remote = remote.location })
        }
        guard document.modelHash == store.model.versionHash else {
            throw StrataError(.modelIncompatible,
                              "The remote \(remote.location) holds its document with another model (hash \(document.modelHash.prefix(12)), here \(store.model.versionHash.prefix(12)), after a migration); a remote keeps the model it was first pushed with and cannot be migrated. To share this document, make a new one of its records (`strata new NEW --model MODEL`, then `strata export DOC | strata import NEW -`) and push that to a new remote (docs/SYNC.md, \"Limits\").",
                              context: .init { $0.remote = remote.location })
        }
    }
}
