import Foundation
import Testing
@testable import Strata
import StrataTestSupport

// SIGKILL at seeded random moments of a large `strata import` and a large
// `strata-log compact` (docs/RELIABILITY.md, "Faults and kills"): after each kill the
// document must verify and hold exactly the state before the command or the state after
// it — never anything between. CI kills each a few times; STRATA_KILLS=100 is the full
// run, STRATA_KILL_ROWS sets the size of the import (default 3,000 rows).

private let environment = ProcessInfo.processInfo.environment
private let killsWanted = environment["STRATA_KILLS"].flatMap { Int($0) } ?? 5
private let rowCount = environment["STRATA_KILL_ROWS"].flatMap { Int($0) } ?? 3_000

/// A CSV of departments with long names, so the import writes many pages.
private func departmentRows(_ count: Int) -> Data {
    var text = "name,budget\n"
    for number in 0..<count {
        text += "Department \(number) \(String(repeating: "n", count: 80)),\(number * 10)\n"
    }
    return Data(text.utf8)
}

/// What a command-line tool run ended as.
private struct Ending {
    var killed: Bool
    var seconds: Double
    var stderr: String
}

/// Runs `tool` with `arguments`, killing it with SIGKILL after `delay` seconds (nil: never).
private func run(_ tool: String, _ arguments: [String], killAfter delay: Double?) throws -> Ending {
    let process = Process()
    process.executableURL = CLI.binary(tool)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    let error = Pipe()
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    let start = Date()
    try process.run()
    if let delay {
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
    }
    let errorText = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return Ending(killed: process.terminationReason == .uncaughtSignal, seconds: Date().timeIntervalSince(start), stderr: errorText)
}

/// What the document holds: its export and its compaction mark.
private struct Held: Equatable {
    var export: String
    var compactedThrough: Int64
    var segments: Int

    init(_ path: String) throws {
        let exported = try CLI.strata("export", path)
        guard exported.status == 0 else {
            throw StrataError(.io, "export failed: \(exported.stderr)")
        }
        export = exported.stdout
        let connection = try SQLiteConnection(path: path, flags: [.readOnly])
        defer { connection.close() }
        let mark = try connection.prepare("SELECT value FROM strata_meta WHERE key = 'compactedThrough'").rows().first?.first
        if case .integer(let value)? = mark { compactedThrough = value } else { compactedThrough = 0 }
        let rows = try connection.prepare("SELECT count(*) FROM strata_segment").rows().first?.first
        if case .integer(let value)? = rows { segments = Int(value) } else { segments = 0 }
    }
}

