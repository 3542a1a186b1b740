import CSQLite
import Foundation
import Strata

// SQLite's extended codes are macros Swift cannot import: SQLITE_IOERR_WRITE is
// SQLITE_IOERR | 3 << 8, _FSYNC | 4 << 8, _TRUNCATE | 6 << 8.

/// What the fault VFS does to the SQLite files of one directory while armed: counts every
/// write, sync and truncate, fails the Nth of one kind, and records every change so the
/// files can be rebuilt as a kill or a power loss at any moment would have left them.
///
/// ```swift
/// _ = installFaultVFS
/// FaultInjector.shared.arm(directory: dir.path, failing: .sync, at: 3)
/// let thrown = try? store.close()          // the third sync fails
/// let report = FaultInjector.shared.disarm()
/// ```
package final class FaultInjector: Sendable {
    /// The one injector the VFS reports to.
    package static let shared = FaultInjector()

    /// A kind of failure.
    package enum Kind: String, CaseIterable, Sendable, CustomStringConvertible {
        /// The Nth write fails (`SQLITE_IOERR_WRITE`), once.
        case write
        /// The Nth sync fails (`SQLITE_IOERR_FSYNC`), once.
        case sync
        /// The Nth truncate fails (`SQLITE_IOERR_TRUNCATE`), once.
        case truncate
        /// The Nth write that grows a file fails with `SQLITE_FULL`, and so does every
        /// later one until disarmed: the disk stays full.
        case diskFull
        /// The Nth write of a file the library writes itself (not through SQLite) fails
        /// with `ENOSPC`, once.
        case fileWrite
        /// The Nth `fsync` of such a file fails with `EIO`, once.
        case fileSync
        /// The Nth rename of such a file into place fails with `EIO`, once.
        case rename

        /// The kinds SQLite's calls can fail with.
        package static let sqlite: [Kind] = [.write, .sync, .truncate, .diskFull]

        package var description: String { rawValue }
    }

    /// How many calls of each kind reached the watched files.
    package struct Counts: Sendable, Hashable, CustomStringConvertible {
        package var writes = 0, syncs = 0, truncates = 0, growingWrites = 0
        package var fileWrites = 0, fileSyncs = 0, renames = 0

        /// No calls yet.
        package init() {}

        /// The number of the kind's failure points.
        package subscript(kind: Kind) -> Int {
            switch kind {
            case .write: return writes
            case .sync: return syncs
            case .truncate: return truncates
            case .diskFull: return growingWrites
            case .fileWrite: return fileWrites
            case .fileSync: return fileSyncs
            case .rename: return renames
            }
        }

        /// Every failure point.
        package var total: Int { Kind.allCases.reduce(0) { $0 + self[$1] } }

        package var description: String {
            Kind.allCases.filter { self[$0] > 0 }.map { "\($0) \(self[$0])" }.joined(separator: ", ")
        }
    }

    /// One change to a watched file, by file name (the directory is the watched one).
    package enum Event: Sendable {
        case write(String, offset: Int64, Data)
        case truncate(String, size: Int64)
        case sync(String)
        case delete(String, durably: Bool)

        var name: String {
            switch self {
            case .write(let name, _, _), .truncate(let name, _), .sync(let name), .delete(let name, _): return name
            }
        }
    }

    /// What one armed run saw.
    package struct Report: Sendable {
        /// Calls made (the failed one included).
        package var counts = Counts()
        /// Whether the planned failure happened.
        package var injected = false
        /// The number of changes recorded when the planned failure happened.
        package var failedAtEvent: Int?
        /// Every successful change, in order.
        package var events: [Event] = []
        /// The watched files' contents when armed (no `-shm`), by name.
        package var baseline: [String: Data] = [:]
    }

    private struct State {
        var paths: [Int: String] = [:]
        var nextID = 1
        var directory: String?
        var plan: (kind: Kind, at: Int)?
        var diskIsFull = false
        var report = Report()
    }

    private let state = Locked(State())

    private init() {}

    /// Starts watching the files directly inside `directory`: counting, and failing the
    /// `at`th call of `failing` (nil: count and record only).
    package func arm(directory: String, failing: Kind? = nil, at: Int = 0) {
        var baseline: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where !name.hasSuffix("-shm") {
            if let data = FileManager.default.contents(atPath: directory + "/" + name) { baseline[name] = data }
        }
        state.withLock { state in
            state.directory = directory.hasSuffix("/") ? directory : directory + "/"
            state.plan = failing.map { ($0, at) }
            state.diskIsFull = false
            state.report = Report(baseline: baseline)
        }
    }

    /// Stops watching and returns what the run saw.
    package func disarm() -> Report {
        state.withLock { state in
            state.directory = nil
            state.plan = nil
            state.diskIsFull = false
            defer { state.report = Report() }
            return state.report
        }
    }

    /// The number of changes recorded so far in this armed run.
    package var recordedEvents: Int { state.withLock { $0.report.events.count } }

    // MARK: Called by the VFS

    func opened(_ path: String?) -> Int {
        guard let path else { return 0 }
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.paths[id] = path
            return id
        }
    }

    func closed(_ id: Int) {
        _ = state.withLock { $0.paths.removeValue(forKey: id) }
    }

    /// The file's name when it is watched now.
    private static func watchedName(_ state: State, _ id: Int) -> String? {
        guard let directory = state.directory, let path = state.paths[id], path.hasPrefix(directory) else { return nil }
        let name = String(path.dropFirst(directory.count))
        return name.contains("/") || name.hasSuffix("-shm") ? nil : name
    }

    /// Counts a call and says whether it fails: the planned failure, or a full disk.
    private func count(_ kind: Kind, _ id: Int, failure: Int32, _ bump: (inout Counts) -> Void) -> Int32? {
        state.withLock { state in
            guard Self.watchedName(state, id) != nil else { return nil }
            bump(&state.report.counts)
            if kind == .diskFull, state.diskIsFull { return SQLITE_FULL }
            guard let plan = state.plan, plan.kind == kind, state.report.counts[kind] == plan.at else { return nil }
            state.report.injected = true
            state.report.failedAtEvent = state.report.events.count
            if kind == .diskFull { state.diskIsFull = true }
            return failure
        }
    }

    func beforeWrite(_ id: Int, grows: Bool) -> Int32? {
        if let code = count(.write, id, failure: SQLITE_IOERR | (3 << 8), { $0.writes += 1 }) { return code }
        guard grows else { return nil }
        return count(.diskFull, id, failure: SQLITE_FULL) { $0.growingWrites += 1 }
    }

    /// Counts a call the library makes itself on `path` and returns the `errno` it must
    /// fail with, if any (install as `FileWriteFaults.inject`).
    package func beforeFileCall(_ kind: Kind, path: String) -> Int32? {
        state.withLock { state in
            guard let directory = state.directory, path.hasPrefix(directory) else { return nil }
            switch kind {
            case .fileWrite: state.report.counts.fileWrites += 1
            case .fileSync: state.report.counts.fileSyncs += 1
            case .rename: state.report.counts.renames += 1
            default: return nil
            }
            guard let plan = state.plan, plan.kind == kind, state.report.counts[kind] == plan.at else { return nil }
            state.report.injected = true
            state.report.failedAtEvent = state.report.events.count
            return kind == .fileWrite ? ENOSPC : EIO
        }
    }

    func beforeSync(_ id: Int) -> Int32? { count(.sync, id, failure: SQLITE_IOERR | (4 << 8)) { $0.syncs += 1 } }

    func beforeTruncate(_ id: Int) -> Int32? { count(.truncate, id, failure: SQLITE_IOERR | (6 << 8)) { $0.truncates += 1 } }

    private func record(_ id: Int, _ event: (String) -> Event) {
        state.withLock { state in
            if let name = Self.watchedName(state, id) { state.report.events.append(event(name)) }
        }
    }

    func wrote(_ id: Int, _ data: Data, at offset: Int64) { record(id) { .write($0, offset: offset, data) } }
    func truncated(_ id: Int, to size: Int64) { record(id) { .truncate($0, size: size) } }
    func synced(_ id: Int) { record(id) { .sync($0) } }

    func deleted(_ path: String, durably: Bool) {
        state.withLock { state in
            guard let directory = state.directory, path.hasPrefix(directory) else { return }
            let name = String(path.dropFirst(directory.count))
            guard !name.contains("/"), !name.hasSuffix("-shm") else { return }
            state.report.events.append(.delete(name, durably: durably))
        }
    }
}

