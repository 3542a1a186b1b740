import Foundation
import Strata
import StrataToolSupport

/// Printing for the `strata` commands: errors, tables and JSON.
enum CommandOutput {
    /// Writes a line to standard error.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Prints JSON, indented.
    static func printJSON(_ value: JSONValue) {
        print(value.rendered(pretty: true))
    }

    /// A table: a header row, a rule, then the rows; columns padded to their widest cell
    /// (cells cut at `maxWidth` characters with an ellipsis).
    static func table(_ header: [String], _ rows: [[String]], maxWidth: Int = 40, rightAligned: Set<Int> = []) -> String {
        let cells = ([header] + rows).map { $0.map { tableCell($0, maxWidth: maxWidth) } }
        var widths = Array(repeating: 0, count: header.count)
        for row in cells { for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) } }
        var lines = [tableLine(cells[0], widths: widths, rightAligned: rightAligned), tableRule(widths)]
        lines += cells.dropFirst().map { tableLine($0, widths: widths, rightAligned: rightAligned) }
        return lines.joined(separator: "\n")
    }

    /// A table cell as ``table(_:_:maxWidth:rightAligned:)`` shows it: on one line, cut at
    /// `maxWidth` characters with an ellipsis.
    static func tableCell(_ text: String, maxWidth: Int) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count > maxWidth ? String(flat.prefix(maxWidth - 1)) + "…" : flat
    }

    /// One row of cut cells padded to `widths`, trailing spaces dropped.
    static func tableLine(_ row: [String], widths: [Int], rightAligned: Set<Int> = []) -> String {
        row.enumerated().map { index, cell in
            let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
            return rightAligned.contains(index) ? pad + cell : cell + pad
        }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }

    /// The rule under a table's header.
    static func tableRule(_ widths: [Int]) -> String {
        widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
    }

    /// `1,234,567`.
    static func grouped(_ number: Int) -> String {
        let digits = String(abs(number))
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result += "," }
            result.append(character)
        }
        return number < 0 ? "-" + result : result
    }

    /// `12.3 KB`.
    static func bytes(_ count: Int) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1024 * 1024 { return String(format: "%.1f KB", Double(count) / 1024) }
        return String(format: "%.1f MB", Double(count) / 1024 / 1024)
    }

    /// One CSV field, quoted when needed (RFC 4180): every quote doubled, also one a
    /// combining mark follows (a character-based replacement left that one single, and the
    /// field unreadable).
    static func csvField(_ text: String) -> String {
        var bytes: [UInt8] = []
        ToolValueBytes.appendCSVField(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
