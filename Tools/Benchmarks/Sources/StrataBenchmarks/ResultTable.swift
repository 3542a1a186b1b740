import Foundation

/// The markdown table of a run's medians, with each peer's ratio, and the targets.
enum ResultTable {
    /// The results table: one row per metric, a column per subject. A peer cell shows the
    /// peer's median and `Strata ÷ peer` (for times and sizes below 1× is Strata ahead;
    /// for rates, above 1×).
    static func markdown(_ results: BenchResults) -> String {
        let medians = results.medians
        var lines: [String] = []
        let header = ["W", "measure"] + Subject.columns.map(\.title)
        lines.append("| " + header.joined(separator: " | ") + " |")
        lines.append("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
        for row in ReportRows.all
        where Subject.columns.contains(where: { medians[ReportRows.peerKey(row, subject: $0.id)] != nil || medians[row.key($0.id)] != nil }) {
            let strataKey = row.key(Subject.strata)
            let strata = medians[strataKey]
            var cells = [row.workload, row.label]
            for (subject, _) in Subject.columns {
                if subject == Subject.strata {
                    cells.append(strata.map { "**\(row.unit.format($0))**" } ?? "—")
                    continue
                }
                let key = ReportRows.peerKey(row, subject: subject)
                if let value = medians[key] {
                    var cell = row.unit.format(value)
                    if let strata, value > 0 { cell += String(format: " (%.2f×)", strata / value) }
                    cells.append(cell)
                } else if let reason = row.notApplicable[subject] {
                    cells.append(reason)
                } else {
                    cells.append("—")
                }
            }
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    static func targetsMarkdown(_ results: BenchResults) -> String {
        var lines = ["| W | target | result | measured (median) |", "|---|---|---|---|"]
        for target in results.targets {
            let verdict = target.met.map { $0 ? "met" : "**missed**" } ?? "not measured"
            lines.append("| \(target.workload) | \(target.target) | \(verdict) | \(target.detail) |")
        }
        return lines.joined(separator: "\n")
    }

    static func header(_ results: BenchResults) -> String {
        let machine = results.machine
        var lines = [
            "- tier: **\(results.tier)** (\(results.sizes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))",
            "- commit: `\(results.commit)`\(results.commitIsDirty ? " (with uncommitted changes)" : ""), \(results.date), \(String(format: "%.0f", results.durationSeconds)) s",
            "- machine: \(machine.cpu), \(machine.cores) cores, \(machine.memoryBytes >> 30) GiB, \(machine.os), Linux \(machine.kernel)",
            "- \(machine.swift)",
            "- load average (1/5/15 min): \(machine.loadAverageAtStart) at start, \(machine.loadAverageAtEnd ?? "?") at end",
            "- command: `\(results.command)`",
        ]
        for (name, text) in Subject.settings { lines.append("- \(name): \(text)") }
        for note in results.notes { lines.append("- note: \(note)") }
        return lines.joined(separator: "\n")
    }

    /// Medians of this run against an earlier one, figure by figure.
    static func comparison(_ current: BenchResults, with previous: BenchResults) -> String {
        var lines = [
            "Compared with \(previous.commit.prefix(12)) (\(previous.tier), \(previous.date)):",
            "| figure | before | now | change |", "|---|---|---|---|",
        ]
        for key in current.figures.keys.sorted() {
            guard let now = current.figures[key]?.median, let before = previous.figures[key]?.median else { continue }
            let change = before == 0 ? "—" : String(format: "%+.1f%%", 100 * (now - before) / before)
            lines.append("| \(key) | \(String(format: "%.6g", before)) | \(String(format: "%.6g", now)) | \(change) |")
        }
        let missing = previous.figures.keys.filter { current.figures[$0] == nil }.sorted()
        if !missing.isEmpty { lines.append("Not measured now: \(missing.joined(separator: ", "))") }
        if previous.tier != current.tier { lines.append("Warning: the tiers differ (\(previous.tier) vs \(current.tier)).") }
        return lines.joined(separator: "\n")
    }
}
