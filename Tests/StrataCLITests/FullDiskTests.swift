import Foundation
import Testing
@testable import Strata

/// A small tmpfs mounted for one test (root only; CI runs as root), unmounted afterwards.
final class SmallFileSystem {
    let directory: URL

    /// Mounts a tmpfs of `kilobytes`, or returns nil (printing why) when the test cannot.
    static func mount(kilobytes: Int, in sandbox: TemporaryDirectory) -> SmallFileSystem? {
        guard getuid() == 0 else {
            print("skipped: mounting a tmpfs needs root (uid \(getuid()))")
            return nil
        }
        let directory = sandbox.url.appendingPathComponent("small")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let result = try? CLI.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", directory.path])
        guard result?.status == 0 else {
            print("skipped: mount -t tmpfs failed: \(result?.stderr ?? "")")
            return nil
        }
        return SmallFileSystem(directory: directory)
    }

    private init(directory: URL) { self.directory = directory }

    deinit { _ = try? CLI.run("/bin/umount", [directory.path]) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    var freeBytes: Int64 { SQLiteConnection.freeBytes(besides: path("x")) ?? 0 }

    /// Fills the file system until `leaving` bytes are free (0: until writes fail).
    func fill(leaving: Int64 = 0) throws {
        let filler = path("filler-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: filler))
        defer { try? handle.close() }
        if leaving > 0 {
            let size = max(0, freeBytes - leaving)
            try handle.write(contentsOf: Data(count: Int(size)))
            return
        }
        let chunk = Data(count: 4096)
        while (try? handle.write(contentsOf: chunk)) != nil {}
        try? handle.synchronize()
        // tmpfs may keep a partial page: write single bytes until nothing fits.
        while (try? handle.write(contentsOf: Data(count: 1))) != nil {}
    }

    /// Deletes the fillers.
    func free() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasPrefix("filler-") {
            try FileManager.default.removeItem(atPath: path(name))
        }
    }

    /// The names in the directory that start with `prefix`.
    func files(_ prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(prefix) }.sorted()
    }
}

/// Full disks (docs/RELIABILITY.md, "Full disks").
@Suite("Full disks", .serialized)
struct FullDiskTests {
    @Test("on a 100% full disk read-only commands work, leave no -wal/-shm, and writes fail saying the disk is full")
    func readingAFullDisk() throws {
        let sandbox = try TemporaryDirectory()
        guard let disk = SmallFileSystem.mount(kilobytes: 512, in: sandbox) else { return }
        let source = try sandbox.employees()
        let uri = try sandbox.insert(source, "Department", "name=Research")
        let document = disk.path("staff.strata")
        try FileManager.default.copyItem(atPath: source, toPath: document)
        let export = disk.path("staff.json")
        #expect(try CLI.strata("export", document, "-o", export).status == 0)
        let exported = try Data(contentsOf: URL(fileURLWithPath: export))
        try disk.fill()
        #expect(disk.freeBytes < 4096, "free: \(disk.freeBytes)")
        let before = try Data(contentsOf: URL(fileURLWithPath: document))

        for arguments in [["info", document], ["fetch", document, "Department"], ["get", document, uri], ["history", document]] {
            let result = try CLI.run("strata", arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        for arguments in [["dump", document], ["verify", document], ["stats", document]] {
            let result = try CLI.run("strata-log", arguments)
            #expect(result.status == 0, "\(arguments): \(result.stdout)\(result.stderr)")
        }
        let left = try disk.files("staff.strata")
        #expect(left == ["staff.strata"], "left behind: \(left)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: document)) == before)

        let write = try CLI.strata("insert", document, "Department", "name=Full")
        expectFailure(write, mentions: ["disk is full"])
        #expect(write.status == 74, "a full disk is EX_IOERR: \(write.status)")
        // An export over an existing file fails and keeps the old one whole.
        let failedExport = try CLI.strata("export", document, "-o", export)
        expectFailure(failedExport, mentions: ["disk is full", "unchanged"])
        #expect(failedExport.status == 74, "a full disk is EX_IOERR: \(failedExport.status)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: export)) == exported)
        let temporary = try disk.files(".staff")
        #expect(temporary.isEmpty, "temporary files left: \(temporary)")
        try disk.free()
        #expect(try CLI.strata("fetch", document, "Department", "--count").stdout == "1\n")
        #expect(try disk.files("staff.strata") == ["staff.strata"])
    }

    @Test("on a nearly full disk every acknowledged save reaches the main file after close or the next open")
    func savingOnANearlyFullDisk() throws {
        let sandbox = try TemporaryDirectory()
        let rows = (0..<5000).map { "{\"name\": \"Department \($0) with a name long enough to take room\"}" }
        let input = sandbox.path("rows.json")
        try Data(("[" + rows.joined(separator: ",\n") + "]").utf8).write(to: URL(fileURLWithPath: input))
        var outcomes: [String] = []
        for free in [200, 90, 60] {
            guard let disk = SmallFileSystem.mount(kilobytes: 1200, in: sandbox) else { return }
            let document = disk.path("d.strata")
            #expect(try CLI.strata("new", document, "--example", "employees").status == 0)
            try disk.fill(leaving: Int64(free) << 10)
            let imported = try CLI.strata("import", document, input, "--entity", "Department")
            let wal = try disk.files("d.strata-wal")
            if imported.status == 0 {
                // Acknowledged: the file is whole, or the warning said why not.
                #expect(wal.isEmpty || imported.stderr.contains("could not be made whole"), "\(free) KB: \(imported.stderr)")
            }
            outcomes.append("\(free) KB free: status \(imported.status), \(wal.isEmpty ? "single file" : "WAL kept, warned")")
            try disk.free()
            // The next command, a read-only one included, finishes the checkpoint
            // (docs/RELIABILITY.md: one `strata info` after freeing space).
            let info = try CLI.strata("info", document)
            #expect(info.status == 0, "\(free) KB: \(info.stderr)")
            let left = try disk.files("d.strata")
            #expect(left == ["d.strata"], "\(left)")
            // The main file alone holds every acknowledged save.
            let alone = sandbox.path("alone-\(free).strata")
            try FileManager.default.copyItem(atPath: document, toPath: alone)
            let count = try CLI.strata("fetch", alone, "Department", "--count")
            #expect(count.stdout == (imported.status == 0 ? "5000\n" : "0\n"), "\(free) KB: \(count.stdout)\(count.stderr)")
            #expect(try CLI.strataLog("verify", alone).status == 0)
        }
        print("FullDiskTests.savingOnANearlyFullDisk: \(outcomes.joined(separator: "; "))")
    }

    @Test("replay --out and recover's backup never leave a partial file over an existing one")
    func filesWrittenByRename() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        for index in 1...3 { _ = try sandbox.insert(document, "Department", "name=D\(index)") }
        let target = sandbox.path("old.strata")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
        // Segment 9 does not exist: the replay fails before anything is written.
        #expect(try CLI.strataLog("replay", document, "--to", "9", "--out", target, "--force").status != 0)
        #expect(try sandbox.bytes("old.strata") == Data("precious".utf8))
        #expect(try CLI.strataLog("replay", document, "--to", "2", "--out", target, "--force").status == 0)
        #expect(try CLI.strata("fetch", target, "Department", "--count").stdout == "2\n")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.url.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
