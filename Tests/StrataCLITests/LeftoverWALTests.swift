import Foundation
import Testing
@testable import Strata

/// A `-wal` holding acknowledged saves never locks readers out (issue 32, item 6;
/// docs/RELIABILITY.md, "Documents that are only read"): after a checkpoint a full disk
/// stopped, or a writer killed between its commit and its checkpoint, every read-only
/// command reads the saves, and the first one that can folds the WAL into the main file.
@Suite struct LeftoverWALTests {
    /// The read-only commands of the issue, each expected to see `departments` departments.
    static func expectReadsSee(_ document: String, departments: Int, label: String) throws {
        let info = try CLI.strata("info", document)
        #expect(info.status == 0, "\(label) info: \(info.stderr)")
        let count = try CLI.strata("fetch", document, "Department", "--count")
        #expect(count.status == 0 && count.stdout == "\(departments)\n", "\(label) fetch: \(count.stdout) \(count.stderr)")
        let export = try CLI.strata("export", document)
        #expect(export.status == 0, "\(label) export: \(export.stderr)")
        let exported = (try? JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [[String: Any]]) ?? []
        let exportedDepartments = exported.filter { ($0["_uri"] as? String)?.contains("/Department/") == true }
        #expect(exportedDepartments.count == departments, "\(label) export: \(export.stdout.prefix(300))")
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status == 0, "\(label) verify: \(verify.stdout) \(verify.stderr)")
    }

    @Test("the reproduction: an import on a disk with 88 KiB free, then reads before and after space is freed")
    func importOnANearlyFullDisk() throws {
        let sandbox = try TemporaryDirectory()
        guard let disk = SmallFileSystem.mount(kilobytes: 1200, in: sandbox) else { return }
        let rows = (0..<5000).map { "{\"name\": \"Department \($0) with a name long enough to take room\"}" }
        let input = sandbox.path("rows.json")
        try Data(("[" + rows.joined(separator: ",\n") + "]").utf8).write(to: URL(fileURLWithPath: input))
        let document = disk.path("d.strata")
        #expect(try CLI.strata("new", document, "--example", "employees").status == 0)
        try disk.fill(leaving: 88 << 10)
        let imported = try CLI.strata("import", document, input, "--entity", "Department")
        #expect(imported.status == 0, "\(imported.stderr)")
        let wal = try disk.files("d.strata-wal")
        guard !wal.isEmpty else {
            Issue.record("the import left a single file with 88 KiB free; the case needs its WAL kept (\(imported.stderr))")
            return
        }
        // The save said the document is not yet a single file, and what to do.
        #expect(imported.stderr.contains("warning") && imported.stderr.contains("could not be made whole"), "\(imported.stderr)")
        #expect(imported.stderr.contains("free some space"), "\(imported.stderr)")

        // Still full: every read sees the import through the WAL, and nothing is lost.
        try Self.expectReadsSee(document, departments: 5000, label: "full disk")
        #expect(try disk.files("d.strata-wal") == ["d.strata-wal"])

        // Space freed: one read folds the WAL in and leaves a single file.
        try disk.free()
        let info = try CLI.strata("info", document)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(try disk.files("d.strata") == ["d.strata"])
        try Self.expectReadsSee(document, departments: 5000, label: "freed")
        // The main file alone is the document.
        let alone = sandbox.path("alone.strata")
        try FileManager.default.copyItem(atPath: document, toPath: alone)
        #expect(try CLI.strata("fetch", alone, "Department", "--count").stdout == "5000\n")
        #expect(try CLI.strataLog("verify", alone).status == 0)
    }

    @Test("a writer killed after its commits and before its checkpoint: the next read sees every save and leaves one file")
    func killedWriter() throws {
        let sandbox = try TemporaryDirectory()
        let url = sandbox.url.appendingPathComponent("killed.strata")
        let process = Process()
        process.executableURL = builtExecutable("strata-crash-writer")
        process.arguments = ["save", url.path, "--batch", "3"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        // Kill it once it has reported five saves: they are committed, in the WAL.
        var seen = ""
        while !seen.contains("saved 5\n") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let saves = seen.split(separator: "\n").filter { $0.hasPrefix("saved ") }.count
        try #require(saves >= 5, "\(seen)")
        try #require(DocumentCheckpoint.walBytes(url.path) > 0, "the killed writer left no WAL")

        // A read-only command reads the saves (the progress department and 3 employees a
        // save) and folds the WAL in.
        let employees = try CLI.strata("fetch", url.path, "Employee", "--count")
        #expect(employees.status == 0, "\(employees.stderr)")
        let count = Int(employees.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(count >= 3 * saves && count <= 3 * (saves + 1), "\(count) employees for \(saves) reported saves")
        let left = try FileManager.default.contentsOfDirectory(atPath: sandbox.url.path).filter { $0.hasPrefix("killed.strata") }
        #expect(left == ["killed.strata"], "\(left)")
        try Self.expectReadsSee(url.path, departments: 1, label: "after the kill")
        #expect(try CLI.strata("fetch", url.path, "Employee", "--count").stdout == employees.stdout)
    }

    @Test("a read-only store opened on a document with a leftover WAL reads its saves; the main file alone then holds them")
    func readOnlyStoreFoldsTheLeftoverWAL() throws {
        let sandbox = try TemporaryDirectory()
        let copy = try sandbox.documentWithLeftoverWAL()
        try #require(DocumentCheckpoint.walBytes(copy) > 0)

        var readOnly = DocumentStore.Configuration()
        readOnly.isReadOnly = true
        let reader = try DocumentStore(openingAt: URL(fileURLWithPath: copy), configuration: readOnly)
        let department = try reader.model.entity(named: "Department")
        #expect(try reader.objectIDs(for: department, includingSubentities: false).count == 1)
        try reader.close()
        let left = try FileManager.default.contentsOfDirectory(atPath: sandbox.url.path).filter { $0.hasPrefix("copy.strata") }
        #expect(left == ["copy.strata"], "\(left)")
        #expect(try CLI.strata("fetch", copy, "Department", "--count").stdout == "1\n")
    }
}
