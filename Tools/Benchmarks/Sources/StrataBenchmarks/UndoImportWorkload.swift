import Foundation

/// W14 undo: W8's import undone and redone by the tool, each a command of its own, as
/// a user runs them — `strata import`, then `strata undo`, then `strata redo` — into a
/// document of its own. The target is that neither costs more than the import did
/// (docs/BENCHMARKS.md). No peer: neither the shell nor GRDB has undo.
///
/// Figures: `W14.import_s`, `W14.undo_s`, `W14.redo_s`, `W14.peak_mib` (the largest of the
/// three processes' peaks).
enum UndoImportWorkload {
    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        let url = env.file("w14.strata")
        let imported = try ImportWorkload.importWithStrata(env, into: url)
        let tool = try TimedProcess.strataTool()
        let undone = try TimedProcess.run(tool, ["undo", url.path], expecting: "Undid Import Employee")
        let redone = try TimedProcess.run(tool, ["redo", url.path], expecting: "Redid Import Employee")
        // The redo brought every row back.
        let count = env.tier.objects
        try TimedProcess.run(tool, ["fetch", url.path, "Employee", "--where", "employeeID == \(count - 1)", "--format", "json"],
                             expecting: "e\(count - 1)@example.com")
        return ["W14.import_s": imported.seconds, "W14.undo_s": undone.seconds, "W14.redo_s": redone.seconds,
                "W14.peak_mib": max(imported.peakMiB, undone.peakMiB, redone.peakMiB)]
    }
}
