import Foundation
import StrataTestSupport
import Testing

/// README.md cannot drift from the tools: every shell block runs, in order, in one scratch
/// directory, against the built `strata` and `strata-log` on PATH; each `sh` command must
/// succeed, and each `console` command must print what the README shows (store identifiers,
/// times and the directory aside) and fail exactly when the README shows an error.
@Suite("README.md's shell blocks run as written")
struct ReadmeTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var script: ReadmeScript {
        get throws { ReadmeScript(markdown: try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)) }
    }

    @Test("every block either runs or says why not")
    func blocksAreAccountedFor() throws {
        let blocks = try Self.script.blocks
        #expect(blocks.count >= 6, "README.md has \(blocks.count) shell blocks")
        for block in blocks {
            if let reason = block.skipReason { #expect(!reason.isEmpty, "README.md:\(block.line): a skipped block needs a reason") }
            #expect(!block.commands.isEmpty, "README.md:\(block.line): an empty block")
        }
        // The walkthrough, the model and migration, computed fetches and sharing run.
        #expect(blocks.filter { $0.skipReason == nil }.count >= 4)
    }

    @Test("the commands run and print what the README shows")
    func commandsRunAsShown() throws {
        let sandbox = try TemporaryDirectory()
        let directory = sandbox.url.resolvingSymlinksInPath().path
        let tools = builtExecutable("strata").deletingLastPathComponent().path
        let path = tools + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for block in try Self.script.blocks where block.skipReason == nil {
            let workingDirectory = block.directory.map { Self.packageRoot.appendingPathComponent($0).path } ?? directory
            switch block.kind {
            case .shell:
                let text = block.commands.map(\.text).joined(separator: "\n")
                let result = try Self.bash(text, in: workingDirectory, path: path)
                #expect(result.status == 0, """
                    README.md:\(block.line): the block failed (status \(result.status)):
                    \(text)
                    \(result.output.suffix(1500))
                    """)
            case .console:
                for command in block.commands {
                    let result = try Self.bash(command.text, in: workingDirectory, path: path)
                    let expected = command.expectedOutput.joined(separator: "\n")
                    let showsError = command.expectedOutput.contains { $0.contains(": error: ") }
                    #expect((result.status != 0) == showsError, """
                        README.md:\(command.line): `\(command.text)` exited \(result.status)\
                        \(showsError ? ", where the README shows an error" : ""):
                        \(result.output.suffix(1500))
                        """)
                    let actual = ReadmeOutput.normalized(result.output, directory: directory)
                    #expect(actual == ReadmeOutput.normalized(expected, directory: directory), """
                        README.md:\(command.line): `\(command.text)` printed
                        \(actual)
                        where the README shows
                        \(ReadmeOutput.normalized(expected, directory: directory))
                        """)
                }
            }
        }
    }

    /// Runs `script` with bash (`-e -o pipefail`), standard error merged into the output as
    /// a terminal shows it.
    static func bash(_ script: String, in directory: String, path: String) throws -> (status: Int32, output: String) {
        let result = try CLI.run("/bin/bash", ["-e", "-o", "pipefail", "-c", "{\n\(script)\n} 2>&1"],
                                 in: URL(fileURLWithPath: directory),
                                 environment: ["PATH": path, "COLUMNS": "100", "NO_COLOR": "1"])
        return (result.status, result.stdout + result.stderr)
    }
}
