import Foundation
import Testing
@testable import Strata

// The harness of the fault-injection suite: an operation on a document is run once to
// count and record its I/O, then again with each write, sync, truncate or growing write
// failing in turn; and the files it leaves are rebuilt as a kill or a power loss after
// each recorded change would have left them. Every outcome must be a document that
// verifies and holds exactly an acknowledged state.

/// What a document holds, as far as an acknowledged save is concerned.
struct DocumentImage: Equatable, CustomStringConvertible {
    var records: [RecordKey: [String: ComparableValue]]
    var segments: [Int64]
    var compactedThrough: Int64

    var description: String { "\(records.count) records, segments \(segments.first ?? 0)...\(segments.last ?? 0), compacted through \(compactedThrough)" }

    /// Reopens the document at `url` as an application would (which folds in what a killed
    /// process left in its `-wal`) and reads it whole, then verifies it
    /// (`strata-log verify`'s checks, read-only).
    /// - Throws: what opening or reading threw; a verification failure as `.corruptDocument`.
    init(_ url: URL, model: ManagedObjectModel) throws {
        let store = try DocumentStore(openingAt: url, model: model, configuration: manualCompaction())
        records = try readEverything(store)
        try store.close()
        let verification = try DocumentVerifier.verify(url)
        guard verification.isValid else {
            throw StrataError(.corruptDocument, "verify: " + verification.problems.joined(separator: "; "))
        }
        segments = try sqlRows(url, "SELECT seq FROM strata_segment ORDER BY seq").compactMap {
            if case .integer(let sequence)? = $0.first { return sequence }
            return nil
        }
        let mark = try sqlRows(url, "SELECT value FROM strata_meta WHERE key = 'compactedThrough'").first?.first
        if case .integer(let value)? = mark { compactedThrough = value } else { compactedThrough = 0 }
    }
}

/// Where an operation says it was acknowledged: the number of changes the fault VFS had
/// recorded when the call that acknowledges it returned.
/// Also where it failed: the number of changes recorded when the failing call returned.
/// Also where it first failed: the number of changes recorded when the failing call
/// returned, and its error.
final class Acknowledgement: @unchecked Sendable {
    private(set) var event: Int?
    private(set) var refusedAt: Int?
    private(set) var firstError: Error?
    func acknowledge() { event = FaultInjector.shared.recordedEvents }
    func refuse(_ error: Error) {
        guard refusedAt == nil else { return }
        refusedAt = FaultInjector.shared.recordedEvents
        firstError = error
    }

    /// Runs `call` (a save or a compaction); when it fails, runs it once more, as an
    /// application retrying after an error does, and acknowledges when either succeeds.
    func retryingOnce(_ call: () throws -> Void) throws {
        do {
            try call()
        } catch {
            refuse(error)
            try call()
        }
        acknowledge()
    }
}

/// One operation of the suite.
struct FaultOperation: Sendable {
    var name: String
    var model: ManagedObjectModel = sharedExampleModel
    /// Builds the starting document at the URL and closes it.
    var prepare: @Sendable (URL) throws -> Void
    /// Opens the document, does the operation (calling `acknowledge()` once the call
    /// that makes it durable returned) and closes it — also when it fails.
    var perform: @Sendable (URL, Acknowledgement) throws -> Void
    /// An automatic compaction follows the acknowledged call in the same process: a
    /// failure or kill inside it may leave the call's records and segments with the
    /// compaction mark where it was.
    var compactsAfterwards = false
    /// More checks of every outcome's files (after it reopened and verified).
    var checkFiles: (@Sendable (URL) throws -> Void)?
}

/// The figures of one enumeration, for docs/RELIABILITY.md.
struct FaultTally: CustomStringConvertible {
    var operation: String
    var counts = FaultInjector.Counts()
    var killPoints = 0
    var powerLossPoints = 0
    var errorsReported = 0
    var failedButPresentAfterKill = 0
    var killsAfterAFailedCall = 0
    var retriesSucceeded = 0

    var total: Int { counts.total + killPoints + powerLossPoints }

    var description: String {
        "\(operation): \(counts), kill \(killPoints), power loss \(powerLossPoints) — \(total) failure points, \(errorsReported) errors reported, "
            + "\(failedButPresentAfterKill) failed calls whose changes a kill inside the failing call kept, "
            + "\(killsAfterAFailedCall) kills after a failed call returned, \(retriesSucceeded) retries after a failure succeeded"
    }
}

/// Copies every file of `source` (no `-shm`) into a fresh directory.
func copyDocumentFiles(_ source: TemporaryDirectory) throws -> TemporaryDirectory {
    let copy = try TemporaryDirectory()
    for name in try FileManager.default.contentsOfDirectory(atPath: source.url.path) where !name.hasSuffix("-shm") {
        try FileManager.default.copyItem(at: source.url.appendingPathComponent(name), to: copy.url.appendingPathComponent(name))
    }
    return copy
}

/// Runs `operation` over every failure point and checks each outcome.
/// Every how many points the enumeration checks: 1 (all of them) unless STRATA_FAULT_STRIDE
/// says otherwise. CI's AddressSanitizer step takes every third point, the first and last
/// always among them (the tests step and Tools/long-checks take every one): under the
/// sanitizer each point repeats the same code paths at several times the cost.
let faultStride = max(1, ProcessInfo.processInfo.environment["STRATA_FAULT_STRIDE"].flatMap { Int($0) } ?? 1)

