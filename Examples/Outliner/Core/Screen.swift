import Foundation
import Strata

/// What the terminal shows: text lines (no escapes) and which one is highlighted. The
/// terminal layer draws it; tests read it.
public struct Screen: Equatable, Sendable {
    /// The lines from the top; the last is the status line.
    public var lines: [String]
    /// The index of the highlighted line, if any.
    public var highlighted: Int?

    /// The status line.
    public var status: String { lines.last ?? "" }
    /// Everything, one line per line.
    public var text: String { lines.joined(separator: "\n") }
}

extension OutlineEditor {
    /// The screen for a terminal of `width` × `height` characters.
    public func screen(width: Int = 80, height: Int = 24) -> Screen {
        let bodyHeight = max(1, height - 2)
        var lines: [String] = []
        var highlighted: Int?
        switch mode {
        case .outline, .filterPrompt:
            lines.append(filterText.isEmpty ? "Outline" : "Outline — filter: \(filterText)")
            scrollToSelection(visibleRows: bodyHeight)
            for (index, row) in rows(limit: bodyHeight).enumerated() {
                if row.isSelected { highlighted = index + 1 }
                lines.append(Self.draw(row, typing: row.isSelected && isTyping))
            }
        case .history(let index):
            lines.append("History — Enter opens a save read-only, Esc returns")
            let first = max(0, index - bodyHeight + 1)
            for (offset, entry) in history.dropFirst(first).prefix(bodyHeight).enumerated() {
                if first + offset == index { highlighted = offset + 1 }
                lines.append("#\(entry.sequence)  \(Self.time(entry.timestamp))  \(entry.actions.joined(separator: ", "))")
            }
        case .past(let sequence):
            lines.append("Read-only: the outline after save #\(sequence) — Esc returns")
            lines += pastRows.prefix(bodyHeight).map { Self.draw($0, typing: false) }
        }
        while lines.count < height - 1 { lines.append("") }
        lines.append(statusLine())
        return Screen(lines: lines.map { String($0.prefix(width)) }, highlighted: highlighted)
    }

    static func draw(_ row: Row, typing: Bool) -> String {
        String(repeating: "  ", count: row.depth) + (row.done ? "[x] " : "[ ] ") + row.title + (typing ? "_" : "")
    }

    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    /// Undo and redo names, the item count, the save state, and a message or the prompt.
    func statusLine() -> String {
        if case .filterPrompt(let text) = mode {
            return "/" + text + (message.isEmpty ? "" : "  — " + message)
        }
        let undoName = undo.canUndo ? undo.undoMenuItemTitle : "Undo —"
        let redoName = undo.canRedo ? undo.redoMenuItemTitle : "Redo —"
        let state = context.hasChanges ? "edited" : "saved"
        let count = "\(itemCount) item\(itemCount == 1 ? "" : "s")"
        return "\(undoName) | \(redoName) | \(count) | \(state)" + (message.isEmpty ? "" : " | " + message)
    }
}