extension FaultInjector.Report {
    /// How the files may be found after the run stops at an event.
    package enum Stop: Sendable {
        /// The process was killed: every change up to the event is in the files.
        case kill
        /// The power failed: each file holds what it held at its last sync up to the event
        /// (a delete counts once the directory was synced, or a later sync of the name).
        case powerLoss
    }

    /// The indices of the events after which the run can be stopped for `stop`: every
    /// event for a kill, every sync for a power loss (0: before the first).
    package func stopPoints(_ stop: Stop) -> [Int] {
        var points = [0]
        for (index, event) in events.enumerated() {
            switch (stop, event) {
            case (.kill, _), (.powerLoss, .sync), (.powerLoss, .delete(_, true)): points.append(index + 1)
            default: break
            }
        }
        return points
    }

    /// Writes into `directory` the files as `stop` after the first `count` events left them.
    package func materialize(into directory: URL, after count: Int, _ stop: Stop) throws {
        var files: [String: [UInt8]?] = baseline.mapValues { [UInt8]($0) }
        var durable = files
        for event in events.prefix(count) {
            let name = event.name
            switch event {
            case .write(_, let offset, let data):
                var bytes = (files[name] ?? nil) ?? []
                let end = Int(offset) + data.count
                if bytes.count < end { bytes.append(contentsOf: repeatElement(0, count: end - bytes.count)) }
                bytes.replaceSubrange(Int(offset)..<end, with: data)
                files[name] = bytes
            case .truncate(_, let size):
                var bytes = (files[name] ?? nil) ?? []
                if bytes.count > Int(size) { bytes.removeSubrange(Int(size)...) } else {
                    bytes.append(contentsOf: repeatElement(0, count: Int(size) - bytes.count))
                }
                files[name] = bytes
            case .sync:
                durable[name] = files[name] ?? nil
            case .delete(_, let durably):
                files[name] = .some(nil)
                if durably { durable[name] = .some(nil) }
            }
        }
        for (name, bytes) in stop == .kill ? files : durable {
            guard let bytes else { continue }
            try Data(bytes).write(to: directory.appendingPathComponent(name))
        }
    }
}