/// The points of `points` the stride keeps.
func strided<C: Collection>(_ points: C) -> [C.Element] {
    let all = Array(points)
    return all.enumerated().filter { $0.offset % faultStride == 0 || $0.offset == all.count - 1 }.map(\.element)
}

func enumerateFaults(_ operation: FaultOperation) throws -> FaultTally {
    _ = installFaultVFS
    var tally = FaultTally(operation: operation.name)
    let template = try TemporaryDirectory()
    try operation.prepare(template.file())
    let before = try DocumentImage(template.file(), model: operation.model)

    // The clean run: what it counts is what is enumerated.
    let counting = try copyDocumentFiles(template)
    let acknowledgement = Acknowledgement()
    let injector = FaultInjector.shared
    injector.arm(directory: counting.url.path)
    do {
        try operation.perform(counting.file(), acknowledgement)
    } catch {
        _ = injector.disarm()
        throw error
    }
    let clean = injector.disarm()
    tally.counts = clean.counts
    let after = try DocumentImage(counting.file(), model: operation.model)
    #expect(after != before, "\(operation.name) changed nothing")
    let acknowledged = try #require(acknowledgement.event, "\(operation.name) never acknowledged")

    func check(_ label: String, _ url: URL, mayBeBefore: Bool, mayBeAfter: Bool) -> DocumentImage? {
        do {
            let found = try DocumentImage(url, model: operation.model)
            try operation.checkFiles?(url)
            let savedNotFolded = operation.compactsAfterwards && found.records == after.records && found.segments == after.segments
                && found.compactedThrough <= after.compactedThrough
            let allowed = (mayBeBefore && found == before) || (mayBeAfter && (found == after || savedNotFolded))
            #expect(allowed, "\(operation.name), \(label): \(found) is not \(mayBeBefore ? "before (\(before))" : "")\(mayBeBefore && mayBeAfter ? " or " : "")\(mayBeAfter ? "after (\(after))" : "")\(found.records != before.records && found.records != after.records ? "; records differ from both: \(firstDifference(found.records, after.records) ?? "")" : "")")
            return found
        } catch {
            Issue.record("\(operation.name), \(label): the document does not reopen or verify: \(error)")
            return nil
        }
    }

    // Kills and power losses after every recorded change of the clean run.
    for stop in [FaultInjector.Report.Stop.kill, .powerLoss] {
        for point in strided(clean.stopPoints(stop)) {
            let directory = try TemporaryDirectory()
            try clean.materialize(into: directory.url, after: point, stop)
            let durable = point >= acknowledged
            _ = check("\(stop) after change \(point) of \(clean.events.count)", directory.file(), mayBeBefore: !durable, mayBeAfter: true)
            if stop == .kill { tally.killPoints += 1 } else { tally.powerLossPoints += 1 }
        }
    }

    // Each call failing in turn.
    for kind in FaultInjector.Kind.allCases where clean.counts[kind] > 0 {
        for number in strided(1...clean.counts[kind]) {
            let run = try copyDocumentFiles(template)
            let runAcknowledgement = Acknowledgement()
            injector.arm(directory: run.url.path, failing: kind, at: number)
            var thrown: Error?
            do { try operation.perform(run.file(), runAcknowledgement) } catch { thrown = error }
            let report = injector.disarm()
            let label = "\(kind) #\(number) of \(clean.counts[kind])"
            if let reported = runAcknowledgement.firstError ?? thrown {
                tally.errorsReported += 1
                if runAcknowledgement.firstError != nil, thrown == nil { tally.retriesSucceeded += 1 }
                if let error = reported as? StrataError {
                    // A clear error: an I/O or SQLite failure, naming a full disk as such.
                    #expect([.sqlite, .io].contains(error.code) && (![.diskFull, .fileWrite].contains(kind) || error.message.contains("disk is full")),
                            "\(operation.name), \(label): \(error)")
                } else {
                    Issue.record("\(operation.name), \(label): not a StrataError: \(reported)")
                }
            }
            let ok = runAcknowledgement.event != nil
            #expect(thrown != nil || ok, "\(operation.name), \(label): neither acknowledged nor failed")
            _ = check(label, run.file(), mayBeBefore: !ok, mayBeAfter: ok)
            // A kill right after the failed call: the files as the failure left them.
            if let failedAt = report.failedAtEvent {
                let directory = try TemporaryDirectory()
                try report.materialize(into: directory.url, after: failedAt, .kill)
                let durable = runAcknowledgement.event.map { failedAt >= $0 } ?? false
                if let found = check("\(label), killed at the failure", directory.file(), mayBeBefore: !durable, mayBeAfter: true),
                   !ok, found == after {
                    tally.failedButPresentAfterKill += 1
                    print("\(operation.name), \(label): the failed call's changes are in the files a kill inside it leaves")
                }
            }
            // A kill once the failed call returned its error: what it reported failed
            // must stay failed.
            if let refusedAt = runAcknowledgement.refusedAt {
                let directory = try TemporaryDirectory()
                try report.materialize(into: directory.url, after: refusedAt, .kill)
                _ = check("\(label), killed after the error", directory.file(), mayBeBefore: true, mayBeAfter: false)
                tally.killsAfterAFailedCall += 1
            }
        }
    }
    print(tally)
    return tally
}
