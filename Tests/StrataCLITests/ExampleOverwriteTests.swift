import Foundation
import Testing

/// No example deletes or overwrites an existing file unless told to with `--force`
/// (README.md, "BackgroundImport and StaffList").
@Suite("examples keep existing files")
struct ExampleOverwriteTests {
    /// A file that must survive, with its bytes.
    private func precious(_ sandbox: TemporaryDirectory, _ name: String) throws -> (path: String, bytes: Data) {
        let path = sandbox.path(name)
        let bytes = Data("my thesis, not a Strata document\n".utf8)
        try bytes.write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    @Test("background-import-example refuses an existing DOC, and replaces it with --force")
    func backgroundImport() throws {
        let sandbox = try TemporaryDirectory()
        let file = try precious(sandbox, "thesis.strata")
        let refused = try CLI.run("background-import-example", [file.path, "--employees", "10"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "background-import-example: error: \(file.path) already exists; pass --force to replace it.\n", "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == file.bytes)
        let forced = try CLI.run("background-import-example", [file.path, "--employees", "10", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains("imported 10 employees"), "\(forced.stdout)")
    }

    @Test("staff-list-example refuses an existing DOCUMENT, and replaces it with --force")
    func staffList() throws {
        let sandbox = try TemporaryDirectory()
        let file = try precious(sandbox, "staff.strata")
        let refused = try CLI.run("staff-list-example", [file.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("already exists; pass --force"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == file.bytes)
        let forced = try CLI.run("staff-list-example", [file.path, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.hasPrefix("list: Engineering: Lovelace | Sales: Hopper"), "\(forced.stdout)")
    }

    @Test("outliner --generate refuses an existing DOC, and replaces it with --force")
    func outlinerGenerate() throws {
        let outliner = CLI.binary("outliner")
        guard FileManager.default.isExecutableFile(atPath: outliner.path) else {
            print("skipped: no outliner built at \(outliner.path)")
            return
        }
        let sandbox = try TemporaryDirectory()
        let file = try precious(sandbox, "outline.strata")
        let refused = try CLI.run(outliner.path, ["--generate", "50", file.path])
        #expect(refused.status == 1 && refused.stderr.contains("already exists; pass --force"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == file.bytes)
        let forced = try CLI.run(outliner.path, ["--generate", "50", file.path, "--force"])
        #expect(forced.status == 0 && forced.stdout == "wrote 50 items to \(file.path)\n", "\(forced.stderr)")
    }
}
