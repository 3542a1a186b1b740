import Foundation
import Strata

if CommandLine.arguments.dropFirst().first == "fetch" { try FetchWorkload.runFromCommandLine(); exit(0) }

let quick = CommandLine.arguments.contains("--quick")
if CommandLine.arguments.dropFirst().first == "document" {
    try DocumentWorkload.main(quick: quick)
    exit(0)
}
let edits = quick ? 100_000 : 1_000_000
let workload = EditUndoWorkload(edits: edits, objects: 10_000, editsPerGroup: 100, undoEnabled: true)
let result = try workload.run()
func rate(_ count: Int, _ seconds: Double) -> String { String(format: "%.0f", Double(count) / seconds) }
print("edits: \(edits) in \(result.groups) groups")
print(String(format: "edit+flush %.3f s (%@ ops/s)", result.editSeconds, rate(edits, result.editSeconds)))
print(String(format: "undo all   %.3f s (%@ ops/s)", result.undoSeconds, rate(edits, result.undoSeconds)))
print(String(format: "redo all   %.3f s (%@ ops/s)", result.redoSeconds, rate(edits, result.redoSeconds)))
