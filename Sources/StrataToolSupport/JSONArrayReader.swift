import Foundation
import Strata

/// Reads a JSON array one item at a time from an ``ImportByteSource``: it finds where each
/// item ends (tracking strings, escapes and nesting), parses that item alone, and keeps
/// line and column numbers relative to the whole file in its errors. Memory holds one item,
/// and an item is bounded (``StrataLimits``' import limits: its bytes, each string's bytes,
/// its values), so text that never closes an item fails at the limit instead of filling
/// memory.
package struct JSONArrayReader {
    private let source: ImportByteSource
    private let limits: StrataLimits
    private var line = 1
    private var column = 1
    private var started = false
    private var finished = false
    private var count = 0

    /// A reader of the items of the array in `source`, each held to `limits`.
    package init(_ source: ImportByteSource, limits: StrataLimits = .current) {
        self.source = source
        self.limits = limits
    }

    /// The next item of the array, or nil after the last.
    /// - Throws: `.invalidArgument`: "The JSON import file must hold an array of objects."
    ///   when the text is not an array; the JSON parser's errors ("Malformed JSON at line
    ///   L, column C: ...") with the file's line and column.
    package mutating func nextItem() throws -> JSONValue? {
        if finished { return nil }
        if !started {
            started = true
            if try source.peek() == 0xEF {
                // A byte order mark (the parser skips one too); anything else is malformed.
                for expected: UInt8 in [0xEF, 0xBB, 0xBF] where try source.next() != expected {
                    throw malformed("unexpected byte at the start of the file")
                }
            }
            try skipWhitespace()
            guard try source.peek() == UInt8(ascii: "[") else {
                if try source.peek() == nil { throw malformed("unexpected end of the JSON text") }
                // Not an array: parse it anyway so malformed text reports as JSON errors.
                _ = try parseItem()
                throw StrataError(.invalidArgument, "The JSON import file must hold an array of objects.")
            }
            try advance()
            try skipWhitespace()
            if try source.peek() == UInt8(ascii: "]") {
                try advance()
                try expectEnd()
                return nil
            }
        } else {
            try skipWhitespace()
            switch try source.peek() {
            case UInt8(ascii: "]"):
                try advance()
                try expectEnd()
                return nil
            case UInt8(ascii: ","):
                try advance()
                try skipWhitespace()
            case nil: throw malformed("unexpected end of the JSON text")
            case let byte?: throw malformed("expected ',' or ']' but found '\(Character(Unicode.Scalar(byte)))'")
            }
        }
        count += 1
        return try parseItem()
    }

    /// Collects the bytes of one value and parses them.
    private mutating func parseItem() throws -> JSONValue {
        let startLine = line
        let startColumn = column
        var bytes: [UInt8] = []
        var depth = 0
        var inString = false
        var escaped = false
        // The bytes of the string being read, and the values begun: the item, the first
        // element of each array or object, one more per comma in them (an upper bound).
        var stringBytes = 0
        var values = 1
        scan: while let byte = try source.peek() {
            if bytes.count >= limits.maxImportRecordBytes {
                throw tooBig("the item is longer than \(limits.maxImportRecordBytes) bytes", limit: "maxImportRecordBytes",
                             maximum: limits.maxImportRecordBytes, line: startLine, column: startColumn)
            }
            if inString {
                stringBytes += 1
                if stringBytes > limits.maxImportFieldBytes {
                    throw tooBig("a string is longer than \(limits.maxImportFieldBytes) bytes", limit: "maxImportFieldBytes",
                                 maximum: limits.maxImportFieldBytes, line: startLine, column: startColumn)
                }
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { bytes.append(byte); try advance(); break scan }
                }
            } else {
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") || (byte == UInt8(ascii: ",") && depth > 0) {
                    values += 1
                    if values > limits.maxImportRecordValues {
                        throw tooBig("the item has more than \(limits.maxImportRecordValues) values", limit: "maxImportRecordValues",
                                     maximum: limits.maxImportRecordValues, line: startLine, column: startColumn)
                    }
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true; stringBytes = 0
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { break scan }
                    depth -= 1
                    if depth == 0 { bytes.append(byte); try advance(); break scan }
                case UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                    if depth == 0 { break scan }
                default: break
                }
            }
            bytes.append(byte)
            try advance()
        }
        do {
            return try JSONValue.parse(bytes)
        } catch var error as StrataError {
            // The parser counts from the item's start; report the file's line and column.
            if let itemLine = error.context.line, let itemColumn = error.context.column,
               let range = error.message.range(of: ": ") {
                let fileLine = startLine + itemLine - 1
                let fileColumn = itemLine == 1 ? startColumn + itemColumn - 1 : itemColumn
                error.message = "Malformed JSON at line \(fileLine), column \(fileColumn)" + error.message[range.lowerBound...]
                error.context.line = fileLine
                error.context.column = fileColumn
                error.context.offset = nil
            }
            throw error
        }
    }

    private mutating func expectEnd() throws {
        try skipWhitespace()
        if try source.peek() != nil { throw malformed("unexpected text after the JSON value") }
        finished = true
    }

    private mutating func skipWhitespace() throws {
        while let byte = try source.peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { try advance() }
    }

    private mutating func advance() throws {
        guard let byte = try source.next() else { return }
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else {
            column += 1  // in bytes, as the JSON parser counts
        }
    }

    /// The error for an item past an import limit, naming the item, where it starts, the
    /// limit and how to raise it.
    private func tooBig(_ reason: String, limit: String, maximum: Int, line: Int, column: Int) -> StrataError {
        StrataError(.invalidArgument,
                    "JSON item \(count) (line \(line), column \(column)): \(reason) (limit \(limit)); raise it with STRATA_LIMITS=\(limit)=N.",
                    context: .init { $0.line = line; $0.column = column; $0.row = count; $0.limit = limit; $0.maximum = maximum })
    }

    private func malformed(_ reason: String) -> StrataError {
        StrataError(.invalidArgument, "Malformed JSON at line \(line), column \(column): \(reason).",
                    context: .init { $0.line = line; $0.column = column })
    }
}
