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
        func cut(_ text: String) -> String {
            let flat = text.replacingOccurrences(of: "\n", with: " ")
            return flat.count > maxWidth ? String(flat.prefix(maxWidth - 1)) + "…" : flat
        }
        let cells = ([header] + rows).map { $0.map(cut) }
        var widths = Array(repeating: 0, count: header.count)
        for row in cells { for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) } }
        func line(_ row: [String]) -> String {
            row.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return rightAligned.contains(index) ? pad + cell : cell + pad
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var lines = [line(cells[0]), widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")]
        lines += cells.dropFirst().map(line)
        return lines.joined(separator: "\n")
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

    /// One CSV field, quoted when needed (RFC 4180).
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
