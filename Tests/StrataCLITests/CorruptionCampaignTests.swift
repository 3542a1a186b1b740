import Foundation
import Testing
@testable import Strata

/// The byte-flip and truncation campaign (docs/RELIABILITY.md, "Damaged documents"): each
/// seeded case damages a copy of a document that keeps its whole history, or of a
/// compacted one, then runs `strata-log verify`, a write (`strata insert`) and
/// `strata-log recover` + `verify` on copies, and classifies the file:
///
/// - *intact*: verify passes and every record and segment is as before;
/// - *detected*: verify fails; then a write must be refused ("damaged … strata-log
///   recover"), unless the damage is a changed value inside an intact record (found only
///   by replaying the log; counted), and recover either
///   - *mends exactly* (every record and segment back),
///   - *mends with named losses* (listed by recover; in a document keeping its history only
///     when a segment body itself is damaged), or
///   - *refuses* with a Strata error, never a raw engine message.
///
/// CI runs 36 cases; `STRATA_CAMPAIGN_CASES=N` and `STRATA_SEED=S` run more and other
/// seeds (Tools/corruption-campaign runs 300 and prints the table).
@Suite("Corruption campaign", .serialized)
struct CorruptionCampaignTests {
    /// A document keeping its history: saves, an update, a delete, a compaction that keeps
    /// every segment, then saves not yet compacted.
    private func historyDocument(_ sandbox: TemporaryDirectory, _ name: String) throws -> String {
        let document = try sandbox.employees(name)
        for index in 1...6 { _ = try sandbox.insert(document, "Department", "name=Dept\(index)") }
        for index in 1...5 {
            _ = try sandbox.insert(document, "Employee", "firstName=E\(index)", "lastName=L\(index)", "salary=\(index * 1000)",
                                   "department=@Department/p\(index)")
        }
        #expect(try CLI.strata("update", document, "Employee/p1", "salary=99").status == 0)
        #expect(try CLI.strata("delete", document, "Department/p6").status == 0)
        #expect(try CLI.strataLog("compact", document).status == 0)
        _ = try sandbox.insert(document, "Department", "name=Late")
        for index in 6...8 {
            _ = try sandbox.insert(document, "Employee", "firstName=Late\(index)", "lastName=Z", "department=@Department/p7")
        }
        #expect(try CLI.strata("update", document, "Employee/p2", "salary=4242").status == 0)
        return document
    }

    @Test("seeded flips and cuts: detected, mended exactly or with named losses, or refused; no write on a damaged file")
    func seededCampaign() throws {
        let seed = testSeed("CorruptionCampaignTests.seededCampaign")
        let cases = ProcessInfo.processInfo.environment["STRATA_CAMPAIGN_CASES"].flatMap { Int($0) } ?? 36
        print("CorruptionCampaignTests.seededCampaign: STRATA_CAMPAIGN_CASES=\(cases)")
        let sandbox = try TemporaryDirectory()
        let history = try CampaignDocument(name: "history", path: try historyDocument(sandbox, "history.strata"))
        let compactedPath = try historyDocument(sandbox, "compacted.strata")
        #expect(try CLI.strataLog("compact", compactedPath, "--retain", "none").status == 0)
        _ = try sandbox.insert(compactedPath, "Department", "name=AfterCompaction")
        let compacted = try CampaignDocument(name: "compacted", path: compactedPath)
        for base in [history, compacted] {
            #expect(try CLI.strataLog("verify", sandbox.path("\(base.name).strata")).status == 0)
        }
        var generator = SeededGenerator(seed: seed)
        var tally = CampaignTally()
        for number in 0..<cases {
            let base = Int.random(in: 0..<4, using: &generator) == 0 ? compacted : history
            let damage = CampaignDamage.random(in: base.bytes.count, using: &generator)
            let label = "case \(number), \(base.name) document, \(damage) (STRATA_SEED=\(seed))"
            try run(damage, on: base, in: sandbox, label: label, tally: &tally)
        }
        print("CorruptionCampaignTests.seededCampaign (\(cases) cases, STRATA_SEED=\(seed)):\n\(tally)")
        for line in tally.acceptedWrites { print("  write accepted: \(line)") }
    }