@Suite(.serialized) struct KillTests {
    /// Kills `command` (run on a fresh copy of `template` each time) until `killsWanted`
    /// kills landed while it ran; each leaves exactly `before` or `after`.
    /// `savesThenCompacts`: the command commits its change, then compacts in a second
    /// transaction (`strata import`), so a kill between them leaves the after state not yet
    /// folded into the snapshot: the same objects and segments, an earlier compaction mark.
    /// `between`: states a kill may also leave (a staged migration's finished stages);
    /// `rerunFinishes`: after each kill the command runs again, unkilled, and must leave
    /// exactly `after` (a staged migration resumes where the kill stopped it).
    private func killRepeatedly(_ name: String, template: String, sandbox: TemporaryDirectory, before: Held,
                                savesThenCompacts: Bool = false, between: [Held] = [], rerunFinishes: Bool = false,
                                kills killsWanted: Int = killsWanted,
                                _ command: (String) -> (tool: String, arguments: [String])) throws {
        let seed = testSeed("KillTests \(name)")
        var random = SeededGenerator(seed: seed)
        // An unkilled run: how long the command takes, and what it leaves.
        let clean = sandbox.path("clean.strata")
        try FileManager.default.copyItem(atPath: template, toPath: clean)
        let (tool, arguments) = command(clean)
        let calibration = try run(tool, arguments, killAfter: nil)
        #expect(!calibration.killed && calibration.stderr.isEmpty, "\(name): \(calibration.stderr)")
        let after = try Held(clean)
        #expect(after != before, "\(name) changed nothing")

        var kills = 0, rounds = 0, killedBefore = 0, killedAfter = 0, killedBetween = 0
        let start = Date()
        // How long a run takes: the first, calibrating run is the slowest (cold caches), so
        // every run that finishes unkilled narrows it and later kills land within the run.
        var span = calibration.seconds
        while kills < killsWanted, rounds < killsWanted * 6 {
            rounds += 1
            let document = sandbox.path("killed-\(rounds).strata")
            try FileManager.default.copyItem(atPath: template, toPath: document)
            // Half anywhere in the run, half in its last 40% (the save or compaction and
            // its commit and checkpoint come last).
            let from = rounds % 2 == 0 ? 0.005 : span * 0.6
            let delay = Double.random(in: from...max(from + 0.002, span * 0.98), using: &random)
            let (tool, arguments) = command(document)
            let ending = try run(tool, arguments, killAfter: delay)
            let label = "seed \(seed) \(name) round \(rounds) (kill after \(String(format: "%.3f", delay)) of \(String(format: "%.3f", span)) s)"
            if ending.killed { kills += 1 } else { span = min(span, ending.seconds) }
            // The first open after a kill writes (it folds what the killed process left in
            // `-wal`, which read-only commands refuse to do): recover, which changes nothing
            // else in a sound document.
            let reopened = try CLI.strataLog("recover", document)
            #expect(reopened.status == 0 && reopened.stdout.hasPrefix("Nothing to recover"),
                    "\(label): recover: \(reopened.stdout) \(reopened.stderr)")
            let verified = try CLI.strataLog("verify", document)
            #expect(verified.status == 0, "\(label): verify failed: \(verified.stdout) \(verified.stderr)")
            do {
                var held = try Held(document)
                if savesThenCompacts, held.export == after.export, held.segments == after.segments,
                   held.compactedThrough < after.compactedThrough {
                    held.compactedThrough = after.compactedThrough
                }
                #expect(held == before || held == after || between.contains(held),
                        "\(label): neither before nor after (\(held.segments) segments, compacted through \(held.compactedThrough))")
                if ending.killed, held == before { killedBefore += 1 } else if ending.killed, held == after { killedAfter += 1 }
                else if ending.killed, between.contains(held) { killedBetween += 1 }
                if !ending.killed { #expect(held == after, "\(label): finished but did not leave the after state") }
                if rerunFinishes {
                    let rerun = try run(tool, arguments, killAfter: nil)
                    #expect(!rerun.killed && rerun.stderr.isEmpty, "\(label): the rerun failed: \(rerun.stderr)")
                    #expect(try Held(document) == after, "\(label): the rerun did not finish the command")
                    let verifiedRerun = try CLI.strataLog("verify", document)
                    #expect(verifiedRerun.status == 0, "\(label): verify after the rerun: \(verifiedRerun.stdout) \(verifiedRerun.stderr)")
                }
            } catch {
                Issue.record("\(label): \(error)")
            }
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: document + suffix) }
        }
        print("KillTests \(name): \(kills) kills in \(rounds) runs (\(rowCount) rows; the command takes \(String(format: "%.2f", calibration.seconds)) s): "
              + "\(killedBefore) kills left the state before, \(killedAfter) the state after, "
              + (between.isEmpty ? "" : "\(killedBetween) a state between, ")
              + "none anything else\(rerunFinishes ? "; every rerun finished it" : ""); \(String(format: "%.0f", Date().timeIntervalSince(start))) s")
        #expect(kills >= killsWanted, "\(name): only \(kills) of \(rounds) runs were killed while running")
    }

    /// A new employees document with `rowCount` departments imported: the starting point
    /// of the kill tests whose command works on existing rows.
    private func importedTemplate(_ sandbox: TemporaryDirectory) throws -> String {
        let template = try sandbox.employees("template.strata")
        let rows = sandbox.path("rows.csv")
        try departmentRows(rowCount).write(to: URL(fileURLWithPath: rows))
        let imported = try CLI.strata("import", template, rows, "--entity", "Department")
        #expect(imported.status == 0, "\(imported.stderr)")
        return template
    }

    @Test func killsDuringALargeImportLeaveTheStateBeforeOrAfter() throws {
        let sandbox = try TemporaryDirectory()
        let template = try sandbox.employees("template.strata")
        let rows = sandbox.path("rows.csv")
        try departmentRows(rowCount).write(to: URL(fileURLWithPath: rows))
        let before = try Held(template)
        try killRepeatedly("import", template: template, sandbox: sandbox, before: before, savesThenCompacts: true) { document in
            ("strata", ["import", document, rows, "--entity", "Department"])
        }
    }

    /// A migration is one transaction: at least 50 kills (docs/MIGRATION.md, "Crash
    /// safety"), each leaving the document in the old model or the migrated one.
    @Test func killsDuringAMigrationLeaveTheOldDocumentOrTheMigratedOne() throws {
        let sandbox = try TemporaryDirectory()
        let template = try importedTemplate(sandbox)
        _ = try sandbox.insert(template, "Employee", "firstName=Ada", "lastName=Lovelace", "employeeID=7")
        let model = sandbox.path("v2.json")
        try EmployeesVersions.write(model)
        let before = try Held(template)
        try killRepeatedly("migration", template: template, sandbox: sandbox, before: before, kills: max(killsWanted, 50)) { document in
            ("strata", ["migrate", document, "--model", model])
        }
    }

    /// A staged migration (v1 → v2 → v3, one transaction per stage) killed anywhere leaves
    /// v1, v2 or v3 — never a mixture — and running it again finishes it (docs/MIGRATION.md,
    /// "Staged migration").
    @Test func killsDuringAStagedMigrationLeaveAStageAndARerunFinishesIt() throws {
        let sandbox = try TemporaryDirectory()
        let template = try importedTemplate(sandbox)
        _ = try sandbox.insert(template, "Employee", "firstName=Ada", "lastName=Lovelace", "employeeID=7")
        let v2 = sandbox.path("v2.json"), v3 = sandbox.path("v3.json")
        try EmployeesVersions.write(v2)
        try EmployeesVersions.write(v3, version: 3)
        let before = try Held(template)
        let firstStage = sandbox.path("first-stage.strata")
        try FileManager.default.copyItem(atPath: template, toPath: firstStage)
        let migrated = try CLI.strata("migrate", firstStage, "--model", v2)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let between = try Held(firstStage)
        try killRepeatedly("staged migration", template: template, sandbox: sandbox, before: before, between: [between],
                           rerunFinishes: true, kills: max(killsWanted, 10)) { document in
            ("strata", ["migrate", document, "--model", v2, "--model", v3])
        }
    }

    /// `strata undo` and `strata redo` of an import revert it in the store, chunk by chunk
    /// and folded as they go, inside one write (docs/ARCHITECTURE.md, "Undo"): a kill
    /// leaves the import whole or wholly reverted.
    @Test func killsDuringTheUndoAndRedoOfALargeImportLeaveTheStateBeforeOrAfter() throws {
        let sandbox = try TemporaryDirectory()
        let template = try importedTemplate(sandbox)
        let imported = try Held(template)
        try killRepeatedly("undo", template: template, sandbox: sandbox, before: imported, savesThenCompacts: true) { document in
            ("strata", ["undo", document])
        }
        // The redo's runs in a directory of their own (each run's copies have fixed names).
        let redoing = try TemporaryDirectory()
        let undoneTemplate = redoing.path("template.strata")
        try FileManager.default.copyItem(atPath: template, toPath: undoneTemplate)
        #expect(try CLI.strata("undo", undoneTemplate).status == 0)
        let undone = try Held(undoneTemplate)
        try killRepeatedly("redo", template: undoneTemplate, sandbox: redoing, before: undone, savesThenCompacts: true) { document in
            ("strata", ["redo", document])
        }
    }

    @Test func killsDuringALargeCompactionLeaveTheStateBeforeOrAfter() throws {
        let sandbox = try TemporaryDirectory()
        let template = try importedTemplate(sandbox)
        // The import compacts; undo and redo leave two large segments for compaction to fold.
        #expect(try CLI.strata("undo", template).status == 0)
        #expect(try CLI.strata("redo", template).status == 0)
        let before = try Held(template)
        try killRepeatedly("compaction", template: template, sandbox: sandbox, before: before) { document in
            ("strata-log", ["compact", document])
        }
    }
}
