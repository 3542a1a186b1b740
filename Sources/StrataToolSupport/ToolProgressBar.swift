import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A progress bar on standard error for long tool operations (import, compaction,
/// migration): one line per phase, naming it, in rows, with the rate and the time left,
/// ending at 100% with the time the phase took.
///
/// ```
/// Reading   ██████████████████████████████ 100%  200,000 rows  410,000 rows/s  0:00
/// Writing   ████████████░░░░░░░░░░░░░░░░░░  41%   82,944 rows   61,000 rows/s  0:02 left
/// ```
///
/// It draws only when standard error is a terminal (`isatty(2)`), so piped and captured
/// output stays clean; `STRATA_PROGRESS=1` draws it anyway (for logs), `STRATA_PROGRESS=0`
/// never (README.md, "Command line").
///
/// ```swift
/// let bar = ToolProgressBar(.folding)
/// for index in 0..<rows.count { bar.update(index + 1, of: rows.count) }
/// bar.finish()
/// ```
package final class ToolProgressBar {
    /// What the tool is doing; the bar's label.
    package enum Phase: String, Sendable {
        /// Reading a file's rows (a first pass, or rows into a context).
        case reading = "Reading"
        /// Checking the objects against the model.
        case validating = "Validating"
        /// Writing rows into the document.
        case writing = "Writing"
        /// A context's save: the objects checked, then written.
        case validatingAndWriting = "Validating and writing"
        /// Folding the log into the snapshot tables (compaction).
        case folding = "Folding"
        /// Migrating records to a new model.
        case migrating = "Migrating"
    }

    /// The phase being shown, if one is.
    package private(set) var phase: Phase?
    private let isEnabled: Bool
    private let clock: () -> TimeInterval
    private var started: TimeInterval = 0
    private var lastDrawnAt: TimeInterval = -1
    private var lastPercent = -1
    private var rows = 0
    private var drawnWidth = 0

    /// Whether standard error gets a bar: `STRATA_PROGRESS` when set (1 or 0), else
    /// whether it is a terminal.
    package static var standardErrorShowsProgress: Bool {
        switch ProcessInfo.processInfo.environment["STRATA_PROGRESS"] {
        case "1"?: return true
        case "0"?: return false
        default: return isatty(2) == 1
        }
    }

    /// A bar starting in `phase` (nil: none yet, see ``begin(_:)``).
    package init(_ phase: Phase? = nil, enabled: Bool = ToolProgressBar.standardErrorShowsProgress,
                 clock: @escaping () -> TimeInterval = { ProcessInfo.processInfo.systemUptime }) {
        self.isEnabled = enabled
        self.clock = clock
        if let phase { begin(phase) }
    }

    /// Whether the bar draws at all.
    package var isDrawing: Bool { isEnabled }

    /// Starts a phase: the previous one, if any, is finished at 100% first.
    package func begin(_ phase: Phase) {
        if self.phase != nil { finish() }
        self.phase = phase
        started = clock()
        lastDrawnAt = -1
        lastPercent = -1
        rows = 0
        draw(fraction: nil, force: true)
    }

    /// Shows `done` rows of `total`.
    package func update(_ done: Int, of total: Int) {
        update(rows: done, fraction: total > 0 ? Double(done) / Double(total) : nil)
    }

    /// Shows `rows` rows done, `fraction` of the phase (from the bytes read, say; nil when
    /// unknown: no percentage or time left then). Redraws at most ten times a second.
    package func update(rows: Int, fraction: Double?) {
        guard phase != nil else { return }
        self.rows = rows
        draw(fraction: fraction, force: false)
    }

    /// Ends the phase at 100% (with `rows` when given) and its line.
    package func finish(rows: Int? = nil) {
        guard phase != nil else { return }
        if let rows { self.rows = rows }
        draw(fraction: 1, force: true)
        if isEnabled { FileHandle.standardError.write(Data("\n".utf8)) }
        phase = nil
        drawnWidth = 0
    }

    /// Ends the phase without completing it (the work was abandoned, to be done another
    /// way): its line is erased.
    package func discard() {
        guard phase != nil else { return }
        if isEnabled, drawnWidth > 0 {
            FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: drawnWidth) + "\r").utf8))
        }
        phase = nil
        drawnWidth = 0
    }

    private func draw(fraction: Double?, force: Bool) {
        guard isEnabled, let phase else { return }
        let now = clock()
        let percent = fraction.map { Int((min(1, max(0, $0)) * 100).rounded(.down)) }
        guard force || (percent != nil && percent != lastPercent) || now - lastDrawnAt >= 0.1 else { return }
        lastDrawnAt = now
        lastPercent = percent ?? -1
        let line = Self.line(phase: phase, rows: rows, fraction: fraction, elapsed: now - started)
        let padding = String(repeating: " ", count: max(0, drawnWidth - line.count))
        FileHandle.standardError.write(Data(("\r" + line + padding).utf8))
        drawnWidth = line.count
    }

    /// One state of the bar: `Writing   ███░░░  41%  82,944 rows  61,000 rows/s  0:02 left`.
    package static func line(phase: Phase, rows: Int, fraction: Double?, elapsed: TimeInterval) -> String {
        let width = 30
        var text = phase.rawValue.padding(toLength: max(9, phase.rawValue.count), withPad: " ", startingAt: 0) + " "
        if let fraction {
            let clamped = min(1, max(0, fraction))
            let filled = Int((clamped * Double(width)).rounded(.down))
            text += String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            text += String(format: " %3d%%", Int((clamped * 100).rounded(.down)))
        } else {
            text += String(repeating: "░", count: width) + "    …"
        }
        text += "  \(grouped(rows)) row\(rows == 1 ? "" : "s")"
        if elapsed > 0, rows > 0 { text += "  \(grouped(Int(Double(rows) / elapsed))) rows/s" }
        if let fraction, fraction >= 1 {
            text += "  " + clockText(elapsed)
        } else if let fraction, fraction > 0, elapsed > 0 {
            text += "  " + clockText(elapsed * (1 - fraction) / fraction) + " left"
        }
        return text
    }

    /// `1:05`, `1:02:03`.
    static func clockText(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }

    /// `1,234,567`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result += "," }
            result.append(character)
        }
        return result
    }
}
