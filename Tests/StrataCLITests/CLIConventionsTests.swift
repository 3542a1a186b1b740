import Foundation
import Testing

/// The conventions the tools share with git, sqlite3 and the GNU tools (README.md,
/// "Command line"): `--version`, `-` for standard input and output, the usage line on
/// argument errors, completion scripts with file hints.
@Suite("command-line conventions")
struct CLIConventionsTests {
    @Test("--version prints the tool's name and Strata's version, the same for every tool")
    func version() throws {
        let strata = try CLI.strata("--version")
        let log = try CLI.strataLog("--version")
        #expect(strata.status == 0 && log.status == 0, "\(strata.stderr)\(log.stderr)")
        // `strata (Strata) 0.1.0-dev`, with `, debug build` after an unoptimized build.
        let line = try #require(strata.stdout.wholeMatch(of: /strata \(Strata\) ([0-9][^ ,\n]*)(, debug build)?\n/))
        let rest = strata.stdout.dropFirst("strata".count)
        #expect(log.stdout == "strata-log\(rest)")
        #expect(line.output.1.contains("."), "\(strata.stdout)")
    }

    @Test("an argument error keeps ArgumentParser's usage line after the one error line, and exits 64")
    func usageLineIsKept() throws {
        let result = try CLI.strata("fetch")
        #expect(result.status == 64)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "strata: error: Missing expected argument '<document>'", "\(result.stderr)")
        #expect(lines.contains { $0.hasPrefix("Usage: strata fetch ") && $0.hasSuffix("<document> <entity>") }, "\(result.stderr)")
        #expect(lines.last?.contains("See 'strata fetch --help'") == true, "\(result.stderr)")
        let log = try CLI.strataLog("replay", "x.strata", "--out", "y.strata")
        #expect(log.status == 64)
        #expect(log.stderr.contains("\nUsage: strata-log replay <document>"), "\(log.stderr)")
    }

    @Test("export -o - writes standard output; import - reads standard input")
    func dashIsStandardInputAndOutput() throws {
        let sandbox = try TemporaryDirectory()
        let source = try sandbox.employees("source.strata")
        _ = try sandbox.insert(source, "Department", "name=Research")
        _ = try sandbox.insert(source, "Employee", "firstName=Ada", "lastName=Lovelace", "department=@Department/p1")
        let exported = try CLI.strata("export", source, "-o", "-")
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout == (try CLI.strata("export", source)).stdout)
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("-")))

        let copy = try sandbox.employees("copy.strata")
        let imported = try CLI.run("strata", ["import", copy, "-"], input: Data(exported.stdout.utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Imported 2 objects"), "\(imported.stdout)")
        let csv = try CLI.run("strata", ["import", copy, "-", "--entity", "Department"], input: Data("name\nSales\n".utf8))
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(try CLI.strata("fetch", copy, "Department", "--count").stdout == "2\n")
        #expect(try CLI.strata("fetch", copy, "Employee", "--where", "department.name == 'Research'", "--count").stdout == "1\n")
    }

    @Test("a model can come from standard input, and codegen --out - prints the classes")
    func dashForModelsAndGeneratedCode() throws {
        let sandbox = try TemporaryDirectory()
        let model = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "Note", "attributes": [{"name": "title", "type": "string"}]}]}"#
        let created = try CLI.run("strata", ["new", sandbox.path("notes.strata"), "--model", "-"], input: Data(model.utf8))
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("1 entities (1 concrete): Note"), "\(created.stdout)")
        let code = try CLI.run("strata", ["codegen", "-", "--out", "-"], input: Data(model.utf8))
        #expect(code.status == 0, "\(code.stderr)")
        #expect(code.stdout.contains("class Note"), "\(code.stdout)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("-")))
    }

    @Test("a document cannot be '-': every command says why, with a usage error")
    func documentIsNeverADash() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        for (tool, arguments) in [("strata", ["info", "-"]), ("strata", ["new", "-", "--example", "employees"]),
                                  ("strata-log", ["verify", "-"]), ("strata-log", ["replay", document, "--to", "1", "--out", "-"])] {
            let result = try CLI.run(tool, arguments)
            #expect(result.status == 64, "\(arguments): \(result.status)")
            expectFailure(result, tool: tool, mentions: ["cannot be '-' (standard input or output)", "SQLite file"])
        }
    }

    @Test("completion scripts offer .strata files for documents and model files for models")
    func completionScriptsHintFileExtensions() throws {
        let bash = try CLI.strata("--generate-completion-script", "bash")
        #expect(bash.status == 0, "\(bash.stderr)")
        #expect(bash.stdout.contains("strata"), "\(bash.stdout.prefix(300))")
        #expect(bash.stdout.contains("xcdatamodeld"), "no model hint")
        let zsh = try CLI.strataLog("--generate-completion-script", "zsh")
        #expect(zsh.status == 0 && zsh.stdout.contains("*.strata"), "\(zsh.stdout.prefix(300))")
    }
}
