import Foundation
import Testing

/// Exit statuses that tell failures apart (BSD's sysexits.h; README.md, "Command line";
/// `ToolExitStatus` in StrataToolSupport): 64 usage, 65 damaged data, 66 no such document
/// or file, 74 I/O, 75 busy or conflict (try again), 1 the rest. The busy (75), full-disk
/// and permission (74) cases are in BusyDocumentTests and FullDiskTests, and a failed
/// `strata-log verify` (65) in LogCommandTests.
@Suite("exit statuses")
struct ExitStatusTests {
    @Test("no such document, import file or model file: 66 from both tools")
    func noInput() throws {
        let sandbox = try TemporaryDirectory()
        let missing = sandbox.path("missing.strata")
        for (tool, arguments) in [("strata", ["info", missing]), ("strata", ["get", missing, "Employee/p1"]),
                                  ("strata-log", ["verify", missing]), ("strata-log", ["dump", missing])] {
            let result = try CLI.run(tool, arguments)
            #expect(result.status == 66, "\(arguments): status \(result.status), \(result.stderr)")
            expectFailure(result, tool: tool, mentions: ["There is no document"])
        }
        let document = try sandbox.employees()
        let noFile = try CLI.strata("import", document, sandbox.path("rows.csv"), "--entity", "Department")
        #expect(noFile.status == 66, "\(noFile.stderr)")
        let noModel = try CLI.strata("new", sandbox.path("n.strata"), "--model", sandbox.path("Model.json"))
        #expect(noModel.status == 66, "\(noModel.stderr)")
        // A FIFO is no document either.
        #expect(mkfifo(sandbox.path("pipe.strata"), 0o600) == 0)
        #expect(try CLI.strata("info", sandbox.path("pipe.strata")).status == 66)
    }

    @Test("a file that is not a Strata document, or a damaged one: 65")
    func damagedData() throws {
        let sandbox = try TemporaryDirectory()
        let path = sandbox.path("text.strata")
        try Data("not a database at all, just some text that is long enough to look like a file\n".utf8)
            .write(to: URL(fileURLWithPath: path))
        let info = try CLI.strata("info", path)
        #expect(info.status == 65, "\(info.stderr)")
        expectFailure(info, mentions: ["not a Strata document"])
        let verify = try CLI.strataLog("verify", path)
        #expect(verify.status == 65, "\(verify.stderr)")
    }

    @Test("usage errors are 64; an existing file, an unknown name or a bad value stay 1")
    func usageAndOtherFailures() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        #expect(try CLI.strata("fetch", document).status == 64)
        #expect(try CLI.strata("frobnicate").status == 64)
        #expect(try CLI.strataLog("compact").status == 64)
        let exists = try CLI.strata("new", document, "--example", "employees")
        #expect(exists.status == 1, "\(exists.stderr)")
        expectFailure(exists, mentions: ["already exists", "--force"])
        #expect(try CLI.strata("fetch", document, "Nobody").status == 1)
        #expect(try CLI.strata("insert", document, "Employee", "salary=lots").status == 1)
        #expect(try CLI.strata("get", document, "Employee/p99").status == 1)
    }

    @Test("strata --help lists the exit statuses")
    func helpListsThem() throws {
        for tool in ["strata", "strata-log"] {
            let help = try CLI.run(tool, ["--help"])
            let text = help.stdout.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "  +", with: " ", options: .regularExpression)
            for fragment in ["Exit status: 0 success", "64 usage", "65 damaged data", "66 no such document or file",
                             "74 I/O error, disk full", "75 busy or conflicting save (try again)"] {
                #expect(text.contains(fragment), "\(tool) --help lacks '\(fragment)'")
            }
        }
    }
}
