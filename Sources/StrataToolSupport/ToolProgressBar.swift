import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A progress bar on standard error for long tool operations (import, compaction). It
/// draws only when standard error is a terminal (`isatty(2)`), so piped and captured
/// output stays clean.
///
/// ```swift
/// let bar = ToolProgressBar(label: "Importing")
/// for index in 0..<rows.count { bar.update(index + 1, of: rows.count) }
/// bar.finish()
/// ```
package final class ToolProgressBar {
    private let label: String
    private let isEnabled: Bool
    private var lastDrawn = -1
    private var drewSomething = false

    /// A bar with a label; `enabled` defaults to whether standard error is a terminal.
    package init(label: String, enabled: Bool = isatty(2) == 1) {
        self.label = label
        self.isEnabled = enabled
    }

    /// Whether the bar draws at all.
    package var isDrawing: Bool { isEnabled }

    /// Shows `done` of `total` (redraws at most once per percent).
    package func update(_ done: Int, of total: Int) {
        guard isEnabled, total > 0 else { return }
        let percent = min(100, max(0, done * 100 / total))
        guard percent != lastDrawn else { return }
        lastDrawn = percent
        let width = 30
        let filled = percent * width / 100
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) \(bar) \(percent)% (\(done)/\(total))".utf8))
        drewSomething = true
    }

    /// Ends the bar's line.
    package func finish() {
        guard isEnabled, drewSomething else { return }
        FileHandle.standardError.write(Data("\n".utf8))
        drewSomething = false
        lastDrawn = -1
    }
}
