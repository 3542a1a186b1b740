import Foundation

/// W13 out: every employee of W8's document written out by the tools, as a user pipes
/// them — `strata fetch DOC Employee --format csv` and `strata export DOC` (JSON) against
/// the `sqlite3` shell's `-csv` and `-json` modes (`.mode csv`, `.mode json`) over W8's
/// table. The output goes through a pipe to this process, which counts it and keeps none.
///
/// The documents are made first (not timed) by W8's imports into files of their own.
/// Figures: `W13.csv_s`, `W13.json_s` and the peak memory of each run
/// (`W13.csv_peak_mib`, `W13.json_peak_mib`).
enum ExportWorkload {
    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = env.file("w13.strata")
        if !FileManager.default.fileExists(atPath: url.path) {
            try ImportWorkload.importWithStrata(env, into: url)
        }
        let tool = try TimedProcess.strataTool()
        let csv = try TimedProcess.run(tool, ["fetch", url.path, "Employee", "--format", "csv"], expecting: lastEmail(env))
        let json = try TimedProcess.run(tool, ["export", url.path], expecting: lastEmail(env))
        try check(csv, json, env)
        return figures(csv, json)
    }

    static func runSQLiteShell(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = env.file("w13-shell.sqlite")
        if !FileManager.default.fileExists(atPath: url.path) {
            try ImportWorkload.importWithShell(env, into: url, schema: ImportWorkload.schema)
        }
        let query = "SELECT * FROM Employee;"
        let csv = try TimedProcess.run("/usr/bin/env", ["sqlite3", "-csv", "-header", url.path, query], expecting: lastEmail(env))
        let json = try TimedProcess.run("/usr/bin/env", ["sqlite3", "-json", url.path, query], expecting: lastEmail(env))
        try check(csv, json, env)
        return figures(csv, json)
    }

    /// The last row's email: both outputs end with it (key order, insertion order).
    private static func lastEmail(_ env: BenchEnvironment) -> String { "e\(env.tier.objects - 1)@example.com" }

    /// Every row came out: a CSV line per row and a header; JSON at least a line per row.
    private static func check(_ csv: TimedProcess.Outcome, _ json: TimedProcess.Outcome, _ env: BenchEnvironment) throws {
        guard csv.outputLines == env.tier.objects + 1, json.outputLines >= env.tier.objects else {
            throw ChildProcess.Failure(description: "W13: \(csv.outputLines) CSV lines and \(json.outputLines) JSON lines for \(env.tier.objects) rows")
        }
    }

    private static func figures(_ csv: TimedProcess.Outcome, _ json: TimedProcess.Outcome) -> [String: Double] {
        ["W13.csv_s": csv.seconds, "W13.json_s": json.seconds, "W13.csv_peak_mib": csv.peakMiB, "W13.json_peak_mib": json.peakMiB]
    }
}
