import Foundation
import Testing

/// The progress bar of import, compaction and migration (README.md, "Command line"): one
/// line per phase, named, in rows, with the rate and the time left, ending at 100%.
/// `STRATA_PROGRESS=1` draws it on a standard error that is not a terminal.
@Suite("progress bar")
struct ProgressBarTests {
    /// The finished phase lines of `stderr` (each ends where the next `\r` redraw began).
    private func finishedLines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").compactMap { line in
            line.split(separator: "\r").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test("an import names each phase in rows and ends each at 100% with a rate")
    func importPhases() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let csv = sandbox.path("departments.csv")
        try Data(("name\n" + (0..<5000).map { "Department \($0)" }.joined(separator: "\n") + "\n").utf8)
            .write(to: URL(fileURLWithPath: csv))
        let result = try CLI.run("strata", ["import", document, csv, "--entity", "Department"], environment: ["STRATA_PROGRESS": "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = finishedLines(result.stderr)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("Writing") == true && lines.first?.contains("100%  5,000 rows") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("Folding") == true && lines.last?.contains("100%  5,000 rows") == true, "\(lines)")
        #expect(lines.allSatisfy { $0.contains("rows/s") }, "\(lines)")
        #expect(result.stderr.contains(" left"), "no time left shown: \(result.stderr.prefix(400))")
        #expect(!result.stderr.contains("/\(5000)") && !result.stderr.contains("Importing"), "bytes shown: \(result.stderr.prefix(400))")
        // Without STRATA_PROGRESS, a standard error that is no terminal stays clean.
        let quiet = try CLI.strata("import", document, csv, "--entity", "Department")
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    @Test("rows that name each other are read first; a file of several entities is read, then validated and written")
    func readingAndValidatingPhases() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let named = sandbox.path("named.json")
        try Data(#"[{"_uri": "a", "firstName": "Ada", "lastName": "L"}, {"firstName": "Alan", "lastName": "T", "manager": "a"}]"#.utf8)
            .write(to: URL(fileURLWithPath: named))
        let first = try CLI.run("strata", ["import", document, named, "--entity", "Employee"], environment: ["STRATA_PROGRESS": "1"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(finishedLines(first.stderr).map { String($0.prefix(7)) } == ["Reading", "Writing", "Folding"], "\(first.stderr)")
        let mixed = sandbox.path("mixed.json")
        try Data(#"[{"_entity": "Department", "name": "R"}, {"_entity": "Employee", "firstName": "Grace", "lastName": "H"}]"#.utf8)
            .write(to: URL(fileURLWithPath: mixed))
        let second = try CLI.run("strata", ["import", document, mixed], environment: ["STRATA_PROGRESS": "1"])
        #expect(second.status == 0, "\(second.stderr)")
        let lines = finishedLines(second.stderr)
        #expect(lines.count == 3 && lines[0].hasPrefix("Reading") && lines[1].hasPrefix("Validating and writing") && lines[2].hasPrefix("Folding"), "\(lines)")
        #expect(lines.allSatisfy { $0.contains("100%") }, "\(lines)")
    }

    @Test("strata-log compact shows Folding at 100%")
    func compactionFolds() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Research")
        let result = try CLI.run("strata-log", ["compact", document], environment: ["STRATA_PROGRESS": "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = finishedLines(result.stderr)
        #expect(lines.count == 1 && lines[0].hasPrefix("Folding") && lines[0].contains("100%  1 row"), "\(lines)")
    }
}