    private func run(_ damage: CampaignDamage, on base: CampaignDocument, in sandbox: TemporaryDirectory,
                     label: String, tally: inout CampaignTally) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: sandbox.url.path) where name.hasPrefix("case-") {
            try FileManager.default.removeItem(atPath: sandbox.path(name))
        }
        let damaged = damage.apply(to: base.bytes)
        let (checked, written, recovered) = (sandbox.path("case-v.strata"), sandbox.path("case-w.strata"), sandbox.path("case-r.strata"))
        for path in [checked, written, recovered] { try damaged.write(to: URL(fileURLWithPath: path)) }

        let verified = try CLI.strataLog("verify", checked)
        #expect(!verified.stderr.contains("SQLite error"), "\(label): verify: \(verified.stderr)")
        if verified.status == 0 {
            let same = (try? CampaignDocument.records(checked)) == base.records
            tally.count(same ? "intact: verify passes, records unchanged" : "UNDETECTED: verify passes, records changed")
            #expect(same || base.name == "compacted", "\(label): verify passed but the records changed")
            return
        }
        tally.count("detected: verify fails")

        let write = try CLI.strata("insert", written, "Department", "name=Written")
        if write.status == 0 {
            tally.count("write accepted on a damaged file")
            let problems = verified.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") }
            tally.acceptedWrites.append("\(damage) on \(base.name): \(problems.joined(separator: " | ").prefix(300))")
            // Only damage no cheap check can see: a value changed inside an intact record.
            #expect(problems.allSatisfy { !$0.contains("checksum") && !$0.contains("corrupt") && !$0.contains("group rows") && !$0.contains("integrity") },
                    "\(label): a write was accepted on: \(problems)")
        } else {
            tally.count("write refused")
            #expect(write.stderr.contains("damaged") && write.stderr.contains("strata-log recover") && !write.stderr.contains("SQLite error"),
                    "\(label): write refused without naming the damage: \(write.stderr)")
        }

        let recover = try CLI.strataLog("recover", recovered)
        #expect(!recover.stderr.contains("SQLite error") && !recover.stderr.contains("Fatal error"), "\(label): recover: \(recover.stderr)")
        guard recover.status == 0 else {
            tally.count("refused by recover (Strata error)")
            #expect(recover.stderr.hasPrefix("strata-log: error: "), "\(label): \(recover.stderr)")
            return
        }
        let after = try CLI.strataLog("verify", recovered)
        // Known gap (docs/RELIABILITY.md): when history is not kept and a snapshot table's
        // rows are lost, relationships that pointed to them dangle and verify names them.
        let danglingAfterLostRows = base.name == "compacted" && recover.stdout.contains("lost: table")
            && after.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") }.allSatisfy { $0.contains("which does not exist") }
        #expect(after.status == 0 || danglingAfterLostRows,
                "\(label): the recovered file fails verify:\n\(recover.stdout)\n--- verify:\n\(after.stdout)\(after.stderr)")
        guard after.status == 0 else {
            tally.count(danglingAfterLostRows ? "mended with named losses, relationships to lost rows dangle (known gap)" : "NOT MENDED: recovered file fails verify")
            return
        }
        let records = try CampaignDocument.records(recovered)
        let segments = try CampaignDocument.segments(recovered).segments
        if records == base.records, segments == base.segments {
            tally.count("mended exactly")
            return
        }
        tally.count("mended with named losses")
        let named = recover.stdout.contains("dropped segment") || recover.stdout.contains("lost:")
        #expect(named, "\(label): records or segments lost without being named:\n\(recover.stdout)")
        // A document keeping its history loses something only with a damaged segment body.
        let bodies = base.damagedBodies(at: damage.position, cut: damage.mask == nil)
        let droppedIntact = base.segments.keys.filter { segments[$0] == nil && !bodies.contains($0) }
        if base.name == "history", bodies.isEmpty {
            #expect(Bool(false), "\(label): losses without a damaged segment body:\n\(recover.stdout)")
        }
        if !droppedIntact.isEmpty { tally.count("… of which intact segments dropped beside a damaged one") }
    }
}
