import Foundation
import Testing
@testable import Strata

// Every failure point of `strata-log recover` (DocumentRecovery): SQLite's calls through
// the fault VFS, and the writes, syncs and renames recovery makes itself (the backup, the
// repaired document moved into place) through FileWriteFaults. A recovery that fails must
// leave the document as it was — its last save in its `-wal` included — so that recovering
// again gives exactly what a recovery without faults gives.

/// One entity, so that the rebuilt document's schema takes few writes and every one of
/// them can be failed in turn within CI's time.
private let notesModel = try! ManagedObjectModel(entities: [EntityDescription("Note", attributes: [AttributeDescription("text", .string)])])

/// A document whose snapshot holds a damaged value (verify finds it, recovery rebuilds
/// from the log), left as a process killed after its last save leaves it: that save is
/// only in `DOC-wal`.
private func damagedDocumentWithWAL(in directory: TemporaryDirectory) throws {
    let work = try TemporaryDirectory()
    let url = work.file()
    let stack = try DocumentStack.create(url, model: notesModel, configuration: manualCompaction())
    for number in 0..<4 {
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("Note \(number)"), forKey: "text")
        try stack.context.save()
    }
    _ = try stack.store.compact()
    try stack.store.close()
    let damage = try SQLiteConnection(path: url.path, flags: [.readWrite])
    try damage.execute("UPDATE \"Note\" SET \"text\" = 'Damaged' WHERE \"_pk\" = 1")
    damage.close()
    let last = try DocumentStack.open(url, model: notesModel, configuration: manualCompaction())
    let note = try last.context.insertObject(forEntityName: "Note")
    try note.setValue("The last save", forKey: "text")
    try last.context.save()
    #expect(DocumentCheckpoint.walBytes(url.path) > 0)
    for suffix in ["", "-wal"] {
        try FileManager.default.copyItem(atPath: url.path + suffix, toPath: directory.file().path + suffix)
    }
    try last.store.close()
}

/// Files recovery builds under hidden names beside the document.
private func hiddenFiles(_ directory: TemporaryDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix(".") }
}

extension FaultInjection {
    @Test func everyFailurePointOfARecovery() throws {
        _ = installFaultVFS
        let injector = FaultInjector.shared
        FileWriteFaults.inject.withLock { hook in
            hook = { call, path in
                switch call {
                case .write: return injector.beforeFileCall(.fileWrite, path: path)
                case .sync: return injector.beforeFileCall(.fileSync, path: path)
                case .rename: return injector.beforeFileCall(.rename, path: path)
                }
            }
        }
        defer { FileWriteFaults.inject.withLock { $0 = nil } }
        let template = try TemporaryDirectory()
        try damagedDocumentWithWAL(in: template)
        // Verification reads only; the saves in `-wal` are folded in on a copy first, as
        // recovery itself does.
        let probe = try copyDocumentFiles(template)
        let folding = try SQLiteConnection(path: probe.file().path, flags: [.readWrite])
        try folding.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        folding.close()
        let damage = try DocumentVerifier.verify(probe.file())
        #expect(!damage.isValid, "the damaged value must be found")

        let counting = try copyDocumentFiles(template)
        injector.arm(directory: counting.url.path)
        let repaired: RecoveryReport
        do {
            repaired = try DocumentRecovery.recover(counting.file())
        } catch {
            _ = injector.disarm()
            throw error
        }
        let clean = injector.disarm()
        #expect(repaired.backup != nil && !repaired.repairs.isEmpty, "\(repaired.repairs)")
        let after = try DocumentImage(counting.file(), model: notesModel)
        #expect(after.records.count == 5 && after.segments == [1, 2, 3, 4, 5], "\(after)")

        var tally = FaultTally(operation: "recovery")
        tally.counts = clean.counts
        for kind in FaultInjector.Kind.allCases where clean.counts[kind] > 0 {
            for number in strided(1...clean.counts[kind]) {
                let label = "recovery, \(kind) #\(number) of \(clean.counts[kind])"
                let run = try copyDocumentFiles(template)
                injector.arm(directory: run.url.path, failing: kind, at: number)
                var thrown: Error?
                do { _ = try DocumentRecovery.recover(run.file()) } catch { thrown = error }
                _ = injector.disarm()
                if let thrown {
                    tally.errorsReported += 1
                    let error = thrown as? StrataError
                    #expect(error.map { [.sqlite, .io].contains($0.code) && !$0.message.isEmpty } == true, "\(label): \(thrown)")
                    let leftovers = try hiddenFiles(run)
                    #expect(leftovers.isEmpty, "\(label): left \(leftovers)")
                    // Nothing was lost: recovering again gives what a recovery without faults gives.
                    do {
                        _ = try DocumentRecovery.recover(run.file())
                    } catch {
                        Issue.record("\(label): recovering again failed: \(error)")
                        continue
                    }
                }
                do {
                    let found = try DocumentImage(run.file(), model: notesModel)
                    #expect(found == after, "\(label): \(found), not \(after); \(firstDifference(found.records, after.records) ?? "")")
                } catch {
                    Issue.record("\(label): the recovered document does not reopen or verify: \(error)")
                }
            }
        }
        print(tally)
    }
}
