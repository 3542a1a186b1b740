import Foundation
import Testing

@Suite("help and demo")
struct HelpAndDemoTests {
    static let strataCommands = ["", "new", "info", "insert", "update", "delete", "get", "fetch", "undo", "redo", "history",
                                 "import", "export", "demo"]
    static let logCommands = ["", "dump", "verify", "compact", "replay", "export", "recover", "stats"]

    @Test("every strata command's help has an Examples section", arguments: strataCommands)
    func strataHelp(_ command: String) throws {
        let result = try CLI.run("strata", (command.isEmpty ? [] : [command]) + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Examples:"), "\(command) --help has no examples")
        #expect(result.stdout.contains("strata \(command)".trimmingCharacters(in: .whitespaces)))
    }

    @Test("every strata-log command's help has an Examples section", arguments: logCommands)
    func logHelp(_ command: String) throws {
        let result = try CLI.run("strata-log", (command.isEmpty ? [] : [command]) + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Examples:"), "\(command) --help has no examples")
    }

    @Test("usage errors are one error line and a non-zero status")
    func usageErrors() throws {
        expectFailure(try CLI.strata("fetch"), mentions: ["Missing"])
        expectFailure(try CLI.strata("frobnicate"), mentions: ["frobnicate"])
        expectFailure(try CLI.strata("new", "x.strata"), mentions: ["--model"])
        expectFailure(try CLI.strataLog("replay", "x.strata", "--out", "y"), tool: "strata-log", mentions: ["--to"])
    }

    @Test("demo builds the example document, prints each step and where the file is")
    func demo() throws {
        let sandbox = try TemporaryDirectory()
        let result = try CLI.strata("demo", sandbox.path("tour"))
        #expect(result.status == 0, "\(result.stderr)")
        let document = sandbox.path("tour/employees.strata")
        #expect(result.stdout.contains(document))
        for fragment in ["Undo and redo", "Close, reopen", "Compaction", "Fetch", "Lovelace"] {
            #expect(result.stdout.contains(fragment), "missing \(fragment)")
        }
        #expect(try CLI.strataLog("verify", document).status == 0)
        #expect(try CLI.strata("fetch", document, "Employee", "--count").stdout == "4\n")
    }
}
