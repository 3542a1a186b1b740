import Foundation
import Testing
@testable import Strata

/// Busy documents (docs/RELIABILITY.md, "Busy documents").
@Suite("Busy documents", .serialized)
struct BusyDocumentTests {
    @Test("many processes opening and inserting at once never see 'There is no document'")
    func contention() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let writes = (0..<24).map { $0 % 3 != 2 }
        let results = try CLI.runAll("strata", writes.enumerated().map { index, writes in
            writes ? ["insert", document, "Department", "name=P\(index)"] : ["info", document]
        }, environment: ["STRATA_BUSY_TIMEOUT": "60"])
        var inserted = 0
        for (result, writes) in zip(results, writes) {
            #expect(!result.stderr.contains("no document"), "\(result.stderr)")
            #expect(result.status == 0, "\(result.stderr)")
            if writes, result.status == 0 { inserted += 1 }
        }
        #expect(inserted == 16)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.url.path).filter { $0.hasPrefix("staff.strata") } == ["staff.strata"])
    }

    @Test("a document another process holds fails after STRATA_BUSY_TIMEOUT with 'busy', naming the process")
    func busyNamesTheHolder() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Research")
        let sqlite = URL(fileURLWithPath: "/usr/bin/sqlite3")
        guard FileManager.default.isExecutableFile(atPath: sqlite.path) else {
            print("skipped: no /usr/bin/sqlite3 to hold the lock")
            return
        }
        let holder = Process()
        holder.executableURL = sqlite
        holder.arguments = [document]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nINSERT INTO strata_meta VALUES ('held', 1);\nSELECT 'holding';\n".utf8))
        _ = output.fileHandleForReading.availableData   // "holding": the lock is taken
        let started = Date()
        let result = try CLI.run("strata", ["insert", document, "Department", "name=Blocked"], environment: ["STRATA_BUSY_TIMEOUT": "0.5"])
        let waited = Date().timeIntervalSince(started)
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        expectFailure(result, mentions: ["busy", "process \(holder.processIdentifier)"])
        #expect(result.status == 75, "busy is EX_TEMPFAIL (try again): \(result.status)")
        #expect(waited < 10, "waited \(waited) s")
        #expect(try CLI.strata("fetch", document, "Department", "--count").stdout == "1\n")
    }
}

/// Errors that name a permission problem as such (docs/RELIABILITY.md, "Busy documents").
@Suite("Permission errors", .serialized)
struct PermissionErrorTests {
    @Test("a document another user may not open is reported as 'permission denied', not as missing or damaged")
    func permissionDenied() throws {
        let setpriv = "/usr/bin/setpriv"
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: setpriv) else {
            print("skipped: needs root and \(setpriv) to run a command as another user")
            return
        }
        // A world-readable directory outside the sandbox's parent permissions.
        let folder = URL(fileURLWithPath: "/tmp/strata-permission-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = folder.appendingPathComponent("strata").path
        try FileManager.default.copyItem(atPath: CLI.binary("strata").path, toPath: tool)
        let document = folder.appendingPathComponent("d.strata").path
        #expect(try CLI.strata("new", document, "--example", "employees").status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: document)
        let result = try CLI.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", tool, "info", document])
        expectFailure(result, mentions: ["permission denied", document])
        #expect(result.status == 74, "permission denied is EX_IOERR: \(result.status)")
        #expect(!result.stderr.contains("no document") && !result.stderr.contains("not a Strata document"))
    }
}
