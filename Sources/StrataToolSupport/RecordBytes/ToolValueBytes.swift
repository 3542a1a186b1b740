import Foundation
import Strata

/// Values as the tools write them, appended to a byte buffer as UTF-8: the JSON text of
/// ``ToolValueText/json(_:)`` rendered compactly, and CSV fields quoted as RFC 4180 asks.
/// `strata fetch` and `strata export` write every value of every record through here, so
/// nothing in it builds a `JSONValue` or a `String` for an integer, a boolean or a date
/// (docs/BENCHMARKS.md, W13).
package enum ToolValueBytes {
    private static let quote = UInt8(ascii: "\"")

    /// Appends an integer's decimal digits (`-42`): written backwards into a small buffer
    /// on the stack, then appended at once.
    package static func appendInteger(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            output.append(UInt8(ascii: "0") + UInt8(magnitude))
            return
        }
        // 20 digits hold UInt64.max.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends a JSON string literal of `text`: quotes, backslashes and control characters
    /// escaped as `JSONValue` writes them, everything else copied in runs between escapes.
    package static func appendJSONString(_ text: String, to output: inout [UInt8]) {
        output.append(quote)
        var text = text
        text.withUTF8 { appendJSONEscaped($0, to: &output) }
        output.append(quote)
    }

    /// Appends UTF-8 bytes escaped for the inside of a JSON string literal. Every byte that
    /// needs escaping is ASCII and no byte of a multi-byte sequence is, so bytes are
    /// scanned, not characters.
    package static func appendJSONEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var runStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard byte == quote || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            appendEscape(byte, to: &output)
            runStart = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }

    /// The escape of a quote, a backslash or a control character (`\n`, `\u001f`).
    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case quote: output.append(quote)
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "\n"): output.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): output.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): output.append(UInt8(ascii: "t"))
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            output.append(contentsOf: "u00".utf8)
            output.append(hex[Int(byte >> 4)])
            output.append(hex[Int(byte & 0x0F)])
        }
    }

    /// Appends one CSV field: as it is, or quoted with its quotes doubled when it holds a
    /// comma, a quote, a line feed or a carriage return (the four are ASCII, so bytes are
    /// scanned).
    package static func appendCSVField(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let needsQuotes = bytes.contains { byte in
            byte == UInt8(ascii: ",") || byte == quote || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
        }
        guard needsQuotes else {
            output.append(contentsOf: bytes)
            return
        }
        output.append(quote)
        var runStart = 0
        for index in 0..<bytes.count where bytes[index] == quote {
            // The run includes the quote; the quote is written once more after it.
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...index]))
            output.append(quote)
            runStart = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        output.append(quote)
    }

    /// Appends `text` as one CSV field (``appendCSVField(_:to:)-(UnsafeBufferPointer<UInt8>,_)``).
    package static func appendCSVField(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendCSVField($0, to: &output) }
    }

    /// Appends an attribute value's JSON text (not a relationship's: `.object` and
    /// `.objects` are written by ``ToolRecordWriter``, which knows their URIs): a number,
    /// `true`/`false`, a string literal, or `null` for no value and for a non-finite number.
    package static func appendJSONScalar(_ value: PropertyValue, to output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .integer(let number): appendInteger(number, to: &output)
        case .double(let number):
            if number.isFinite { output.append(contentsOf: ToolValueText.doubleText(number).utf8) } else { output.append(contentsOf: "null".utf8) }
        case .decimal(let number):
            if number.isNaN { output.append(contentsOf: "null".utf8) } else { output.append(contentsOf: number.description.utf8) }
        case .string(let text): appendJSONString(text, to: &output)
        case .boolean(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .date(let date):
            output.append(quote)
            if !ModelDateText.append(date, to: &output) {
                var text = ToolValueText.text(of: date)
                text.withUTF8 { appendJSONEscaped($0, to: &output) }
            }
            output.append(quote)
        case .data(let data): appendJSONString(data.base64EncodedString(), to: &output)
        case .uuid(let uuid): appendJSONString(uuid.uuidString, to: &output)
        case .uri(let url): appendJSONString(url.absoluteString, to: &output)
        case .object(let id): appendJSONString(id.description, to: &output)
        case .objects(let ids):
            // Compact, as an attribute never holds it: the writer lays arrays out itself.
            output.append(UInt8(ascii: "["))
            for (index, id) in ids.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                appendJSONString(id.description, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        }
    }

    /// Appends an attribute value as one CSV field, as `strata fetch --format csv` writes
    /// it: empty for no value (and for a non-finite number, which JSON has no number for),
    /// text otherwise, quoted when needed. (`.object` and `.objects` are written by
    /// ``ToolRecordWriter``.)
    package static func appendCSVScalar(_ value: PropertyValue, to output: inout [UInt8]) {
        switch value {
        case .null: return
        case .integer(let number): appendInteger(number, to: &output)
        case .double(let number):
            if number.isFinite { appendCSVField(ToolValueText.doubleText(number), to: &output) }
        case .decimal(let number):
            if !number.isNaN { appendCSVField(number.description, to: &output) }
        case .string(let text): appendCSVField(text, to: &output)
        case .boolean(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .date(let date):
            // ModelDateText's text is digits, `-`, `T`, `:`, `.` and `Z`: never quoted.
            if !ModelDateText.append(date, to: &output) { appendCSVField(ToolValueText.text(of: date), to: &output) }
        case .data(let data): appendCSVField(data.base64EncodedString(), to: &output)
        case .uuid(let uuid): appendCSVField(uuid.uuidString, to: &output)
        case .uri(let url): appendCSVField(url.absoluteString, to: &output)
        case .object(let id): appendCSVField(id.description, to: &output)
        case .objects(let ids): appendCSVField(ids.map(\.description).joined(separator: " "), to: &output)
        }
    }
}
